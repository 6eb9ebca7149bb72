export const benchKeys = {
  all: ["benches"] as const,
  list: () => [...benchKeys.all, "list"] as const,
  devices: (bench: string) => [...benchKeys.all, "devices", bench] as const,
};
