import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiGet, apiPatch, apiPost } from "../client";
import type { Drive, DriveCreate, DriveUpdate } from "../types";
import { driveKeys } from "./keys";

export const drivesQuery = () =>
  queryOptions({
    queryKey: driveKeys.list(),
    queryFn: ({ signal }) => apiGet<Drive[]>("/drives", signal),
  });

/** `refetchInterval`: a page without a live stream polls; the Lab page refetches on events. */
export const useDrives = (options: { refetchInterval: number | false } = { refetchInterval: false }) =>
  useQuery({ ...drivesQuery(), refetchInterval: options.refetchInterval });

export const useCreateDrive = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (data: DriveCreate) => apiPost<Drive>("/drives", data),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: driveKeys.all }),
  });
};

export const useUpdateDrive = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, changes }: { id: number; changes: DriveUpdate }) =>
      apiPatch<Drive>(`/drives/${id}`, changes),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: driveKeys.all }),
  });
};
