import { niceAxis, niceStep } from "../../lib/axis-utils";
import type { Sample } from "../../api/types";

/** One x position of the live step chart; null values break the line (a gap in the data). */
export interface ChartPoint {
  /** seconds since the step started (end of the interval) */
  t: number;
  read_mbps: number | null;
  write_mbps: number | null;
  read_iops: number | null;
  write_iops: number | null;
  /** the drive's temperature in the interval, °C; null where the drive has no sensor */
  temp_c: number | null;
}

export interface Directions {
  read: boolean;
  write: boolean;
}

const finiteOrZero = (v: number | null | undefined): number =>
  typeof v === "number" && Number.isFinite(v) ? v : 0;

/**
 * The samples with a short last one (fio's final summary: 30 ms of a 15 s job) folded into the
 * one before, each rate weighted by its interval's length, as the api does for every chart,
 * export and metric of a finished step: otherwise the line ends in a cliff or a spike.
 */
export function foldShortTail(samples: readonly Sample[]): readonly Sample[] {
  if (samples.length < 3) return samples;
  const last = samples[samples.length - 1]!;
  const prev = samples[samples.length - 2]!;
  const dts = samples
    .slice(0, -1)
    .map((s) => s.dt)
    .sort((a, b) => a - b);
  const median = dts[Math.floor(dts.length / 2)]!;
  if (!(last.dt < 0.5 * median) || last.dt <= 0 || prev.dt <= 0) return samples;
  const dt = prev.dt + last.dt;
  const mix = (a: number | null | undefined, b: number | null | undefined) =>
    (finiteOrZero(a) * prev.dt + finiteOrZero(b) * last.dt) / dt;
  const merged: Sample = {
    ...last,
    dt,
    read_mbps: mix(prev.read_mbps, last.read_mbps),
    write_mbps: mix(prev.write_mbps, last.write_mbps),
    read_iops: mix(prev.read_iops, last.read_iops),
    write_iops: mix(prev.write_iops, last.write_iops),
  };
  return [...samples.slice(0, -2), merged];
}

/** A jump in t this much longer than the interval means samples are missing there. */
const GAP_FACTOR = 1.5;

/**
 * Chart points of one step from its merged samples (ordered by t, one per t, see
 * stepSamples). Missing numbers become 0. Where samples are missing (a jump in t longer
 * than the interval, e.g. while a worker's spool has not been resent yet) a null point is
 * inserted, so the line breaks instead of drawing a straight bridge over data we lack.
 */
export function toChartPoints(samples: readonly Sample[]): ChartPoint[] {
  const points: ChartPoint[] = [];
  let prev: Sample | undefined;
  for (const s of foldShortTail(samples)) {
    if (prev) {
      const interval = Math.max(s.dt > 0 ? s.dt : 1, 1e-9);
      if (s.t - prev.t > interval * GAP_FACTOR) {
        points.push({
          t: (prev.t + s.t) / 2,
          read_mbps: null,
          write_mbps: null,
          read_iops: null,
          write_iops: null,
          temp_c: null,
        });
      }
    }
    points.push({
      t: s.t,
      read_mbps: finiteOrZero(s.read_mbps),
      write_mbps: finiteOrZero(s.write_mbps),
      read_iops: finiteOrZero(s.read_iops),
      write_iops: finiteOrZero(s.write_iops),
      // No reading is no sensor (or a failed read): a gap in the line, never 0 °C.
      temp_c: typeof s.temp_c === "number" && Number.isFinite(s.temp_c) ? s.temp_c : null,
    });
    prev = s;
  }
  return points;
}

/**
 * Which directions did any I/O in the step: a read-only job draws no flat write line.
 * With no I/O at all (or no points yet) both are drawn, so the legend stays put.
 */
export function activeDirections(points: readonly ChartPoint[]): Directions {
  let read = false;
  let write = false;
  for (const p of points) {
    if ((p.read_mbps ?? 0) > 0 || (p.read_iops ?? 0) > 0) read = true;
    if ((p.write_mbps ?? 0) > 0 || (p.write_iops ?? 0) > 0) write = true;
    if (read && write) break;
  }
  return read || write ? { read, write } : { read: true, write: true };
}

const TIME_INTERVALS = 5;

/**
 * Round x-axis ticks for a step that has run `maxT` seconds, by the one tick rule (steps of
 * 1, 2, 2.5, 5 x 10^n s, at least 1 s): 0, 10, 20 … or 0, 500, 1000 …, ending at or after
 * maxT. While a step is live the axis then only rescales when t crosses a round number.
 */
export function timeTicks(maxT: number): number[] {
  const end = Number.isFinite(maxT) && maxT > 0 ? maxT : 1;
  const step = Math.max(1, niceStep(end, TIME_INTERVALS));
  const count = Math.max(1, Math.ceil(end / step - 1e-9));
  return Array.from({ length: count + 1 }, (_, i) => i * step);
}

/**
 * The x axis of a step's chart. While the step runs: round ticks past its last sample
 * (timeTicks), so the axis does not rescale every second. Once it ended: the axis ends where
 * the job ended (its last sample, fio's short final interval folded in: 15.03 s for a 15 s
 * job), with no tick past it, as every chart of a finished step does.
 */
export function timeAxis(maxT: number, ended: boolean): { ticks: number[]; end: number } {
  const ticks = timeTicks(maxT);
  if (!ended || !(Number.isFinite(maxT) && maxT > 0)) {
    return { ticks, end: ticks[ticks.length - 1] ?? 1 };
  }
  return { ticks: ticks.filter((t) => t <= maxT + 1e-9), end: maxT };
}

/** Compact axis ticks for IOPS: 950 -> "950", 12500 -> "12.5k", 1200000 -> "1.2M". */
export function formatCompact(value: number): string {
  const abs = Math.abs(value);
  const trim = (v: number) => String(Number(v.toFixed(1)));
  if (abs >= 1e6) return `${trim(value / 1e6)}M`;
  if (abs >= 1e3) return `${trim(value / 1e3)}k`;
  return trim(value);
}

/** Whether any point has a temperature: the drive has a sensor the worker read. */
export function hasTemperature(points: readonly ChartPoint[]): boolean {
  return points.some((p) => p.temp_c !== null);
}

/**
 * The right-hand °C axis of the throughput chart: round ticks around the temperatures seen,
 * at least 10 °C tall (a drive holding 45 °C is a flat line in the middle, not noise blown up
 * to the whole height). Null without any temperature.
 */
export function temperatureAxis(
  points: readonly ChartPoint[],
): { domain: [number, number]; ticks: number[] } | null {
  return temperatureRange(points.map((p) => p.temp_c));
}

/** A °C axis around the temperatures seen: at least 10 °C tall, round ticks; null if none. */
export function temperatureRange(
  values: Iterable<number | null>,
): { domain: [number, number]; ticks: number[] } | null {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v === null) continue;
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  if (!(hi >= lo)) return null;
  const mid = (lo + hi) / 2;
  if (hi - lo < 10) [lo, hi] = [mid - 5, mid + 5];
  const { domain, ticks } = niceAxis(lo, hi, 4);
  return { domain, ticks };
}
