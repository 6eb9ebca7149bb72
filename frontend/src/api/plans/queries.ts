import { keepPreviousData, queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet, apiPost } from "../client";
import type { Plan, PlanEstimate } from "../types";
import { planKeys } from "./keys";

/** Plans are defined in code on the server: they change only with a deploy. */
export const plansQuery = () =>
  queryOptions({
    queryKey: planKeys.list(),
    queryFn: ({ signal }) => apiGet<Plan[]>("/plans", signal),
    staleTime: 5 * 60_000,
  });

export const usePlans = () => useQuery(plansQuery());

export const planEstimateQuery = (
  key: string,
  driveId: number,
  params: Record<string, unknown>,
) =>
  queryOptions({
    queryKey: planKeys.estimate(key, driveId, params),
    queryFn: () =>
      apiPost<PlanEstimate>(`/plans/${encodeURIComponent(key)}/estimate`, {
        drive_id: driveId,
        params,
      }),
    staleTime: 60_000,
    retry: false,
  });

/**
 * The plan compiled for the drive without queueing it: its steps and their estimated
 * durations, or the api's error naming the parameter at fault. `null` while the form is not
 * ready (no drive or plan picked, or a value the browser already knows to be wrong).
 */
export const usePlanEstimate = (
  request: { key: string; driveId: number; params: Record<string, unknown> } | null,
) =>
  useQuery({
    ...planEstimateQuery(request?.key ?? "", request?.driveId ?? -1, request?.params ?? {}),
    enabled: request !== null,
    // While the next estimate loads, the last one stays on screen: no layout jump per key.
    placeholderData: keepPreviousData,
  });
