/**
 * House style of every drivelab chart. Later charts (comparisons, full-span, scatter) take
 * their fonts, axis look and per-drive colours from here too.
 */
export const CHART_FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

export const SERIES_COLORS = {
  read: "#2563eb",
  write: "#ea580c",
  /** the drive's temperature (°C, a right-hand axis), drawn dashed */
  temperature: "#b91c1c",
} as const;

/** Distinct, print-safe colours for drives in comparison charts, in assignment order. */
export const DRIVE_COLORS = [
  "#2563eb",
  "#ea580c",
  "#059669",
  "#9333ea",
  "#dc2626",
  "#0891b2",
  "#ca8a04",
  "#db2777",
] as const;

export const AXIS_TICK = { fontSize: 12, fill: "#5d6b7b", fontFamily: CHART_FONT } as const;
export const AXIS_LABEL = { fontSize: 12, fill: "#5d6b7b", fontFamily: CHART_FONT } as const;
export const AXIS_LINE = "#c5ccd5";
export const GRID_STROKE = "#e8ebef";
export const LINE_WIDTH = 1.5;
