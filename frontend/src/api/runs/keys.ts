export const runKeys = {
  all: ["runs"] as const,
  lists: () => [...runKeys.all, "list"] as const,
  list: (limit: number) => [...runKeys.lists(), { limit }] as const,
  details: () => [...runKeys.all, "detail"] as const,
  detail: (id: number) => [...runKeys.details(), id] as const,
  samplesAll: (id: number) => [...runKeys.detail(id), "samples"] as const,
  samples: (id: number, stepId: number) => [...runKeys.samplesAll(id), stepId] as const,
  jobs: (id: number) => [...runKeys.detail(id), "jobs"] as const,
  series: (id: number, stepId: number, metric: string, x: "time" | "position") =>
    [...runKeys.detail(id), "series", stepId, metric, x] as const,
};
