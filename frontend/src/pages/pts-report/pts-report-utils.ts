/**
 * Turning a SNIA PTS report (GET /api/runs/{id}/pts) into what its charts and tables draw:
 * the convergence and measurement-window geometry, the IOPS table pivoted by block size and
 * mix, lines per mix, histograms, write saturation, host idle recovery and cross-stimulus
 * recovery series. Pure.
 */

import type {
  HirSet,
  PtsConvergence,
  PtsDemandIntensity,
  PtsDiPoint,
  PtsSection,
  XsrStimulus,
  XsrTransition,
} from "../../api/pts/types";
import { toCsv } from "../../lib/export-utils";

export interface RoundPoint {
  round: number;
  value: number;
}

/** The tracking variable of every round, with whether the round is in the window. */
export function convergencePoints(section: PtsSection): (RoundPoint & { inWindow: boolean })[] {
  const w = section.convergence.window;
  return section.values.map((value, i) => ({
    round: i + 1,
    value,
    inWindow: w !== null && i + 1 >= w[0] && i + 1 <= w[1],
  }));
}

export interface WindowGeometry {
  rounds: RoundPoint[];
  average: number;
  band10: [number, number];
  band20: [number, number];
  /** The least-squares line at the window's first and last round. */
  fit: RoundPoint[];
  first: number;
  last: number;
}

/**
 * The measurement window: its rounds, their average, the +-10% and +-20% bands around it and
 * the least-squares line, as the convergence report gives them (null before 5 rounds).
 */
export function windowGeometry(
  values: number[],
  convergence: PtsConvergence,
): WindowGeometry | null {
  const w = convergence.window;
  if (!w || convergence.average === null || convergence.fit === null) return null;
  const [first, last] = w;
  const avg = convergence.average;
  const [intercept, slope] = convergence.fit;
  return {
    rounds: values.slice(first - 1, last).map((value, i) => ({ round: first + i, value })),
    average: avg,
    band10: [avg * 0.9, avg * 1.1],
    band20: [avg * 0.8, avg * 1.2],
    fit: [first, last].map((round) => ({ round, value: intercept + slope * round })),
    first,
    last,
  };
}

/** "Steady state reached in round 7 (window 3-7)" or where the current window stands. */
export function verdictText(section: PtsSection): string {
  const c = section.convergence;
  const n = section.values.length;
  if (c.steady && c.window) {
    return `Steady state reached in round ${c.round} (window ${c.window[0]}-${c.window[1]})`;
  }
  const running = section.status === "running" || section.status === "pending";
  if (c.current.window === null) {
    const needs = c.current.needs ?? 0;
    return running
      ? `Round ${n}: ${needs} more round${needs === 1 ? "" : "s"} before a 5-round window`
      : `Not steady: only ${n} round${n === 1 ? "" : "s"}`;
  }
  const [a, b] = c.current.window;
  const range = c.current.range_pct;
  const slope = c.current.slope_excursion_pct;
  const detail =
    range === null || range === undefined || slope === null || slope === undefined
      ? ""
      : ` (range ${range.toFixed(1)}% of the average, limit ${c.excursion_pct}%; slope ` +
        `${slope.toFixed(1)}%, limit ${c.slope_pct}%)`;
  return running
    ? `Round ${n}: window ${a}-${b} not steady yet${detail}`
    : `Steady state not reached in ${n} rounds: last window ${a}-${b}${detail}`;
}

export interface PivotTable {
  /** Column keys (mixes, "100/0" first) and row keys (block sizes, largest first). */
  mixes: string[];
  sizes: { bs: string; bytes: number; label: string }[];
  /** cells[row][column]: the value, null where the element was not run. */
  cells: (number | null)[][];
}

const BS_LABEL: Record<string, string> = {
  "1m": "1024 KiB",
  "128k": "128 KiB",
  "64k": "64 KiB",
  "32k": "32 KiB",
  "16k": "16 KiB",
  "8k": "8 KiB",
  "4k": "4 KiB",
  "512": "0.5 KiB",
};

export const blockSizeLabel = (bs: string) => BS_LABEL[bs] ?? bs;

/** A window table pivoted by block size (rows) and read/write mix (columns). */
export function pivot(section: PtsSection, field: string): PivotTable {
  const mixes: string[] = [];
  const sizes: PivotTable["sizes"] = [];
  for (const e of section.elements) {
    if (!mixes.includes(e.mix)) mixes.push(e.mix);
    if (!sizes.some((s) => s.bs === e.bs)) {
      sizes.push({ bs: e.bs, bytes: e.bs_bytes, label: blockSizeLabel(e.bs) });
    }
  }
  sizes.sort((a, b) => b.bytes - a.bytes);
  mixes.sort((a, b) => Number(b.split("/")[0]) - Number(a.split("/")[0]));
  const cells = sizes.map((s) =>
    mixes.map((m) => {
      const e = section.elements.find((x) => x.bs === s.bs && x.mix === m);
      const v = e ? section.table?.[e.name]?.[field] : undefined;
      return v === undefined ? null : v;
    }),
  );
  return { mixes, sizes, cells };
}

