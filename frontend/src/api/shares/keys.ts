export const shareKeys = {
  all: ["shares"] as const,
  list: () => [...shareKeys.all, "list"] as const,
  shared: (token: string) => [...shareKeys.all, "shared", token] as const,
};
