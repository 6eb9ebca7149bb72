/**
 * The consistency scatter (IOPS against time per drive), drawn as one SVG path per drive so
 * that 5 drives x 2000 s stay a few dozen nodes. Three views of the same data: log scale over
 * the whole run, log scale zoomed from a start time (1400 s in the reviews), linear scale
 * zoomed with an adjustable top (40K by default).
 */

import { linearScale, logScale, maxX, niceTicks, type Line, type Scale } from "../../lib/series-utils";

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
  const x = linearScale([start, end], [0, 1], Math.max(2, Math.floor(plotWidth / 90)));
  let maxY = 1;
  let minY = Infinity;
  for (const l of lines) {
    for (const [t, v] of l.points) {
      if (t < start) continue;
      if (v > maxY) maxY = v;
      if (v > 0 && v < minY) minY = v;
    }
  }
  let y: Scale;
  if (mode === "linear") {
    y = linearScale([0, options.linearTop], [1, 0], 5);
  } else {
    const lo = Number.isFinite(minY) ? 10 ** Math.floor(Math.log10(minY)) : 1;
    const hi = 10 ** Math.ceil(Math.log10(maxY * 1.0001));
    y = logScale([lo, Math.max(hi, lo * 10)], [1, 0]);
  }
  return {
    x: { domain: x.domain, ticks: x.ticks },
    y: { domain: y.domain, ticks: y.ticks, scale: mode === "linear" ? "linear" : "log" },
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
 * One path per line for the axes, given the chart's own scales (value -> px): each point a
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

export interface ScatterGeometry extends ScatterPaths {
  x: Scale;
  y: Scale;
}

/** Axes, scales and paths for a plot of width x height with a margin: what the chart draws
 * (there with Recharts' scales over the same domains). */
export function scatterGeometry(
  lines: Line[],
  mode: ScatterMode,
  width: number,
  height: number,
  options: { zoomStart: number; linearTop: number; margin?: Margin },
): ScatterGeometry {
  const m = options.margin ?? SCATTER_MARGIN;
  const right = Math.max(m.left + 10, width - m.right);
  const bottom = Math.max(m.top + 10, height - m.bottom);
  const axes = scatterAxes(lines, mode, right - m.left, options);
  const x = linearScale(axes.x.domain, [m.left, right], Math.max(2, Math.floor((right - m.left) / 90)));
  const y =
    axes.y.scale === "linear"
      ? linearScale(axes.y.domain, [bottom, m.top], 5)
      : logScale(axes.y.domain, [bottom, m.top]);
  return { x, y, ...scatterPaths(lines, axes, x, y, options.linearTop) };
}

/** Tick labels: 1000 -> "1K", 40000 -> "40K", 1200000 -> "1.2M". */
export function formatIops(v: number): string {
  if (v >= 1e6) return `${Number((v / 1e6).toFixed(1))}M`;
  if (v >= 1e3) return `${Number((v / 1e3).toFixed(1))}K`;
  return String(Number(v.toFixed(1)));
}

export { niceTicks };
