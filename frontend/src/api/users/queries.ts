import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { auditKeys } from "../audit/keys";
import { authKeys } from "../auth/keys";
import { apiDelete, apiGet, apiPatch, apiPost } from "../client";
import { userKeys } from "./keys";
import type { NewUserToken, UserCreate, UserRow, UserToken, UserUpdate } from "./types";

export const usersQuery = () =>
  queryOptions({
    queryKey: userKeys.list(),
    queryFn: ({ signal }) => apiGet<UserRow[]>("/users", signal),
  });

export const useUsers = () => useQuery(usersQuery());

export const userTokensQuery = (userId: number) =>
  queryOptions({
    queryKey: userKeys.tokens(userId),
    queryFn: ({ signal }) => apiGet<UserToken[]>(`/users/${userId}/tokens`, signal),
  });

export const useUserTokens = (userId: number) => useQuery(userTokensQuery(userId));

/** Every change of a user or token is also an audit entry; an admin may change their own role. */
function useInvalidateUsers() {
  const queryClient = useQueryClient();
  return () => {
    void queryClient.invalidateQueries({ queryKey: userKeys.all });
    void queryClient.invalidateQueries({ queryKey: auditKeys.all });
    void queryClient.invalidateQueries({ queryKey: authKeys.me() });
  };
}

export const useCreateUser = () => {
  const invalidate = useInvalidateUsers();
  return useMutation({
    mutationFn: (data: UserCreate) => apiPost<UserRow>("/users", data),
    onSuccess: invalidate,
  });
};

export const useUpdateUser = () => {
  const invalidate = useInvalidateUsers();
  return useMutation({
    mutationFn: ({ id, changes }: { id: number; changes: UserUpdate }) =>
      apiPatch<UserRow>(`/users/${id}`, changes),
    onSuccess: invalidate,
  });
};

export const useCreateToken = () => {
  const invalidate = useInvalidateUsers();
  return useMutation({
    mutationFn: ({ userId, name }: { userId: number; name: string }) =>
      apiPost<NewUserToken>(`/users/${userId}/tokens`, { name }),
    onSuccess: invalidate,
  });
};

export const useRevokeToken = () => {
  const invalidate = useInvalidateUsers();
  return useMutation({
    mutationFn: ({ userId, tokenId }: { userId: number; tokenId: number }) =>
      apiDelete(`/users/${userId}/tokens/${tokenId}`),
    onSuccess: invalidate,
  });
};
