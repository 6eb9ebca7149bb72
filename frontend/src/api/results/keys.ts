import type { SeriesRequest } from "./types";

export const resultKeys = {
  all: ["results"] as const,
  compare: (drives: number[], underReview: number | null, rows: string[] | null = null) =>
    [...resultKeys.all, "compare", { drives, underReview, rows }] as const,
  charts: (drives: number[], underReview: number | null, share: string | null) =>
    [...resultKeys.all, "charts", { drives, underReview, share }] as const,
  article: (drives: number[], underReview: number | null) =>
    [...resultKeys.all, "article", { drives, underReview }] as const,
  firmwareArticle: (drive: number, firmware: string[]) =>
    [...resultKeys.all, "article", { drive, firmware }] as const,
  pair: (a: number, b: number) => [...resultKeys.all, "pair", { a, b }] as const,
  value: (drives: number[], metric: string, share: string | null = null) =>
    [...resultKeys.all, "value", { drives, metric, share }] as const,
  series: (request: SeriesRequest, share: string | null = null) =>
    [...resultKeys.all, "series", { ...request, share }] as const,
};
