/**
 * Latency QoS for tables and charts: number formats, log-axis ticks and CSV rows. Pure.
 */

import type { QosFigures } from "../../api/results/types";
import { csvDocument, type CsvAbout } from "../../lib/export-utils";

/** The columns of a QoS table: mean, the percentiles, max. */
export const QOS_COLUMNS: { key: string; label: string }[] = [
  { key: "mean", label: "mean" },
  { key: "p50", label: "p50" },
  { key: "p99", label: "p99" },
  { key: "p99.9", label: "p99.9" },
  { key: "p99.99", label: "p99.99" },
  { key: "p99.999", label: "p99.999" },
  { key: "max", label: "max" },
];

export const NOT_ENOUGH = "not enough I/Os";

/** A figure of a QoS row: µs, or null with the reason when the I/O count cannot give it. */
export function qosValue(q: QosFigures, key: string): { us: number | null; reason?: string } {
  if (key === "mean") return { us: q.mean_us };
  if (key === "max") return { us: q.max_us };
  const us = q.percentiles[key] ?? null;
  return us === null ? { us: null, reason: q.unsupported[key] ?? NOT_ENOUGH } : { us };
}

/** 87.3 µs, 1.25 ms, 2.5 s: three significant digits in the unit that reads best. */
export function formatLatency(us: number | null | undefined): string {
  if (us === null || us === undefined || !Number.isFinite(us)) return "—";
  const fmt = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
  if (us >= 1e6) return `${fmt(us / 1e6)} s`;
  if (us >= 1e3) return `${fmt(us / 1e3)} ms`;
  return `${fmt(us)} µs`;
}

/** Tick text of a latency axis in µs: 1 µs, 10 µs, 1 ms, 1 s. */
export function latencyTick(us: number): string {
  if (us >= 1e6) return `${Number((us / 1e6).toPrecision(3))} s`;
  if (us >= 1e3) return `${Number((us / 1e3).toPrecision(3))} ms`;
  return `${Number(us.toPrecision(3))} µs`;
}

/** Tick text of a share axis (exceedance): 1, 0.1, 1e-3 as 100%, 10%, 0.1%. */
export function shareTick(share: number): string {
  return `${Number((share * 100).toPrecision(3))}%`;
}

/** A log axis over [lo, hi]: the enclosing decades, and a tick at each. */
export function decades(lo: number, hi: number): { domain: [number, number]; ticks: number[] } {
  const safeLo = lo > 0 && Number.isFinite(lo) ? lo : 1;
  const safeHi = hi > safeLo && Number.isFinite(hi) ? hi : safeLo * 10;
  const a = Math.floor(Math.log10(safeLo) + 1e-9);
  let b = Math.ceil(Math.log10(safeHi) - 1e-9);
  if (b <= a) b = a + 1;
  const ticks: number[] = [];
  for (let e = a; e <= b; e += 1) ticks.push(10 ** e);
  return { domain: [10 ** a, 10 ** b], ticks };
}

/** Powers of two covering the queue depths: the x ticks of a QD axis. */
export function qdTicks(qds: number[]): number[] {
  const hi = Math.max(1, ...qds);
  const out: number[] = [];
  for (let v = 1; v <= hi * 1.0001; v *= 2) out.push(v);
  return out;
}

export interface QosRow {
  label: string;
  direction: string;
  qos: QosFigures;
  highlight?: boolean;
}

/** A QoS table as CSV: one row per test and direction, latencies in µs (empty: not enough
 * I/Os for that percentile). */
export function qosCsv(rows: QosRow[], about: CsvAbout): string {
  return csvDocument(
    about,
    ["test", "direction", "ios", ...QOS_COLUMNS.map((c) => `${c.label}_us`)],
    rows.map((r) => [
      r.label,
      r.direction,
      r.qos.ios,
      ...QOS_COLUMNS.map((c) => qosValue(r.qos, c.key).us),
    ]),
  );
}

/** Plans and tests in words, by key ("four-corners" and "four-corners:randread-4k-qd3"). */
export interface TestWords {
  plans: Map<string, string>;
  tests: Map<string, string>;
}

/** The words of the plans and tests a comparison's metrics name (`plan:step:measure` ids and
 * their names), for pickers that list steps by key. */
export function testWords(metrics: { metric: string; names: { plan: string; test: string } }[]): TestWords {
  const plans = new Map<string, string>();
  const tests = new Map<string, string>();
  for (const m of metrics) {
    const [plan = "", step = ""] = m.metric.split(":");
    plans.set(plan, m.names.plan);
    if (!step.includes("@")) tests.set(`${plan}:${step}`, m.names.test);
  }
  return { plans, tests };
}
