import { runKeys } from "../runs/keys";

export const ptsKeys = {
  all: ["pts"] as const,
  report: (runId: number) => [...runKeys.detail(runId), "pts"] as const,
};
