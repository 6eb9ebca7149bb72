export const shareKeys = {
  all: ["shares"] as const,
  shared: (token: string) => [...shareKeys.all, "shared", token] as const,
};
