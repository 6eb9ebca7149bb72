import { createContext, useContext } from "react";
import { useQuery, type UseQueryResult } from "@tanstack/react-query";
import { apiGet } from "../client";
import { resultKeys } from "./keys";
import { sourcePath, useCompareSource } from "./source";
import type { CompareCharts, SeriesRequest } from "./types";

/**
 * Every chart of a comparison as it first opens, in one answer (GET /api/compare/charts, or a
 * shared link's /charts). ComparisonView asks it once and provides it to its charts; each
 * chart's own hook takes its part from it and asks its own endpoint only for what the answer
 * does not hold (a control changed: another HD Tach source, another latency test).
 */
export const useCompareCharts = (drives: number[], underReview: number | null) => {
  const source = useCompareSource();
  return useQuery({
    queryKey: resultKeys.charts(drives, underReview, source.shareToken),
    queryFn: ({ signal }) =>
      apiGet<CompareCharts>(
        `${sourcePath(source, "charts")}?drives=${drives.join(",")}` +
          (underReview !== null ? `&under_review=${underReview}` : ""),
        signal,
      ),
    enabled: drives.length > 0,
  });
};

export const CompareChartsContext = createContext<UseQueryResult<CompareCharts> | null>(null);

/** What a chart's hook gets: a part of the shared answer (shaped as a query's state), or
 * `ask` to use its own query. */
export type ChartPart<T> =
  | { ask: true; data: undefined; isPending: true; isError: false; isSuccess: false; error: null }
  | { ask: false; data: undefined; isPending: true; isError: false; isSuccess: false; error: null }
  | { ask: false; data: T; isPending: false; isError: false; isSuccess: true; error: null };

const sameDrives = (a: number[], b: number[]) => a.length === b.length && a.every((d, i) => d === b[i]);
const waiting = { data: undefined, isPending: true, isError: false, isSuccess: false, error: null } as const;

/** The part `pick` finds in the page's charts answer for these drives; ask (one's own
 * endpoint) when there is no answer on the page, it failed, it is for other drives or it
 * does not hold the part. While it loads the chart waits for it instead of asking. */
export function useChartPart<T>(
  drives: number[],
  pick: (charts: CompareCharts) => T | null | undefined,
): ChartPart<T> {
  const charts = useContext(CompareChartsContext);
  if (charts === null || charts.isError) return { ask: true, ...waiting };
  if (charts.isPending) return { ask: false, ...waiting };
  const answer = charts.data;
  const part = sameDrives(answer.drives, drives) ? pick(answer) : undefined;
  if (part === undefined || part === null) return { ask: true, ...waiting };
  return { ask: false, data: part, isPending: false, isError: false, isSuccess: true, error: null };
}

/** One series request's answer in the charts answer (same plan, points, metric and OP). */
export function seriesPart(charts: CompareCharts, request: SeriesRequest) {
  return charts.series.find(
    (s) =>
      s.plan === request.plan &&
      s.points === (request.points ?? 650) &&
      (s.metric ?? undefined) === (request.metric || undefined) &&
      (s.op_percent ?? undefined) === request.opPercent,
  )?.answer;
}

/** Either the chart's part of the page's answer, or its own query's state. */
export function partOr<T>(part: ChartPart<T>, own: UseQueryResult<T>) {
  return part.ask ? own : part;
}
