import { useMutation, useQuery } from "@tanstack/react-query";
import type { components } from "../schema";
import { apiGet, apiPost } from "../client";
import { shareKeys } from "./keys";

export type ShareCreate = components["schemas"]["ShareCreate"];
export type NewShare = components["schemas"]["NewShare"];
export type SharedComparison = components["schemas"]["SharedComparison"];

export const useCreateShare = () =>
  useMutation({ mutationFn: (data: ShareCreate) => apiPost<NewShare>("/shares", data) });

/** A published comparison: no sign-in; a revoked link answers 404. */
export const useSharedComparison = (token: string) =>
  useQuery({
    queryKey: shareKeys.shared(token),
    queryFn: ({ signal }) => apiGet<SharedComparison>(`/shares/${token}`, signal),
    retry: false,
  });
