export const driveKeys = {
  all: ["drives"] as const,
  list: () => [...driveKeys.all, "list"] as const,
};
