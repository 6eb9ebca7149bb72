import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiGet, apiPost } from "../client";
import type { Bench, BenchToken } from "../types";
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

/** A block device or sandbox file a bench's worker reported (worker/report.py). */
export interface BenchDevice {
  path: string;
  name: string;
  kind: string;
  model: string | null;
  serial: string;
  firmware: string | null;
  size_bytes: number;
  logical_sector: number;
  transport: string | null;
  partitions: string[];
  holders: string[];
  backing_file: string | null;
  /** Stable /dev/disk/by-id names that lead to the device. */
  links: string[];
  /** Why it is the disk the system runs from (never registered), or null. */
  system: string | null;
  /** Why it is in use now (mounted, swap, holders): not offered for registration. */
  in_use: string[];
  simulated: boolean;
  emulated: boolean;
}

/** The devices a bench's worker sees (it reports them when they change), to register a drive. */
export const useBenchDevices = (bench: string | null) =>
  useQuery({
    queryKey: benchKeys.devices(bench ?? ""),
    queryFn: ({ signal }) =>
      apiGet<BenchDevice[]>(`/benches/${encodeURIComponent(bench ?? "")}/devices`, signal),
    enabled: bench !== null,
    refetchInterval: BENCH_POLL_MS,
  });

/** Register a bench (admins): its token, shown once, and the command that starts its worker. */
export const useAddBench = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => apiPost<BenchToken>("/benches", { name }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: benchKeys.all }),
  });
};
