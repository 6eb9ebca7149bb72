export const benchKeys = {
  all: ["benches"] as const,
  list: () => [...benchKeys.all, "list"] as const,
};
