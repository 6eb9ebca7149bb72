export const seriesKeys = {
  all: ["series"] as const,
  detail: (id: number) => [...seriesKeys.all, id] as const,
};
