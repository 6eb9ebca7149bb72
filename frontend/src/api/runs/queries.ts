import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { anyActive, isFinalStatus } from "../../lib/run-utils";
import { apiGet, apiPost } from "../client";
import { driveKeys } from "../drives/keys";
import type { JobFile, RunCreate, RunDetail, RunSummary, Sample, StepSeries } from "../types";
import { runKeys } from "./keys";

/** While a run is queued or running, lists and details refetch this often. */
export const ACTIVE_POLL_MS = 2_000;
/** With nothing active, the overview still notices runs queued elsewhere (CLI, other users). */
export const IDLE_POLL_MS = 10_000;

export const runsQuery = (limit: number) =>
  queryOptions({
    queryKey: runKeys.list(limit),
    queryFn: ({ signal }) => apiGet<RunSummary[]>(`/runs?limit=${limit}`, signal),
    refetchInterval: (query) => (anyActive(query.state.data) ? ACTIVE_POLL_MS : IDLE_POLL_MS),
  });

/**
 * `live`: a page with the lab's SSE stream open refetches on its events, not on a timer; the
 * timer is the fallback while the stream is down.
 */
export const useRuns = (limit = 50, options: { live?: boolean } = {}) =>
  useQuery({ ...runsQuery(limit), ...(options.live ? { refetchInterval: false as const } : {}) });

export const runQuery = (id: number) =>
  queryOptions({
    queryKey: runKeys.detail(id),
    queryFn: ({ signal }) => apiGet<RunDetail>(`/runs/${id}`, signal),
  });

/**
 * No polling here: the run page keeps the run fresh from its SSE stream, and useRunEvents
 * falls back to refetching while that stream is down.
 */
export const useRun = (id: number) => useQuery(runQuery(id));

export const runSamplesQuery = (id: number, stepId: number) =>
  queryOptions({
    queryKey: runKeys.samples(id, stepId),
    queryFn: ({ signal }) => apiGet<Sample[]>(`/runs/${id}/samples?step_id=${stepId}`, signal),
    // Stored samples never change; new ones arrive over SSE and are merged on the page.
    staleTime: Infinity,
  });

export const useRunSamples = (id: number, stepId: number | null) =>
  useQuery({ ...runSamplesQuery(id, stepId ?? -1), enabled: stepId !== null });

export const runJobsQuery = (id: number) =>
  queryOptions({
    queryKey: runKeys.jobs(id),
    queryFn: ({ signal }) => apiGet<JobFile[]>(`/runs/${id}/jobs`, signal),
    staleTime: Infinity,
  });

export const useRunJobs = (id: number, options: { enabled: boolean }) =>
  useQuery({ ...runJobsQuery(id), enabled: options.enabled });

export const useCancelRun = (id: number) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => apiPost<RunDetail>(`/runs/${id}/cancel`),
    onSuccess: (run) => {
      // The contract returns the full run; only trust it as the detail if it has its steps,
      // and not over a final run the stream delivered first (the worker stopped before this
      // answer arrived): the answer is the run as it was when the cancel was taken.
      const shown = queryClient.getQueryData<RunDetail>(runKeys.detail(id));
      if (Array.isArray(run.steps) && !(shown && isFinalStatus(shown.status))) {
        queryClient.setQueryData(runKeys.detail(id), run);
      }
      void queryClient.invalidateQueries({ queryKey: runKeys.detail(id), exact: true });
      void queryClient.invalidateQueries({ queryKey: runKeys.lists() });
    },
  });
};

/** Queue a run; the caller navigates to it. Lists and drives (busy now) refresh. */
export const useCreateRun = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (data: RunCreate) => apiPost<RunDetail>("/runs", data),
    onSuccess: (run) => {
      queryClient.setQueryData(runKeys.detail(run.id), run);
      void queryClient.invalidateQueries({ queryKey: runKeys.lists() });
      void queryClient.invalidateQueries({ queryKey: driveKeys.all });
    },
  });
};

function useInvalidateQueue() {
  const queryClient = useQueryClient();
  return (run: RunDetail) => {
    if (Array.isArray(run.steps)) queryClient.setQueryData(runKeys.detail(run.id), run);
    void queryClient.invalidateQueries({ queryKey: runKeys.lists() });
    void queryClient.invalidateQueries({ queryKey: driveKeys.all });
  };
}

/** Reorder a waiting run among those waiting for its drive (1 = next). */
export const useMoveRun = () => {
  const onSuccess = useInvalidateQueue();
  return useMutation({
    mutationFn: ({ id, position }: { id: number; position: number }) =>
      apiPost<RunDetail>(`/runs/${id}/move`, { position }),
    onSuccess,
  });
};

/** Cancel any run by id (the Lab page's queue lists). */
export const useCancelAnyRun = () => {
  const onSuccess = useInvalidateQueue();
  return useMutation({
    mutationFn: (id: number) => apiPost<RunDetail>(`/runs/${id}/cancel`),
    onSuccess,
  });
};

export const runSeriesQuery = (
  id: number,
  stepId: number,
  metric: string,
  x: "time" | "position",
) =>
  queryOptions({
    queryKey: runKeys.series(id, stepId, metric, x),
    queryFn: ({ signal }) => {
      const query = new URLSearchParams({ step_id: String(stepId), metric, x });
      return apiGet<StepSeries>(`/runs/${id}/series?${query.toString()}`, signal);
    },
    // A finished step's series never changes.
    staleTime: Infinity,
  });

/** One metric of a finished step, downsampled on the server to about the chart's width. */
export const useRunSeries = (
  id: number,
  stepId: number,
  metric: string,
  x: "time" | "position",
) => useQuery(runSeriesQuery(id, stepId, metric, x));
