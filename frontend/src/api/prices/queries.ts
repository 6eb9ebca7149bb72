import { useQuery } from "@tanstack/react-query";
import type { components } from "../schema";
import { apiGet } from "../client";
import { priceKeys } from "./keys";

export type PriceTable = components["schemas"]["PriceTable"];
export type PriceTableRow = components["schemas"]["TableRow"];

export const usePriceTable = (currency = "USD") =>
  useQuery({
    queryKey: priceKeys.table(currency),
    queryFn: ({ signal }) => apiGet<PriceTable>(`/prices/table?currency=${currency}`, signal),
  });
