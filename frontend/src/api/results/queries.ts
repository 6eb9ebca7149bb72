import { keepPreviousData, queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet } from "../client";
import { partOr, seriesPart, useChartPart } from "./charts";
import { resultKeys } from "./keys";
import { sourcePath, useCompareSource, type CompareSource } from "./source";
import type {
  CompareLatency,
  CompareSweeps,
  CompareSeries,
  Article,
  Comparison,
  Pair,
  RunQos,
  SeriesRequest,
  StepLatency,
  ValueComparison,
} from "./types";

const ids = (drives: number[]) => drives.join(",");

/** GET /api/compare; with `rows` (metric ids or patterns, see HEADLINE_ROWS) only those
 * metrics carry their rows, the others are listed by name. */
export const compareQuery = (drives: number[], underReview: number | null, rows: string[] | null = null) =>
  queryOptions({
    queryKey: resultKeys.compare(drives, underReview, rows),
    queryFn: ({ signal }) =>
      apiGet<Comparison>(
        `/compare?drives=${ids(drives)}` +
          (underReview !== null ? `&under_review=${underReview}` : "") +
          (rows !== null ? `&rows=${encodeURIComponent(rows.join(","))}` : ""),
        signal,
      ),
  });

export const useComparison = (drives: number[], underReview: number | null, rows: string[] | null = null) =>
  useQuery({
    ...compareQuery(drives, underReview, rows),
    enabled: drives.length > 0,
    placeholderData: keepPreviousData,
  });

/** The review in article order (GET /api/compare/article): one answer for the drives, the
 * headline table, the findings and the appendix. */
export const useArticle = (drives: number[], underReview: number | null) =>
  useQuery({
    queryKey: resultKeys.article(drives, underReview),
    queryFn: ({ signal }) =>
      apiGet<Article>(
        `/compare/article?drives=${ids(drives)}` +
          (underReview !== null ? `&under_review=${underReview}` : ""),
        signal,
      ),
    enabled: drives.length > 0,
    placeholderData: keepPreviousData,
  });

/** One drive's firmware versions as an article, a column per version, the last under review
 * (GET /api/compare/article?drives=ID&firmware=A&firmware=B). */
export const useFirmwareArticle = (drive: number | null, firmware: string[]) =>
  useQuery({
    queryKey: resultKeys.firmwareArticle(drive ?? -1, firmware),
    queryFn: ({ signal }) =>
      apiGet<Article>(
        `/compare/article?drives=${drive}` +
          firmware.map((fw) => `&firmware=${encodeURIComponent(fw)}`).join(""),
        signal,
      ),
    enabled: drive !== null && firmware.length > 0,
  });

export const usePair = (a: number | null, b: number | null) =>
  useQuery({
    queryKey: resultKeys.pair(a ?? -1, b ?? -1),
    queryFn: ({ signal }) => apiGet<Pair>(`/compare/pair?a=${a}&b=${b}`, signal),
    enabled: a !== null && b !== null && a !== b,
  });

export const useValue = (drives: number[], metric: string | null) => {
  const source = useCompareSource();
  return useQuery({
    queryKey: resultKeys.value(drives, metric ?? "", source.shareToken),
    queryFn: ({ signal }) =>
      apiGet<ValueComparison>(
        `${sourcePath(source, "value")}?drives=${ids(drives)}&metric=${encodeURIComponent(metric ?? "")}`,
        signal,
      ),
    enabled: drives.length > 0 && Boolean(metric),
    retry: false,
  });
};

export const seriesQuery = (request: SeriesRequest, source: CompareSource = { shareToken: null }) =>
  queryOptions({
    queryKey: resultKeys.series(request, source.shareToken),
    queryFn: ({ signal }) => {
      const params = new URLSearchParams({
        drives: ids(request.drives),
        plan: request.plan,
        points: String(request.points ?? 650),
      });
      if (request.opPercent !== undefined) params.set("op_percent", String(request.opPercent));
      if (request.metric) params.set("metric", request.metric);
      return apiGet<CompareSeries>(`${sourcePath(source, "series")}?${params.toString()}`, signal);
    },
  });

