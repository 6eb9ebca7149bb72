import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiGet, apiPost } from "../client";
import { driveKeys } from "../drives/keys";
import { runKeys } from "../runs/keys";
import type { Series } from "../types";
import { seriesKeys } from "./keys";

/** While a series runs, its page refetches this often. */
export const SERIES_POLL_MS = 2_000;

export const seriesQuery = (id: number) =>
  queryOptions({
    queryKey: seriesKeys.detail(id),
    queryFn: ({ signal }) => apiGet<Series>(`/series/${id}`, signal),
    refetchInterval: (query) => (query.state.data?.status === "running" ? SERIES_POLL_MS : false),
  });

export const useSeries = (id: number) => useQuery(seriesQuery(id));

/** Stop a series: its waiting or running repeat is cancelled, its finished runs stay. */
export const useStopSeries = (id: number) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => apiPost<Series>(`/series/${id}/stop`),
    onSuccess: (series) => {
      queryClient.setQueryData(seriesKeys.detail(id), series);
      void queryClient.invalidateQueries({ queryKey: runKeys.all });
      void queryClient.invalidateQueries({ queryKey: driveKeys.all });
    },
  });
};
