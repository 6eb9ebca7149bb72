/**
 * Latency QoS for tables and charts: number formats, log-axis ticks and CSV rows. Pure.
 */

import type { DriveSweep, QosFigures } from "../../api/results/types";
import { csvDocument, type CsvAbout } from "../../lib/export-utils";
import { colorOf, widthOf, type DriveStyle } from "../../lib/house-style";
import { driveName, type Line } from "../../lib/series-utils";

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

/** What charts call a sweep's workload: `mix70` (the mix, by its read share) is
 * "4K random 70/30". */
export function workloadName(workload: string): string {
  if (workload === "randread") return "4K random read";
  if (workload === "randwrite") return "4K random write";
  const mix = /^mix(\d{1,2})$/.exec(workload);
  return mix ? `4K random ${mix[1]}/${100 - Number(mix[1])}` : workload;
}

/** The workloads any of the drives' sweeps measured, in the plan's order (reads, writes,
 * then the mixes, most reads first). */
export function sweepWorkloads(drives: DriveSweep[]): string[] {
  const seen = Array.from(new Set(drives.flatMap((d) => d.workloads.map((w) => w.workload))));
  const rank = (w: string) => {
    if (w === "randread") return 1000;
    if (w === "randwrite") return 999;
    const mix = /^mix(\d{1,2})$/.exec(w);
    return mix ? Number(mix[1]) : -1;
  };
  return seen.sort((a, b) => rank(b) - rank(a) || a.localeCompare(b));
}

type SweepCurve = "iops" | "mbps" | "latency";

/**
 * One workload of each drive's sweep as lines in the drive's colour, the drive under review
 * last (drawn on top): IOPS or MB/s against the outstanding I/Os (iodepth x numjobs), or the
 * hockey stick, p99 (solid) and p99.99 (dashed) against IOPS, one point per queue depth. A
 * percentile a point's I/O count cannot give is left out, not drawn as zero.
 */
export function sweepLines(
  drives: DriveSweep[],
  workload: string,
  curve: SweepCurve,
  styles: Map<number, DriveStyle>,
): Line[] {
  const lines: Line[] = [];
  for (const d of drives) {
    const w = d.workloads.find((x) => x.workload === workload);
    if (!w) continue;
    const base = { driveId: d.drive_id, color: colorOf(styles, d.drive_id), width: widthOf(styles, d.drive_id) };
    const name = driveName(d);
    if (curve === "latency") {
      // Every point says its queue depth (QD1 … QD32): labelled on the chart.
      const withP99 = w.points.filter((p) => p.p99_us !== null);
      const withP9999 = w.points.filter((p) => p.p99_99_us !== null);
      const p99 = withP99.map((p) => [p.iops, p.p99_us!] as [number, number]);
      const p9999 = withP9999.map((p) => [p.iops, p.p99_99_us!] as [number, number]);
      if (p99.length)
        lines.push({
          ...base,
          key: `${d.drive_id}:p99`,
          label: `${name} p99`,
          dashed: false,
          points: p99,
          pointLabels: withP99.map((p) => `QD${p.total_qd}`),
        });
      if (p9999.length)
        lines.push({
          ...base,
          key: `${d.drive_id}:p99.99`,
          label: `${name} p99.99`,
          dashed: true,
          points: p9999,
          pointLabels: withP9999.map((p) => `QD${p.total_qd}`),
        });
    } else {
      lines.push({
        ...base,
        key: `${d.drive_id}:${curve}`,
        label: name,
        dashed: false,
        points: w.points.map((p) => [p.total_qd, curve === "iops" ? p.iops : p.mbps] as [number, number]),
      });
    }
  }
  const review = (l: Line) => Number(styles.get(l.driveId)?.underReview ?? false);
  return lines.sort((a, b) => review(a) - review(b));
}

export interface SweepFigureRow {
  driveId: number;
  label: string;
  highlight: boolean;
  numjobs: number;
  peakIops: number | null;
  peakQd: number | null;
  qdAt95: number | null;
  targetUs: number;
  iopsUnderTarget: number | null;
  qdUnderTarget: number | null;
  p99UnderTargetUs: number | null;
  nextOver: { qd: number; iops: number; p99_us: number } | null;
  /** The mean IOPS of QD1, 2 and 4 (null unless all three were swept). */
  lowQdIops: number | null;
}

/** The figures a review quotes of one workload, a row per drive that swept it. */
export function sweepFigureRows(drives: DriveSweep[], workload: string): SweepFigureRow[] {
  return drives.flatMap((d) => {
    const w = d.workloads.find((x) => x.workload === workload);
    if (!w) return [];
    const f = w.figures;
    return [
      {
        driveId: d.drive_id,
        label: driveName(d),
        highlight: d.under_review,
        numjobs: d.numjobs,
        peakIops: f.peak_iops ?? null,
        peakQd: f.peak_qd ?? null,
        qdAt95: f.qd_at_share_of_peak ?? null,
        targetUs: d.latency_target_us,
        iopsUnderTarget: f.iops_under_target ?? null,
        qdUnderTarget: f.qd_under_target ?? null,
        p99UnderTargetUs: f.p99_under_target_us ?? null,
        nextOver: f.next_over_target ?? null,
        lowQdIops: f.low_qd_iops ?? null,
      },
    ];
  });
}

/** The figures table as CSV, after the chart's title, conditions and provenance. */
export function sweepFiguresCsv(rows: SweepFigureRow[], about: CsvAbout): string {
  return csvDocument(
    about,
    [
      "drive",
      "numjobs",
      "peak_iops",
      "peak_qd",
      "qd_95pct_of_peak",
      "latency_target_us",
      "iops_p99_under_target",
      "qd_p99_under_target",
      "p99_under_target_us",
      "next_qd_over_target",
      "next_p99_over_target_us",
      "low_qd_iops_qd1_2_4",
    ],
    rows.map((r) => [
      r.label,
      r.numjobs,
      r.peakIops,
      r.peakQd,
      r.qdAt95,
      r.targetUs,
      r.iopsUnderTarget,
      r.qdUnderTarget,
      r.p99UnderTargetUs,
      r.nextOver?.qd ?? null,
      r.nextOver?.p99_us ?? null,
      r.lowQdIops,
    ]),
  );
}

/** The conditions line of a sweep chart: plan, workload, the queue depths swept (the drives'
 * differing ones joined with a slash), span, runtime per point, the drive's state before. */
export function sweepConditions(drives: DriveSweep[], workload: string): string {
  const join = (values: (string | null | undefined)[]) =>
    Array.from(new Set(values.filter((v): v is string => Boolean(v)))).join("/");
  const c = drives.map((d) => d.conditions.compared ?? {});
  return [
    "qd-sweep",
    workloadName(workload),
    join(c.map((x) => x["queue depth"])),
    join(c.map((x) => (x["span"] ? `span ${x["span"]}` : null))),
    join(c.map((x) => (x["runtime"] ? `${x["runtime"]} a point` : null))),
    join(c.map((x) => x["drive state before"])),
  ]
    .filter(Boolean)
    .join(" · ");
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
