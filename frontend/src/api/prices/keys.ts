export const priceKeys = {
  all: ["prices"] as const,
  table: (currency: string) => [...priceKeys.all, "table", { currency }] as const,
};
