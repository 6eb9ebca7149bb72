/**
 * Turning GET /api/compare/series answers into what the comparison charts and their exports
 * need: per-drive lines in the house colours, the conditions and provenance lines, CSV rows,
 * linear and log scales with their ticks. Pure: data in, data out.
 */

import type { CompareSeries, DriveSeries, RunConditions } from "../api/results/types";
import { colorOf, type DriveStyle } from "./house-style";
import type { LegendItem } from "./export-utils";
import { toCsv } from "./export-utils";

export interface Line {
  key: string;
  driveId: number;
  label: string;
  color: string;
  /** Second and later passes of a drive are dashed. */
  dashed: boolean;
  points: [number, number][];
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
  const join = (values: (string | null)[]) =>
    uniq(values.filter((v): v is string => Boolean(v))).join("/");
  const parts = [
    join(c.map((x) => x.plan)),
    join(c.map((x) => (x.iodepth ? `QD${x.iodepth}` : null))),
    join(c.map((x) => (x.span_bytes ? `span ${formatBinaryBytes(x.span_bytes)}` : null))),
    join(c.map((x) => x.pattern)),
    join(c.map((x) => `OP ${x.op_percent}%`)),
  ];
  return parts.filter(Boolean).join(" · ");
}

const day = (iso: string | null | undefined) => (iso ? iso.slice(0, 10) : "date unknown");

/** Drive firmware, fio version and date of each drive's run, for the small print; drives
 * with the same three are named together. */
export function provenanceLine(
  drives: {
    label: string;
    conditions: Pick<RunConditions, "firmware" | "fio_version" | "finished_at">;
  }[],
): string {
  const groups = new Map<string, string[]>();
  for (const d of drives) {
    const key =
      `fw ${d.conditions.firmware ?? "?"}, ${d.conditions.fio_version ?? "fio ?"}, ` +
      day(d.conditions.finished_at);
    groups.set(key, [...(groups.get(key) ?? []), shortLabel(d.label)]);
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
        label: steps.length > 1 ? `${shortLabel(drive.label)}, ${s.label}` : shortLabel(drive.label),
        color: colorOf(styles, drive.drive_id),
        dashed: i > 0,
        points: s.points.map(([x, y]) => [x, y] as [number, number]),
      });
    });
  }
  return lines;
}

/** Legend items: one per line, the drive under review in bold. */
export function legendOf(lines: Line[], styles: Map<number, DriveStyle>): LegendItem[] {
  return lines.map((l) => ({
    label: l.label,
    color: l.color,
    highlight: styles.get(l.driveId)?.underReview ?? false,
  }));
}

/** Long-format CSV of lines: one row per point. */
export function linesCsv(lines: Line[], xName: string, yName: string): string {
  const rows: (string | number)[][] = [];
  for (const l of lines) for (const [x, y] of l.points) rows.push([l.label, x, y]);
  return toCsv(["series", xName, yName], rows);
}

/** Largest x of any line (0 with none). */
export function maxX(lines: Line[]): number {
  let m = 0;
  for (const l of lines) for (const [x] of l.points) if (x > m) m = x;
  return m;
}

export interface Scale {
  (value: number): number;
  domain: [number, number];
  ticks: number[];
}

/** A linear scale from domain to range with about `count` round ticks. */
export function linearScale(
  domain: [number, number],
  range: [number, number],
  count = 5,
): Scale {
  const [d0, d1] = domain[1] > domain[0] ? domain : [domain[0], domain[0] + 1];
  const [r0, r1] = range;
  const f = ((v: number) => r0 + ((v - d0) / (d1 - d0)) * (r1 - r0)) as Scale;
  f.domain = [d0, d1];
  f.ticks = niceTicks(d0, d1, count);
  return f;
}

/** A log10 scale; values at or below the floor are drawn at the floor. */
export function logScale(domain: [number, number], range: [number, number]): Scale {
  const lo = Math.max(domain[0], 1e-9);
  const hi = Math.max(domain[1], lo * 10);
  const [l0, l1] = [Math.log10(lo), Math.log10(hi)];
  const [r0, r1] = range;
  const f = ((v: number) =>
    r0 + ((Math.log10(Math.max(v, lo)) - l0) / (l1 - l0)) * (r1 - r0)) as Scale;
  f.domain = [lo, hi];
  const ticks: number[] = [];
  for (let e = Math.ceil(l0 - 1e-9); e <= Math.floor(l1 + 1e-9); e++) ticks.push(10 ** e);
  f.ticks = ticks;
  return f;
}

/** Round tick values (1, 2, 5 x 10^k steps) covering [lo, hi]. */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * mag >= raw) ?? 10) * mag;
  const ticks: number[] = [];
  for (let v = Math.ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) {
    ticks.push(Number(v.toPrecision(12)));
  }
  return ticks;
}
