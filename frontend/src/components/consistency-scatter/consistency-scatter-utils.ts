/**
 * The consistency scatter (IOPS against time per drive), drawn as one SVG path per drive so
 * that 5 drives x 2000 s stay a few dozen nodes. Three views of the same data: log scale over
 * the whole run, log scale zoomed from a start time (1400 s in the reviews), linear scale
 * zoomed with an adjustable top (40K by default). The axes' domains and ticks are decided
 * here; Recharts draws the axes and hands its scales to the layer that draws the points.
 */

import { maxX, niceTicks, type Line } from "../../lib/series-utils";

export type ScatterMode = "log" | "log-zoom" | "linear";
export const SCATTER_MODES: { value: ScatterMode; label: string }[] = [
  { value: "log", label: "Log, whole run" },
  { value: "log-zoom", label: "Log, zoomed" },
  { value: "linear", label: "Linear, zoomed" },
];
export const REVIEW_ZOOM_START_S = 1400;
export const DEFAULT_LINEAR_TOP = 40_000;

export interface Margin {
  top: number;
  right: number;
  bottom: number;
  left: number;
}
export const SCATTER_MARGIN: Margin = { top: 8, right: 12, bottom: 34, left: 56 };

/**
 * Where the zoomed views start: the reviews' 1400 s when the run is long enough to show
 * something after it, else 70% of the run (1400 of 2000 s), rounded down to a whole second.
 */
export function defaultZoomStart(durationS: number): number {
  if (durationS > REVIEW_ZOOM_START_S * 1.1) return REVIEW_ZOOM_START_S;
  return Math.max(0, Math.floor(durationS * 0.7));
}

export interface ScatterAxis {
  domain: [number, number];
  ticks: number[];
}

export interface ScatterAxes {
  x: ScatterAxis;
  y: ScatterAxis & { scale: "log" | "linear" };
  /** The first second shown (0 for the whole run). */
  start: number;
}

/**
 * The axes of a panel: time from the zoom start (or 0) to the end of the longest run, with
 * about one round tick per 90 px; IOPS on whole decades (log) or 0 to the chosen top (linear).
 * Panels that are compared pass all their lines as `shared`: they then get the same time and
 * IOPS ranges (the default and the 25% OP panel on one scale). A zoom start at or past the
 * end is not a zoom: the default start of the run's length is taken instead.
 */
export function scatterAxes(
  lines: Line[],
  mode: ScatterMode,
  plotWidth: number,
  options: { zoomStart: number; linearTop: number; shared?: Line[] },
): ScatterAxes {
  const all = options.shared && options.shared.length > 0 ? options.shared : lines;
  const end = Math.max(1, maxX(all));
  const zoom = options.zoomStart >= 0 && options.zoomStart < end ? options.zoomStart : defaultZoomStart(end);
  const start = mode === "log" ? 0 : zoom;
  // About one tick per 90 px, and at least a middle one in a narrow panel (0, 10, 20).
  const xTicks = niceTicks(start, end, Math.max(4, Math.floor(plotWidth / 90)));
  if (xTicks.length < 2) xTicks.splice(0, xTicks.length, start, end);
  let maxY = 1;
  let minY = Infinity;
  for (const l of all) {
    for (const [t, v] of l.points) {
      if (t < start) continue;
      if (v > maxY) maxY = v;
      if (v > 0 && v < minY) minY = v;
    }
  }
  if (mode === "linear") {
    const top = options.linearTop;
    return {
      x: { domain: [start, end], ticks: xTicks },
      y: { domain: [0, top], ticks: niceTicks(0, top, 5), scale: "linear" },
      start,
    };
  }
  // Whole decades, one tick each.
  const lo = Number.isFinite(minY) ? Math.floor(Math.log10(minY)) : 0;
  const hi = Math.max(lo + 1, Math.ceil(Math.log10(maxY * 1.0001)));
  const decades = Array.from({ length: hi - lo + 1 }, (_, i) => 10 ** (lo + i));
  return {
    x: { domain: [start, end], ticks: xTicks },
    y: { domain: [10 ** lo, 10 ** hi], ticks: decades, scale: "log" },
    start,
  };
}

export interface ScatterPaths {
  /** `dot`: the dot's diameter, larger for the drive under review (a thicker line). */
  paths: { key: string; color: string; d: string; count: number; dot: number }[];
  /** Points above the linear top, not drawn. */
  above: number;
  /** Points at or below 0 on a log axis, drawn on the axis floor. */
  floored: number;
}

/**
 * One path per line for the axes, given Recharts' scales of the chart (value -> px): each point a
 * zero-length segment that the round line cap draws as a dot. 5 drives x 2000 s stay a few
 * SVG nodes.
 */
export function scatterPaths(
  lines: Line[],
  axes: ScatterAxes,
  x: (t: number) => number,
  y: (v: number) => number,
  linearTop: number,
): ScatterPaths {
  const linear = axes.y.scale === "linear";
  const floor = axes.y.domain[0];
  let above = 0;
  let floored = 0;
  const paths = lines.map((l) => {
    const parts: string[] = [];
    for (const [t, v] of l.points) {
      if (t < axes.start) continue;
      if (linear && v > linearTop) {
        above += 1;
        continue;
      }
      let shown = v;
      if (!linear && v <= floor) {
        floored += v <= 0 ? 1 : 0;
        shown = floor;
      }
      parts.push(`M${x(t).toFixed(1)} ${y(shown).toFixed(1)}h0`);
    }
    const dot = (l.width ?? 1.5) > 1.5 ? 4.5 : 3;
    return { key: l.key, color: l.color, d: parts.join(""), count: parts.length, dot };
  });
  return { paths, above, floored };
}