/** A chart family's series, from the signed-in api or the page's shared link. */
export const useCompareSeries = (request: SeriesRequest) => {
  const source = useCompareSource();
  const part = useChartPart(request.drives, (c) => seriesPart(c, request));
  const own = useQuery({
    ...seriesQuery(request, source),
    enabled: part.ask && request.drives.length > 0,
  });
  return partOr(part, own);
};

/** Latency QoS of a run's fio steps (and a qd-sweep's curves): GET /api/runs/{id}/qos. */
export const useRunQos = (runId: number, enabled: boolean) =>
  useQuery({
    queryKey: ["runs", runId, "qos"],
    queryFn: ({ signal }) => apiGet<RunQos>(`/runs/${runId}/qos`, signal),
    enabled,
    staleTime: Infinity,
  });

/** A step's latency histogram and exceedance curve. */
export const useStepLatency = (runId: number, stepId: number | null) =>
  useQuery({
    queryKey: ["runs", runId, "latency", stepId],
    queryFn: ({ signal }) => apiGet<StepLatency>(`/runs/${runId}/steps/${stepId}/latency`, signal),
    enabled: stepId !== null,
    staleTime: Infinity,
  });

/** The steps with a latency histogram in the drives' latest runs of a plan (from the
 * signed-in api, or the page's shared link, which knows its drives). */
export const useLatencySteps = (drives: number[], plan: string, enabled: boolean) => {
  const source = useCompareSource();
  const part = useChartPart(drives, (c) => c.latency_steps.find((s) => s.plan === plan)?.steps);
  const own = useQuery({
    queryKey: ["compare", "latency-steps", ids(drives), plan, source.shareToken],
    queryFn: ({ signal }) =>
      apiGet<string[]>(
        `${sourcePath(source, "latency/steps")}?drives=${ids(drives)}&plan=${encodeURIComponent(plan)}`,
        signal,
      ),
    enabled: part.ask && enabled && drives.length > 0,
  });
  return partOr(part, own);
};

/** One step's latency distribution for several drives (GET /api/compare/latency, or the
 * shared link's). */
export const useCompareLatency = (
  drives: number[],
  plan: string,
  step: string | null,
  underReview: number | null,
) => {
  const source = useCompareSource();
  const part = useChartPart(drives, (c) =>
    c.latency && c.latency.plan === plan && c.latency.step === step && c.under_review === underReview
      ? c.latency
      : undefined,
  );
  const own = useQuery({
    queryKey: ["compare", "latency", ids(drives), plan, step, underReview, source.shareToken],
    queryFn: ({ signal }) =>
      apiGet<CompareLatency>(
        `${sourcePath(source, "latency")}?drives=${ids(drives)}&plan=${encodeURIComponent(plan)}` +
          `&step=${encodeURIComponent(step ?? "")}` +
          (underReview !== null ? `&under_review=${underReview}` : ""),
        signal,
      ),
    enabled: part.ask && drives.length > 0 && Boolean(step),
    placeholderData: keepPreviousData,
  });
  return partOr(part, own);
};

/** Each drive's latest queue-depth sweep: points and figures per workload
 * (GET /api/compare/qd-sweep, or the shared link's). */
export const useCompareSweeps = (drives: number[], underReview: number | null, enabled: boolean) => {
  const source = useCompareSource();
  const part = useChartPart(drives, (c) => (c.under_review === underReview ? c.qd_sweep : undefined));
  const own = useQuery({
    queryKey: ["compare", "qd-sweep", ids(drives), underReview, source.shareToken],
    queryFn: ({ signal }) =>
      apiGet<CompareSweeps>(
        `${sourcePath(source, "qd-sweep")}?drives=${ids(drives)}` +
          (underReview !== null ? `&under_review=${underReview}` : ""),
        signal,
      ),
    enabled: part.ask && enabled && drives.length > 0,
    placeholderData: keepPreviousData,
  });
  return partOr(part, own);
};
