import type { Sample, Step } from "../../api/types";

export const FILE_COPY_PLAN = "file-copy";
/** Compare asks for these metrics of the file copy (plan:step:metric). */
export const FILE_COPY_ROWS = ["file-copy:*:file_copy_*"];

export type CopyFinding = NonNullable<NonNullable<Step["findings"]>["file_copy"]>["first"];
export type FileCopyFinding = NonNullable<NonNullable<Step["findings"]>["file_copy"]>;

/** The file copy step's findings, null before it finished. */
export function fileCopyFindings(steps: readonly Step[]): { step: Step; found: FileCopyFinding } | null {
  for (const step of steps) {
    const found = step.findings?.file_copy;
    if (found) return { step, found };
  }
  return null;
}

export interface CopyPoint {
  /** Seconds from the copy's first write. */
  t: number;
  first: number | null;
  repeated: number | null;
}

/** Where a copy's samples lie on the step's clock: after its phase start plus its first write. */
function copyStart(copy: CopyFinding): number {
  return (copy.t_start_ms + copy.start_ms) / 1000;
}

/**
 * Both copies' write MB/s against seconds from each copy's first write, one row per sample
 * (each sample at the end of its interval, as the analysis sees it), for one chart with the
 * two curves overlaid. Samples outside a copy (the sources, the deletions) are left out.
 */
export function copyCurves(samples: readonly Sample[], found: FileCopyFinding): CopyPoint[] {
  const out: CopyPoint[] = [];
  const copies: [keyof Omit<CopyPoint, "t">, CopyFinding][] = [
    ["first", found.first],
    ["repeated", found.repeated],
  ];
  for (const [key, copy] of copies) {
    const start = copyStart(copy);
    const end = start + copy.seconds + 1e-6;
    for (const s of samples) {
      if (s.t <= start + 1e-6 || s.t > end) continue;
      out.push({ t: round3(s.t - start), first: null, repeated: null, [key]: s.write_mbps });
    }
  }
  return out.sort((a, b) => a.t - b.t);
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** "twice for 3.0 s", "none" */
export function standstillText(copy: CopyFinding): string {
  if (copy.count === 0) return "none";
  const times = copy.count === 1 ? "once" : copy.count === 2 ? "twice" : `${copy.count} times`;
  return `${times} for ${copy.total_s.toFixed(1)} s`;
}

interface MetricRows {
  metric: string;
  rows: { drive_id: number; label: string; short_name?: string | null; value: number }[];
}

export interface FileCopyCompareDrive {
  driveId: number;
  name: string;
  firstMbps: number | null;
  repeatedMbps: number | null;
  firstCount: number | null;
  repeatedCount: number | null;
  firstStillS: number | null;
  repeatedStillS: number | null;
  repeatedLongestS: number | null;
}

const METRIC = /^file-copy:[^:]+:file_copy_(first|repeated)_(mbps|standstills|standstill_s|longest_standstill_s)$/;

/** Each drive's copies from a comparison's file-copy metrics, in the drives' order. */
export function fileCopyCompare(metrics: readonly MetricRows[], drives: readonly number[]): FileCopyCompareDrive[] {
  const by = new Map<number, FileCopyCompareDrive>();
  for (const m of metrics) {
    const hit = METRIC.exec(m.metric);
    if (!hit) continue;
    const [, which, what] = hit;
    for (const row of m.rows ?? []) {
      let d = by.get(row.drive_id);
      if (!d) {
        d = {
          driveId: row.drive_id,
          name: row.short_name || row.label,
          firstMbps: null,
          repeatedMbps: null,
          firstCount: null,
          repeatedCount: null,
          firstStillS: null,
          repeatedStillS: null,
          repeatedLongestS: null,
        };
        by.set(row.drive_id, d);
      }
      const first = which === "first";
      if (what === "mbps") d[first ? "firstMbps" : "repeatedMbps"] = row.value;
      else if (what === "standstills") d[first ? "firstCount" : "repeatedCount"] = row.value;
      else if (what === "standstill_s") d[first ? "firstStillS" : "repeatedStillS"] = row.value;
      else if (!first) d.repeatedLongestS = row.value;
    }
  }
  return drives.map((id) => by.get(id)).filter((d): d is FileCopyCompareDrive => d !== undefined);
}
