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
 */
export function scatterAxes(
  lines: Line[],
  mode: ScatterMode,
  plotWidth: number,
  options: { zoomStart: number; linearTop: number },
): ScatterAxes {
  const end = Math.max(1, maxX(lines));
  const start = mode === "log" ? 0 : Math.min(options.zoomStart, end - 1e-6);
  // About one tick per 90 px, and at least a middle one in a narrow panel (0, 10, 20).
  const xTicks = niceTicks(start, end, Math.max(4, Math.floor(plotWidth / 90)));
  let maxY = 1;
  let minY = Infinity;
  for (const l of lines) {
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
  paths: { key: string; color: string; d: string; count: number }[];
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
    return { key: l.key, color: l.color, d: parts.join(""), count: parts.length };
  });
  return { paths, above, floored };
}
