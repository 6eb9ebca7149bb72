/**
 * The mixed plan (mixed random and mixed sequential, AnandTech's 2018-2021 tests): its parts'
 * curves of MB/s against the share of writes from a run's findings, and each drive's average
 * over the shares from a comparison. Pure: data in, data out.
 */

import type { CompareMetric } from "../../api/results/types";
import type { Step } from "../../api/types";
import type { Line } from "../../lib/series-utils";

export const MIXED_PLAN = "mixed";
export const PARTS = ["random", "sequential"] as const;
export type Part = (typeof PARTS)[number];
export const PART_WORDS: Record<Part, string> = {
  random: "4K random QD4",
  sequential: "128K sequential QD1",
};
/** The summary step (and metric test) of each part. */
export const PART_STEP: Record<Part, string> = {
  random: "mixed-random-4k-qd4",
  sequential: "mixed-sequential-128k-qd1",
};
/** The share-of-writes axis: 0 to 100 % in tens. */
export const SHARE_TICKS = [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100];

export interface MixedPoint {
  writePct: number;
  mbps: number;
  readMbps: number;
  writeMbps: number;
  iops: number;
}

export interface MixedPart {
  part: Part;
  points: MixedPoint[];
  avgMbps: number;
  avgIops: number;
  minMbps: number;
  minWritePct: number;
  maxMbps: number;
  maxWritePct: number;
  note: string;
}

/** Each part's figures from a run's summary steps, random first. */
export function mixedParts(steps: readonly Step[]): MixedPart[] {
  const out: MixedPart[] = [];
  for (const s of steps) {
    const f = s.findings?.mixed;
    if (!f) continue;
    out.push({
      part: f.part,
      points: f.points
        .map((p) => ({
          writePct: p.write_pct,
          mbps: p.mbps,
          readMbps: p.read_mbps,
          writeMbps: p.write_mbps,
          iops: p.iops,
        }))
        .sort((a, b) => a.writePct - b.writePct),
      avgMbps: f.avg_mbps,
      avgIops: f.avg_iops,
      minMbps: f.min_mbps,
      minWritePct: f.min_write_pct,
      maxMbps: f.max_mbps,
      maxWritePct: f.max_write_pct,
      note: f.note ?? "",
    });
  }
  return out.sort((a, b) => PARTS.indexOf(a.part) - PARTS.indexOf(b.part));
}

/** A run's curve as a chart line: total MB/s (reads and writes) against % writes. */
export function partLine(part: MixedPart, driveId: number, color: string): Line {
  return {
    key: `run:${part.part}`,
    driveId,
    label: PART_WORDS[part.part],
    color,
    dashed: false,
    points: part.points.map((p) => [p.writePct, p.mbps]),
  };
}

/** MB/s as the charts and tables write it: three significant digits, whole above 100. */
export function mbps(value: number): string {
  return value >= 100 ? value.toFixed(0) : String(Number(value.toPrecision(3)));
}

/** A run's points as CSV rows: part, % writes, total, read and write MB/s, IOPS. */
export function pointsRows(parts: MixedPart[]): (string | number)[][] {
  return parts.flatMap((p) =>
    p.points.map((pt) => [p.part, pt.writePct, pt.mbps, pt.readMbps, pt.writeMbps, pt.iops]),
  );
}

/** Height of the curves' panels on Compare, and of one drive's row of the averages' bars. */
export const PANEL_HEIGHT = 280;
export const BAR_ROW = 28;
const BAR_AXIS = 32;
const BAR_TITLE = 18;
const BAR_GAP = 12;

/** The height of the averages' bar charts (one row per drive), 0 without any. */
export function barsHeight(rows: number): number {
  return rows ? BAR_AXIS + rows * BAR_ROW : 0;
}

/** The plot height of the Compare chart: the curves' panels, then the averages' bars. */
export function compareHeight(rows: number): number {
  return PANEL_HEIGHT + (rows ? BAR_GAP + BAR_TITLE + barsHeight(rows) : 0);
}

export interface AverageRow {
  driveId: number;
  name: string;
  random: number | null;
  sequential: number | null;
}

/** Each drive's average MB/s over the shares (the stored mixed_avg_mbps of its latest run),
 * in the order of `drives`; drives without a mixed run are left out. */
export function averages(metrics: readonly CompareMetric[], drives: readonly number[]): AverageRow[] {
  const by = new Map<number, AverageRow>();
  for (const m of metrics) {
    const part = PARTS.find((p) => m.metric === `${MIXED_PLAN}:${PART_STEP[p]}:mixed_avg_mbps`);
    if (!part) continue;
    for (const row of m.rows) {
      const d = by.get(row.drive_id) ?? {
        driveId: row.drive_id,
        name: row.short_name || row.label,
        random: null,
        sequential: null,
      };
      d[part] = row.value;
      by.set(row.drive_id, d);
    }
  }
  return drives.flatMap((id) => (by.has(id) ? [by.get(id) as AverageRow] : []));
}
