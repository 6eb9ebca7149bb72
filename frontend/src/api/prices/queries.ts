import { useQuery } from "@tanstack/react-query";
import type { components } from "../schema";
import { apiGet } from "../client";
import { sourcePath, useCompareSource } from "../results/source";
import { priceKeys } from "./keys";

export type PriceTable = components["schemas"]["PriceTable"];
export type PriceTableRow = components["schemas"]["TableRow"];

/** The review's price table, from the signed-in api or the page's shared link. */
export const usePriceTable = (currency = "USD") => {
  const source = useCompareSource();
  return useQuery({
    queryKey: priceKeys.table(currency, source.shareToken),
    queryFn: ({ signal }) =>
      apiGet<PriceTable>(`${sourcePath(source, "prices")}?currency=${currency}`, signal),
  });
};
