export const planKeys = {
  all: ["plans"] as const,
  list: () => [...planKeys.all, "list"] as const,
  estimates: () => [...planKeys.all, "estimate"] as const,
  estimate: (key: string, driveId: number, params: Record<string, unknown>) =>
    [...planKeys.estimates(), key, driveId, params] as const,
};
