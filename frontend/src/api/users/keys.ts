/** Users, their roles and API tokens (admins). */
export const userKeys = {
  all: ["users"] as const,
  list: () => [...userKeys.all, "list"] as const,
  tokens: (userId: number) => [...userKeys.all, "tokens", userId] as const,
};
