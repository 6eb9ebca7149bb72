import type { PairMetric } from "../../api/results/types";

export type Verdict = "better" | "worse" | "same";

/** Whether B did better than A on this metric (within 0.5% counts as the same). */
export function verdict(m: PairMetric): Verdict {
  if (m.diff_pct === null || Math.abs(m.diff_pct) < 0.5) return "same";
  const higher = m.diff_pct > 0;
  return higher !== m.lower_is_better ? "better" : "worse";
}

/** "+12.3%", "−4.0%", "—". */
export function formatDiff(pct: number | null): string {
  if (pct === null || !Number.isFinite(pct)) return "—";
  const sign = pct > 0 ? "+" : pct < 0 ? "−" : "±";
  return `${sign}${Math.abs(pct).toFixed(1)}%`;
}

/** Metrics grouped by plan, in the api's order. */
export function byPlan(metrics: PairMetric[]): [string, PairMetric[]][] {
  const groups = new Map<string, PairMetric[]>();
  for (const m of metrics) {
    const plan = m.metric.split(":")[0] ?? "";
    groups.set(plan, [...(groups.get(plan) ?? []), m]);
  }
  return Array.from(groups);
}

/** The warnings of a plan's metrics, each once. */
export function planWarnings(metrics: PairMetric[]): string[] {
  return Array.from(new Set(metrics.flatMap((m) => m.warnings)));
}
