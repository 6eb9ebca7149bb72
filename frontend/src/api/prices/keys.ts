export const priceKeys = {
  all: ["prices"] as const,
  table: (currency: string, share: string | null = null) =>
    [...priceKeys.all, "table", { currency, share }] as const,
};
