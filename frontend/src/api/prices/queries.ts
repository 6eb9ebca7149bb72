import { useQuery } from "@tanstack/react-query";
import type { components } from "../schema";
import { apiGet } from "../client";
import { useChartPart } from "../results/charts";
import { sourcePath, useCompareSource } from "../results/source";
import { priceKeys } from "./keys";

export type PriceTable = components["schemas"]["PriceTable"];
export type PriceTableRow = components["schemas"]["TableRow"];

/** The review's price table, from the signed-in api or the page's shared link; beside a
 * comparison of `drives`, from its charts answer (which holds the table in USD). */
export const usePriceTable = (currency = "USD", drives: number[] = []) => {
  const source = useCompareSource();
  const part = useChartPart(drives, (c) => (currency === "USD" ? c.prices : undefined));
  const inCharts = drives.length > 0 && !part.ask;
  const own = useQuery({
    queryKey: priceKeys.table(currency, source.shareToken),
    queryFn: ({ signal }) =>
      apiGet<PriceTable>(`${sourcePath(source, "prices")}?currency=${currency}`, signal),
    enabled: !inCharts,
  });
  return inCharts ? part : own;
};
