/**
 * Turning GET /api/compare/series answers into what the comparison charts and their exports
 * need: per-drive lines in the house colours, the conditions and provenance lines, CSV rows,
 * linear and log scales with their ticks. Pure: data in, data out.
 */

import type { CompareSeries, DriveSeries, RunConditions } from "../api/results/types";
import { colorOf, widthOf, type DriveStyle } from "./house-style";
import type { CsvAbout, LegendItem } from "./export-utils";
import { csvDocument, simulatedMark } from "./export-utils";

export interface Line {
  key: string;
  driveId: number;
  label: string;
  color: string;
  /** Second and later passes of a drive are dashed. */
  dashed: boolean;
  /** Stroke width: thicker for the drive under review (house-style widthOf). */
  width?: number;
  points: [number, number][];
  /** A label per point (its queue depth), drawn beside the point where it overlaps nothing. */
  pointLabels?: string[];
}

/** What charts, legends and exports call a drive: the short name a reviewer set, else its
 * label without the serial. */
export function driveName(drive: { label: string; short_name?: string | null }): string {
  return drive.short_name || shortLabel(drive.label);
}

/** "256 MiB" from bytes (fio's sizes are binary). */
export function formatBinaryBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return "—";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i += 1;
  }
  return `${Number(v.toFixed(v >= 10 || Number.isInteger(v) ? 0 : 1))} ${units[i]}`;
}

/** Transfer-size ticks: 4096 -> "4K", 1048576 -> "1M", 512 -> "512". */
export function formatBlockSize(bytes: number): string {
  if (bytes >= 1024 ** 2) return `${Number((bytes / 1024 ** 2).toFixed(1))}M`;
  if (bytes >= 1024) return `${Number((bytes / 1024).toFixed(1))}K`;
  return String(bytes);
}

const uniq = <T>(values: T[]) => Array.from(new Set(values));

/**
 * The test conditions of an exported chart: plan, QD, span, data pattern, OP. Values the
 * drives differ in are listed with a slash ("QD1/QD32").
 */
export function conditionsLine(drives: DriveSeries[]): string {
  if (drives.length === 0) return "";
  const c = drives.map((d) => d.conditions);
  const join = (values: (string | null | undefined)[]) =>
    uniq(values.filter((v): v is string => Boolean(v))).join("/");
  const parts = [
    join(c.map((x) => x.plan)),
    join(c.map((x) => (x.iodepth ? `QD${x.iodepth}` : null))),
    join(c.map((x) => (x.span_bytes ? `span ${formatBinaryBytes(x.span_bytes)}` : null))),
    join(c.map((x) => x.compared?.["runtime"])),
    join(c.map((x) => x.pattern)),
    join(c.map((x) => `OP ${x.op_percent}%`)),
    join(c.map((x) => x.compared?.["drive state before"])),
    join(c.map((x) => x.compared?.["ioengine"])),
  ];
  return parts.filter(Boolean).join(" · ");
}

/** A chart's warnings: the conditions its drives' runs differ in, and the drive under review
 * when it has no run of the plan (said on the chart, never left out silently). */
export function seriesWarnings(
  data: CompareSeries | undefined,
  styles: Map<number, DriveStyle>,
  extra: CompareSeries[] = [],
): string[] {
  const out: string[] = [];
  for (const d of [data, ...extra]) {
    if (!d) continue;
    out.push(...d.warnings);
    for (const m of d.missing) {
      if (styles.get(m.drive_id)?.underReview) {
        out.push(`The drive under review, ${driveName(m)}, is not in this chart: ${m.reason}.`);
      }
    }
  }
  return uniq(out);
}

/** The simulated mark of a chart's drives (none when every one is real). */
export function seriesSimulated(
  drives: { simulated: boolean; label: string; short_name?: string | null }[],
): string | undefined {
  return simulatedMark(uniq(drives.filter((d) => d.simulated).map(driveName)));
}

const day = (iso: string | null | undefined) => (iso ? iso.slice(0, 10) : "date unknown");

/** Drive firmware, fio version and date of each drive's run, for the small print; drives
 * with the same three are named together. */
export function provenanceLine(
  drives: {
    label: string;
    short_name?: string | null;
    conditions: Pick<RunConditions, "firmware" | "fio_version" | "finished_at">;
  }[],
): string {
  const groups = new Map<string, string[]>();
  for (const d of drives) {
    const key =
      `fw ${d.conditions.firmware ?? "?"}, ${d.conditions.fio_version ?? "fio ?"}, ` +
      day(d.conditions.finished_at);
    groups.set(key, [...(groups.get(key) ?? []), driveName(d)]);
  }
  const parts = Array.from(groups, ([key, labels]) => `${uniq(labels).join(", ")}: ${key}`);
  return `drivelab · ${parts.join("; ")}`;
}

/** Shorter drive labels for legends: the serial in brackets goes. */
export function shortLabel(label: string): string {
  return label.replace(/\s*\(S\/N [^)]*\)\s*$/, "");
}

/** One line per drive and charted step, coloured by drive, later passes dashed. */
export function toLines(
  data: CompareSeries | undefined,
  styles: Map<number, DriveStyle>,
  pick: (role: string | null | undefined) => boolean = () => true,
): Line[] {
  if (!data) return [];
  const lines: Line[] = [];
  for (const drive of data.drives) {
    const steps = drive.series.filter((s) => pick(s.role));
    steps.forEach((s, i) => {
      lines.push({
        key: `${drive.drive_id}:${s.step_id}:${s.step}`,
        driveId: drive.drive_id,
        label: steps.length > 1 ? `${driveName(drive)}, ${s.label}` : driveName(drive),
        color: colorOf(styles, drive.drive_id),
        width: widthOf(styles, drive.drive_id),
        dashed: i > 0,
        points: s.points.map(([x, y]) => [x, y] as [number, number]),
      });
    });
  }
  return lines;
}

/** Legend items: one per line, the drive under review in bold, dashed lines dashed. */
export function legendOf(lines: Line[], styles: Map<number, DriveStyle>): LegendItem[] {
  return lines.map((l) => ({
    label: l.label,
    color: l.color,
    highlight: styles.get(l.driveId)?.underReview ?? false,
    dashed: l.dashed,
  }));
}

/** Long-format CSV of lines: one row per point, after the chart's title, conditions and
 * provenance (see csvDocument). */
export function linesCsv(
  lines: Line[],
  xName: string,
  yName: string,
  about: CsvAbout = { title: "" },
): string {
  const rows: (string | number)[][] = [];
  for (const l of lines) for (const [x, y] of l.points) rows.push([l.label, x, y]);
  return csvDocument(about, ["series", xName, yName], rows);
}

/** Largest x of any line (0 with none). */
export function maxX(lines: Line[]): number {
  let m = 0;
  for (const l of lines) for (const [x] of l.points) if (x > m) m = x;
  return m;
}

/** The one tick rule, in axis-utils.ts; here for the charts that import it from here. */
export { niceTicks, tickFormat } from "./axis-utils";
