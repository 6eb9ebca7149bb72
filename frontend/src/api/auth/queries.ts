import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { beginSignOut } from "../../lib/auth-utils";
import { apiGet, apiPost } from "../client";
import type { Me } from "../types";
import { authKeys } from "./keys";

export const meQuery = () =>
  queryOptions({
    queryKey: authKeys.me(),
    queryFn: ({ signal }) => apiGet<Me>("/auth/me", signal),
    staleTime: 60_000,
    retry: false,
  });

/** The signed-in user; a 401 here sends the browser to the login page (see query-client). */
export const useMe = () => useQuery(meQuery());

/** Reviewers and admins queue, cancel and edit; viewers read. */
export const canWrite = (me: Me | undefined): boolean =>
  me !== undefined && (me.role === "reviewer" || me.role === "admin");

function useSignIn<V>(call: (vars: V) => Promise<Me>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: (me) => {
      // Another user may have been signed in before: nothing of theirs stays cached.
      queryClient.clear();
      queryClient.setQueryData(authKeys.me(), me);
    },
  });
}

export const useLogin = () =>
  useSignIn((vars: { name: string; password: string }) => apiPost<Me>("/auth/login", vars));

export const useOnceLogin = () =>
  useSignIn((token: string) => apiPost<Me>("/auth/once", { token }));

export const useLogout = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => {
      // Queries still polling get 401s once the session ends: not a reason to come back here.
      beginSignOut();
      return apiPost<null>("/auth/logout");
    },
    onSettled: () => queryClient.clear(),
  });
};
