import type { CompareMetric } from "../../api/results/types";

type Named = Pick<CompareMetric, "metric" | "names">;

/** Compares text with the numbers in it by value: QD3 < QD32, 4K < 128K, and percentiles
 * 99th < 99.9th < 99.99th < 99.999th (as strings 99.999 would come first). */
export function naturalCompare(a: string, b: string): number {
  const split = (s: string) => s.toLowerCase().split(/(\d+(?:\.\d+)?)/);
  const pa = split(a);
  const pb = split(b);
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = pa[i]!;
    const y = pb[i]!;
    if (x === y) continue;
    if (i % 2 === 1) return Number(x) - Number(y);
    return x < y ? -1 : 1;
  }
  return pa.length - pb.length;
}

// Measures as a review reads them: rates, then latencies from mean to maximum, then the rest.
const MEASURE_ORDER = [/MB\/s/, /IOPS/, /mean latency/, /median latency/, /percentile latency/, /maximum latency/];

function measureRank(measure: string): number {
  const i = MEASURE_ORDER.findIndex((re) => re.test(measure));
  return i < 0 ? MEASURE_ORDER.length : i;
}

export function compareMeasures(a: string, b: string): number {
  return measureRank(a) - measureRank(b) || naturalCompare(a, b);
}

/** Metrics by plan, then by test ("Four corners · 4K random read QD3"), in natural order;
 * within a test, by measure. */
export function groupByTest<T extends Named>(metrics: T[]): [string, T[]][] {
  const groups = new Map<string, T[]>();
  const sorted = [...metrics].sort(
    (a, b) =>
      a.names.plan.localeCompare(b.names.plan) ||
      naturalCompare(a.names.test, b.names.test) ||
      compareMeasures(a.names.measure, b.names.measure),
  );
  for (const m of sorted) {
    const key = `${m.names.plan} · ${m.names.test}`;
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  return Array.from(groups);
}

/** The metrics whose plan, test or measure (in words) or key hold every word typed:
 * "qd32 p99" finds "4K random write QD32: 99th percentile latency"; "99.9" the 99.9th. */
export function filterMetrics<T extends Named>(metrics: T[], query: string): T[] {
  const words = query
    .toLowerCase()
    .replace(/\bp(\d)/g, "$1")
    .split(/\s+/)
    .filter(Boolean);
  if (words.length === 0) return metrics;
  return metrics.filter((m) => {
    const text = `${m.names.plan} ${m.names.test} ${m.names.measure} ${m.metric}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
}