export function pivotCsv(table: PivotTable, corner: string): string {
  return toCsv(
    [corner, ...table.mixes.map((m) => `R/W ${m}`)],
    table.sizes.map((s, i) => [s.label, ...(table.cells[i] ?? []).map((v) => (v === null ? "" : v))]),
  );
}

/** Colours of the seven read/write mixes, from reads (blue) to writes (orange). */
export const MIX_COLORS: Record<string, string> = {
  "100/0": "#1d4ed8",
  "95/5": "#2563eb",
  "65/35": "#0891b2",
  "50/50": "#059669",
  "35/65": "#ca8a04",
  "5/95": "#ea580c",
  "0/100": "#c2410c",
};

export interface MixLine {
  key: string;
  label: string;
  color: string;
  /** [block size in KiB, value], smallest block first. */
  points: [number, number][];
}

/** IOPS against block size, one line per mix (the 2D plot of the IOPS test). */
export function linesByMix(table: PivotTable): MixLine[] {
  return table.mixes.map((mix, j) => ({
    key: mix,
    label: `R/W ${mix}`,
    color: MIX_COLORS[mix] ?? "#555",
    points: table.sizes
      .map((s, i): [number, number | null] => [s.bytes / 1024, table.cells[i]?.[j] ?? null])
      .filter((p): p is [number, number] => p[1] !== null)
      .sort((a, b) => a[0] - b[0]),
  }));
}

/** A latency histogram as a line: [upper edge µs, share %]. */
export function histogramLine(
  section: PtsSection,
  element: string,
  direction: string,
): [number, number][] {
  return section.histograms?.[element]?.[direction] ?? [];
}

/** DIRTH, ECW: the histograms chart's subtitle. The dedicated runs at the points are not the
 * sweep's window, so its note goes with the sweep's histograms only (a run made before the
 * dedicated runs existed, which the api's words say). */
export function diHistogramsSubtitle(section: PtsSection, windowNote: string): string {
  const what = "share of I/Os per latency bucket, all I/Os of the point";
  if (section.point_runs) return `${what}, ${section.histograms_source ?? ""}`;
  const source = section.histograms_source ?? "in the window's rounds";
  return `${what}, ${source} · ${windowNote}`;
}

/** Write saturation: IOPS of each round against minutes and against drive fills. */
export function wsatSeries(section: PtsSection): {
  byTime: [number, number][];
  byFills: [number, number][];
  byGb: [number, number][];
} {
  const capacity = section.capacity_bytes ?? 0;
  return {
    byTime: section.rounds.map((r) => [r.t_end_s / 60, r.iops]),
    byGb: section.rounds.map((r) => [r.written_bytes / 1e9, r.iops]),
    byFills: section.rounds.map((r) => [capacity > 0 ? r.written_bytes / capacity : 0, r.iops]),
  };
}

/** Host idle recovery on one clock: each write period's IOPS at its middle, and the shaded
 * span of each wait state set. */
export function hirSeries(sets: HirSet[]): {
  points: { t: number; iops: number; wait: number }[];
  areas: { key: string; x1: number; x2: number; label: string }[];
  baselines: { key: string; x1: number; x2: number; iops: number }[];
} {
  const points = sets.flatMap((s) =>
    s.bursts.map(([a, b, iops]) => ({ t: (a + b) / 2, iops, wait: s.wait_s })),
  );
  const areas = sets
    .filter((s) => s.bursts.length > 0)
    .map((s) => ({ key: `wait-${s.wait_s}`, x1: s.start_s, x2: s.end_s, label: `${s.wait_s} s wait` }));
  const baselines = sets
    .filter((s) => s.baseline?.start_s != null && s.baseline.iops != null)
    .map((s) => ({
      key: `baseline-${s.wait_s}`,
      x1: s.baseline!.start_s!,
      x2: s.baseline!.start_s! + (s.baseline!.seconds ?? 0),
      iops: s.baseline!.iops!,
    }));
  return { points, areas, baselines };
}

/** The window's table as rows of the latency test: average, maximum and five nines, with
 * why five nines are missing when the window's I/Os cannot give them. */
export function latencyRows(section: PtsSection): {
  name: string;
  label: string;
  mean: number | null;
  max: number | null;
  p99999: number | null;
  p99999Note: string | null;
  ios: number | null;
}[] {
  return section.elements.map((e) => {
    const row = section.table?.[e.name];
    const pct = section.percentiles?.[e.name]?.all;
    return {
      name: e.name,
      label: e.label,
      mean: row?.lat_mean_us ?? null,
      max: row?.lat_max_us ?? null,
      p99999: pct?.["99.999"] ?? null,
      p99999Note: pct?.unsupported?.["99.999"] ?? null,
      ios: pct?.ios ?? null,
    };
  });
}

/** The latency test's average (`field` "mean") or maximum ("max") response time of each
 * element in every round: one line per element, [round, µs]. */
