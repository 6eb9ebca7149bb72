import { runKeys } from "../runs/keys";

export const ptsKeys = {
  report: (runId: number) => [...runKeys.detail(runId), "pts"] as const,
};
