import { queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet } from "../client";
import { partOr, useChartPart } from "../results/charts";
import { sourcePath, useCompareSource } from "../results/source";
import type { components } from "../schema";
import { ptsKeys } from "./keys";
import type { PtsReport } from "./types";

export const ptsReportQuery = (runId: number) =>
  queryOptions({
    queryKey: ptsKeys.report(runId),
    queryFn: ({ signal }) => apiGet<PtsReport>(`/runs/${runId}/pts`, signal),
  });

/** Refetched on the run's SSE `round` and `run` events (see useRunEvents), not on a timer. */
export const usePtsReport = (runId: number, enabled = true) =>
  useQuery({ ...ptsReportQuery(runId), enabled });

/** Plans whose runs have a PTS report page. */
export const PTS_PLANS = [
  "pts-iops",
  "pts-throughput",
  "pts-latency",
  "pts-wsat",
  "pts-hir",
  "pts-xsr",
  "pts-steady-state",
  "pts-dirth",
  "pts-ecw",
  "pts-cbw",
] as const;

export const hasPtsReport = (plan: string) => (PTS_PLANS as readonly string[]).includes(plan);

export type PtsComparison = components["schemas"]["PtsComparison"];
export type PtsTestComparison = components["schemas"]["PtsTestComparison"];
export type PtsDriveResult = components["schemas"]["PtsDriveResult"];

/** SNIA PTS results of several drives (GET /api/compare/pts). */
export const usePtsComparison = (driveIds: number[], underReview: number | null) => {
  // From the signed-in api, or a shared link's public endpoint (which knows its drives).
  const source = useCompareSource();
  const part = useChartPart(driveIds, (c) => (c.under_review === underReview ? c.pts : undefined));
  const own = useQuery({
    queryKey: [...ptsKeys.all, "compare", driveIds, underReview, source.shareToken] as const,
    queryFn: ({ signal }) =>
      apiGet<PtsComparison>(
        `${sourcePath(source, "pts")}?drives=${driveIds.join(",")}` +
          (underReview ? `&under_review=${underReview}` : ""),
        signal,
      ),
    enabled: part.ask && driveIds.length > 0,
  });
  return partOr(part, own);
};
