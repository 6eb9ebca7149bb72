import { queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet } from "../client";
import type { Bench } from "../types";
import { benchKeys } from "./keys";

/** A bench is online while its worker was heard from in the last 30 s: check about as often. */
export const BENCH_POLL_MS = 15_000;

export const benchesQuery = () =>
  queryOptions({
    queryKey: benchKeys.list(),
    queryFn: ({ signal }) => apiGet<Bench[]>("/benches", signal),
    refetchInterval: BENCH_POLL_MS,
  });

export const useBenches = () => useQuery(benchesQuery());
