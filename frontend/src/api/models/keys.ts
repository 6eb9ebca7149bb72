/** The catalog: drive models (products) and the prices observed for them. */
export const catalogKeys = {
  all: ["catalog"] as const,
  models: () => [...catalogKeys.all, "models"] as const,
  prices: () => [...catalogKeys.all, "prices"] as const,
};
