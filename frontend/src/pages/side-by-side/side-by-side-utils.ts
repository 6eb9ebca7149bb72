import type { PairMetric } from "../../api/results/types";
import { groupByTest } from "../../components/metric-select/metric-select-utils";

export type Verdict = "better" | "worse" | "same" | "unknown" | "info" | "apart";

/** Whether B did better than A on this metric: "info" for what is not a performance figure (a
 * runtime, bytes moved), never better or worse; "apart" when A and B were measured over another
 * span or block size, which makes ranking them meaningless. Otherwise the significance test's
 * verdict (`versus`, backend/analysis/significance.py): better or worse only when the runs show
 * the difference is real, "same" within noise, "unknown" with one run on either side. */
export function verdict(m: PairMetric): Verdict {
  if (!m.performance) return "info";
  if (m.set_apart) return "apart";
  const v = m.versus?.verdict;
  if (v === "better" || v === "worse") return v;
  if (v === "within noise") return "same";
  return "unknown";
}

/** What a row's difference cell says on hover. */
export function verdictTitle(m: PairMetric): string {
  const v = verdict(m);
  if (v === "info") return "not a performance figure";
  if (v === "apart") return `not ranked: ${m.set_apart}`;
  const t = m.versus;
  const runs = t ? ` (${t.review_runs} runs of B, ${t.runs} of A)` : "";
  const ci =
    t && t.low_pct !== null && t.high_pct !== null && t.diff_pct !== null
      ? `; means ${formatDiff(t.diff_pct)}, 95% interval ${formatDiff(t.low_pct)} to ${formatDiff(t.high_pct)}`
      : "";
  const said =
    v === "same" ? "within noise" : v === "unknown" ? "1 run: significance unknown" : `B is ${v}`;
  return `${said}${ci}${runs}`;
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

/** Metrics grouped by plan and test ("Four corners · 4K random read QD3"), tests in natural
 * order (QD3 before QD32) and measures as a review reads them (percentiles by value). */
export function byTest(metrics: PairMetric[]): [string, PairMetric[]][] {
  return groupByTest(metrics);
}

/** What the rows of a group were measured under where A and B differ, each once. */
export function groupDiffering(metrics: PairMetric[]): string[] {
  return Array.from(new Set(metrics.map(differingText).filter(Boolean)));
}
