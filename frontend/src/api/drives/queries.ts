import { queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet } from "../client";
import type { Drive } from "../types";
import { driveKeys } from "./keys";

export const drivesQuery = () =>
  queryOptions({
    queryKey: driveKeys.list(),
    queryFn: ({ signal }) => apiGet<Drive[]>("/drives", signal),
  });

/** `refetchInterval` lets the overview poll drives as fast as runs while a run is active. */
export const useDrives = (options: { refetchInterval: number | false }) =>
  useQuery({ ...drivesQuery(), refetchInterval: options.refetchInterval });
