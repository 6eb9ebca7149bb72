import type { PairMetric } from "../../api/results/types";

export type Verdict = "better" | "worse" | "same" | "info" | "apart";

/** Whether B did better than A on this metric (within 0.5% counts as the same); "info" for
 * what is not a performance figure (a runtime, bytes moved), never better or worse; "apart"
 * when A and B were measured over another span or block size, which makes ranking them
 * meaningless. */
export function verdict(m: PairMetric): Verdict {
  if (!m.performance) return "info";
  if (m.set_apart) return "apart";
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

/** Metrics grouped by plan (in words), tests in order within each. */
export function byPlan(metrics: PairMetric[]): [string, PairMetric[]][] {
  const groups = new Map<string, PairMetric[]>();
  for (const m of metrics) groups.set(m.names.plan, [...(groups.get(m.names.plan) ?? []), m]);
  for (const list of groups.values()) {
    list.sort(
      (a, b) =>
        a.names.test.localeCompare(b.names.test) || a.names.measure.localeCompare(b.names.measure),
    );
  }
  return Array.from(groups);
}

/** "span 32 MiB vs 1 GiB; runtime 1 s vs 15 s": what A and B were measured under where it
 * differs. */
export function differingText(m: PairMetric): string {
  return Object.entries(m.differing)
    .map(([key, [a, b]]) => `${key} ${a ?? "unknown"} vs ${b ?? "unknown"}`)
    .join("; ");
}

/** The warnings of a plan's metrics, each once. */
export function planWarnings(metrics: PairMetric[]): string[] {
  return Array.from(new Set(metrics.flatMap((m) => m.warnings)));
}