export function latencyRoundLines(
  section: PtsSection,
  field: "mean" | "max",
): { key: string; label: string; points: [number, number][] }[] {
  const column = field === "mean" ? 1 : 2;
  return section.elements.map((e) => ({
    key: e.name,
    label: e.label,
    points: (section.element_rounds?.[e.name] ?? [])
      .map((r): [number, number | null] => [r[0], r[column] ?? null])
      .filter((p): p is [number, number] => p[1] !== null),
  }));
}

/** CSV of the latency test's per-round figures: element, round, average and maximum µs. */
export function latencyRoundsCsv(section: PtsSection): string {
  const rows = section.elements.flatMap((e) =>
    (section.element_rounds?.[e.name] ?? []).map(([round, mean, max]) => [e.name, round, mean ?? "", max ?? ""]),
  );
  return toCsv(["element", "round", "lat_mean_us", "lat_max_us"], rows);
}

/** The levels the change-point analysis found in each XSR stimulus, as one stepped line on
 * the report's clock (s since the first stimulus began): [s, MB/s] at each level's start and
 * end. A stimulus without a known start is left out. */
export function xsrLevelLine(stimuli: XsrStimulus[]): [number, number][] {
  return stimuli.flatMap((s) =>
    s.start_s === null
      ? []
      : s.levels.flatMap((lv): [number, number][] => [
          [s.start_s! + lv.start_s, lv.mbps],
          [s.start_s! + lv.end_s, lv.mbps],
        ]),
  );
}

/** The shaded span of each transition's recovery: from the transition to the start of the
 * level the new stimulus settled at. None for a transition recovered at once or not yet known. */
export function xsrRecoveryAreas(
  transitions: XsrTransition[],
): { key: string; x1: number; x2: number; label: string }[] {
  return transitions
    .filter((t) => t.at_s !== null && t.recovery_s !== null && t.recovery_s > 0)
    .map((t) => ({
      key: `recovery-${t.to}`,
      x1: t.at_s!,
      x2: t.at_s! + t.recovery_s!,
      label: `recovery ${formatSeconds(t.recovery_s!)}`,
    }));
}

/** Seconds as a reviewer reads them: "5.1 s", "14 min", "2.3 h". */
export function formatSeconds(s: number | null): string {
  if (s === null || !Number.isFinite(s)) return "—";
  if (s < 100) return `${s.toFixed(1)} s`;
  if (s < 7200) return `${(s / 60).toFixed(s < 600 ? 1 : 0)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

/** CSV of the XSR figures: one row per stimulus. */
export function xsrCsv(stimuli: XsrStimulus[]): string {
  return toCsv(
    ["stimulus", "start_s", "mbps", "settled_mbps", "initial_mbps", "recovery_s", "lat_mean_us", "lat_max_us"],
    stimuli.map((s) => [
      s.name,
      s.start_s ?? "",
      s.mbps ?? "",
      s.settled_mbps ?? "",
      s.initial_mbps ?? "",
      s.role === "xsr-1" ? "" : (s.recovery_s ?? ""),
      s.lat_mean_us ?? "",
      s.lat_max_us ?? "",
    ]),
  );
}

/** Demand intensity (DIRTH, ECW): one line per thread count, its points by TOC: IOPS against
 * TOC (the demand-intensity curve) and ART (ms) against IOPS (the hockey stick). */
export function diLines(di: PtsDemandIntensity): {
  byToc: { key: string; label: string; color: string; points: [number, number][] }[];
  byIops: { key: string; label: string; color: string; points: [number, number][] }[];
} {
  const colors = ["#1d4ed8", "#0891b2", "#059669", "#ca8a04", "#ea580c", "#9333ea", "#db2777", "#475569"];
  const tcs = [...new Set(di.points.map((p) => p.tc))].sort((a, b) => b - a);
  const byToc = tcs.map((tc, i) => ({
    key: `tc${tc}`,
    label: `TC ${tc}`,
    color: colors[i % colors.length]!,
    points: di.points
      .filter((p) => p.tc === tc)
      .map((p): [number, number] => [p.toc, p.iops])
      .sort((a, b) => a[0] - b[0]),
  }));
  const byIops = tcs.map((tc, i) => ({
    key: `tc${tc}`,
    label: `TC ${tc}`,
    color: colors[i % colors.length]!,
    points: di.points
      .filter((p) => p.tc === tc && p.art_us !== null)
      .sort((a, b) => a.toc - b.toc)
      .map((p): [number, number] => [p.iops, p.art_us! / 1000]),
  }));
  return { byToc, byIops };
}

/** The sweep's points as CSV: TC, QD, TOC, IOPS, ART and MRT (µs), which point it is. */
export function diCsv(di: PtsDemandIntensity): string {
  const role = (p: PtsDiPoint) =>
    (["max", "mid", "min"] as const).filter((k) => di[k]?.name === p.name).join("+");
  return toCsv(
    ["tc", "qd", "toc", "iops", "art_us", "mrt_us", "point"],
    di.points.map((p) => [p.tc, p.qd, p.toc, p.iops, p.art_us, p.mrt_us, role(p)]),
  );
}
