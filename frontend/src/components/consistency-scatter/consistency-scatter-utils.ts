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

export interface ScatterGeometry {
  x: Scale;
  y: Scale;
  paths: { key: string; color: string; d: string; count: number }[];
  /** Points above the linear top, not drawn. */
  above: number;
  /** Points at or below 0 on a log axis, drawn on the axis floor. */
  floored: number;
}

/**
 * Scales and one path per line for a plot of width x height: each point a zero-length
 * segment that the round line cap draws as a dot.
 */
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
  const end = Math.max(1, maxX(lines));
  const start = mode === "log" ? 0 : Math.min(options.zoomStart, end - 1e-6);
  const x = linearScale([start, end], [m.left, right], Math.max(2, Math.floor((right - m.left) / 90)));
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
    y = linearScale([0, options.linearTop], [bottom, m.top], 5);
  } else {
    const lo = Number.isFinite(minY) ? 10 ** Math.floor(Math.log10(minY)) : 1;
    const hi = 10 ** Math.ceil(Math.log10(maxY * 1.0001));
    y = logScale([lo, Math.max(hi, lo * 10)], [bottom, m.top]);
  }
  let above = 0;
  let floored = 0;
  const paths = lines.map((l) => {
    const parts: string[] = [];
    for (const [t, v] of l.points) {
      if (t < start) continue;
      if (mode === "linear" && v > options.linearTop) {
        above += 1;
        continue;
      }
      if (mode !== "linear" && v <= y.domain[0]) floored += v <= 0 ? 1 : 0;
      parts.push(`M${x(t).toFixed(1)} ${y(v).toFixed(1)}h0`);
    }
    return { key: l.key, color: l.color, d: parts.join(""), count: parts.length };
  });
  return { x, y, paths, above, floored };
}

/** Tick labels: 1000 -> "1K", 40000 -> "40K", 1200000 -> "1.2M". */
export function formatIops(v: number): string {
  if (v >= 1e6) return `${Number((v / 1e6).toFixed(1))}M`;
  if (v >= 1e3) return `${Number((v / 1e3).toFixed(1))}K`;
  return String(Number(v.toFixed(1)));
}

export { niceTicks };
