import type { Step, StepSeries } from "../../api/types";
import { toCsv } from "../../lib/export-utils";
import { timeTicks } from "../run-chart/run-chart-utils";

export type SeriesX = "time" | "position";

export interface StepChartSpec {
  /** Series metrics to fetch, one line each. */
  metrics: string[];
  x: SeriesX;
  xLabel: string;
  yLabel: string;
  /** Unit of the y values, for the tooltip and the subtitle. */
  unit: string;
  /** Position drawn as GB written: GB per % of the span (an SLC cache pass). */
  gbPerPct?: number;
}

/** Steps that report per-second I/O samples; purge, TRIM and idle steps draw no chart. */
const SAMPLED_KINDS = new Set(["fio", "fio-rounds", "fio-points", "fill"]);

const TIME = { x: "time" as const, xLabel: "t (s)" };

/**
 * What to draw for a step: HD Tach passes against position in the span; random I/O as IOPS,
 * sequential as MB/s, in the directions the job does (rw=); both directions when unknown.
 * Null for steps without samples.
 */
export function stepChartSpec(step: Pick<Step, "kind" | "params">): StepChartSpec | null {
  if (!SAMPLED_KINDS.has(step.kind)) return null;
  const role = typeof step.params.role === "string" ? step.params.role : "";
  const span = typeof step.params.span_bytes === "number" ? step.params.span_bytes : 0;
  // A QD1 burst lasts a second at most (a sample or two): the bursts' own chart draws them.
  if (role === "burst") return null;
  if ((role === "slc-fill" || role === "slc-refill") && span > 0) {
    return {
      metrics: ["write_mbps"],
      x: "position",
      xLabel: "GB written",
      yLabel: "MB/s",
      unit: "MB/s",
      gbPerPct: span / 1e9 / 100,
    };
  }
  if (role.startsWith("hdtach")) {
    const dir = role.endsWith("read") ? "read" : "write";
    return {
      metrics: [`${dir}_mbps`],
      x: "position",
      xLabel: "position (% of span)",
      yLabel: "MB/s",
      unit: "MB/s",
    };
  }
  const rw = typeof step.params.rw === "string" ? step.params.rw : "";
  const random = rw.startsWith("rand");
  const dirs =
    rw === "read" || rw === "randread"
      ? ["read"]
      : rw === "write" || rw === "randwrite" || rw === "trim"
        ? ["write"]
        : ["read", "write"];
  if (random) {
    return { metrics: dirs.map((d) => `${d}_iops`), ...TIME, yLabel: "IOPS", unit: "IOPS" };
  }
  return { metrics: dirs.map((d) => `${d}_mbps`), ...TIME, yLabel: "MB/s", unit: "MB/s" };
}

export interface LinePoint {
  x: number;
  y: number;
}

export interface ChartLine {
  metric: string;
  /** "Read", "Write" */
  name: string;
  direction: "read" | "write";
  points: LinePoint[];
}

/**
 * Lines from the series the api returned: points as objects for Recharts, and lines of a
 * direction that did no I/O dropped (unless every line is empty, so the chart says so).
 */
export function chartLines(series: readonly StepSeries[], xScale = 1): ChartLine[] {
  const lines = series.map((s) => {
    const direction: "read" | "write" = s.metric.startsWith("read") ? "read" : "write";
    return {
      metric: s.metric,
      name: direction === "read" ? "Read" : "Write",
      direction,
      points: s.points.map(([x, y]) => ({ x: x * xScale, y })),
    };
  });
  const withIo = lines.filter((l) => l.points.some((p) => p.y > 0));
  return withIo.length > 0 ? withIo : lines.filter((l) => l.points.length > 0);
}

/** The largest x of any line (the axis end), 0 without points. */
export function maxX(lines: readonly ChartLine[]): number {
  let max = 0;
  for (const l of lines) for (const p of l.points) if (p.x > max) max = p.x;
  return max;
}

/** The chart's data as CSV: one row per point, with the metric it belongs to. */
export function linesCsv(lines: readonly ChartLine[], x: SeriesX, gb = false): string {
  const rows = lines.flatMap((l) => l.points.map((p) => [l.metric, p.x, p.y]));
  const head = gb ? "gb_written" : x === "position" ? "position_pct" : "t_s";
  return toCsv(["metric", head, "value"], rows);
}

/** Round time ticks up to the job's end `end` and no further: the axis stops with the job. */
export function axisTicks(end: number): number[] {
  return timeTicks(end).filter((t) => t <= end + 1e-9);
}

type Heat = NonNullable<NonNullable<NonNullable<Step["findings"]>["dropoff"]>["heat"]>;

/** Whether heat explains a step-down, as the Report says it: "heat: throttled at 78 °C after
 * 94 s, …", "not heat: 41 °C, below WCTEMP 70 °C, …", "heat unknown: the drive reports no
 * temperature". */
export function heatWords(heat: Heat | null | undefined): string {
  if (!heat) return "";
  const prefix = heat.heat === "thermal" ? "heat" : heat.heat === "not thermal" ? "not heat" : "heat unknown";
  return `${prefix}: ${heat.words}`;
}

const rate = (v: number) => (v >= 100 ? v.toFixed(0) : String(Number(v.toFixed(1))));

/** Each step-down of a finished step (HD Tach passes, the consistency drop-off) in words with
 * whether heat explains it: "↓ at 65% (9.1 s), 40→8 MB/s: heat: throttled at 50 °C …". */
export function stepDownLines(step: Pick<Step, "findings">): string[] {
  const f = step.findings;
  const out: string[] = [];
  for (const sd of f?.hdtach?.step_downs ?? []) {
    const when = sd.at_s == null ? "" : ` (${Number(sd.at_s.toFixed(1))} s)`;
    const heat = heatWords(sd.heat);
    out.push(
      `↓ at ${Number(sd.at_pct.toFixed(1))}%${when}, ${rate(sd.from_mbps)}→${rate(sd.to_mbps)} MB/s${heat ? `: ${heat}` : ""}`,
    );
  }
  const drop = f?.dropoff;
  if (drop?.dropoff_s != null) {
    const heat = heatWords(drop.heat);
    out.push(`↓ drop-off after ${Number(drop.dropoff_s.toFixed(1))} s${heat ? `: ${heat}` : ""}`);
  }
  return out;
}
