import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { components } from "../schema";
import { apiDelete, apiGet, apiPost } from "../client";
import { shareKeys } from "./keys";

export type ShareCreate = components["schemas"]["ShareCreate"];
export type NewShare = components["schemas"]["NewShare"];
export type SharedComparison = components["schemas"]["SharedComparison"];
export type ShareOut = components["schemas"]["ShareOut"];

/** Every shared link, newest first: who made it, when, the drives, views (reviewers). */
export const useShares = () =>
  useQuery({
    queryKey: shareKeys.list(),
    queryFn: ({ signal }) => apiGet<ShareOut[]>("/shares", signal),
  });

/** Revoke a link by its id: it answers 404 from now on. */
export const useRevokeShare = () => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => apiDelete(`/shares/${id}`),
    onSettled: () => client.invalidateQueries({ queryKey: shareKeys.list() }),
  });
};

export const useCreateShare = () =>
  useMutation({ mutationFn: (data: ShareCreate) => apiPost<NewShare>("/shares", data) });

/** A published comparison: no sign-in; a revoked link answers 404. */
export const useSharedComparison = (token: string) =>
  useQuery({
    queryKey: shareKeys.shared(token),
    queryFn: ({ signal }) => apiGet<SharedComparison>(`/shares/${token}`, signal),
    retry: false,
    // Each reading counts as a view of the link: not once more per focus of the window.
    refetchOnWindowFocus: false,
  });
