import { queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet } from "../client";
import type { Health } from "../types";
import { healthKeys } from "./keys";

const HEALTH_INTERVAL_MS = 15_000;

export const healthQuery = () =>
  queryOptions({
    queryKey: healthKeys.all,
    queryFn: ({ signal }) => apiGet<Health>("/health", signal),
    refetchInterval: HEALTH_INTERVAL_MS,
    retry: false,
  });

export const useHealth = () => useQuery(healthQuery());
