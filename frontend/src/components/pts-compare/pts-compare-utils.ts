/**
 * SNIA PTS results of several drives (GET /api/compare/pts) as the tables of the Compare
 * page: each drive's values and its difference from the drive under review. Pure.
 */

import type { PtsDriveResult, PtsTestComparison } from "../../api/pts/queries";

export const MIX_ORDER = ["100/0", "95/5", "65/35", "50/50", "35/65", "5/95", "0/100"];
export const BS_ORDER = ["1m", "128k", "64k", "32k", "16k", "8k", "4k", "512"];

/** b's difference from a in percent (null when either is missing or a is 0). */
export function pctDiff(b: number | null | undefined, a: number | null | undefined): number | null {
  if (b == null || a == null || !Number.isFinite(a) || !Number.isFinite(b) || a === 0) return null;
  return ((b - a) / a) * 100;
}

/** "+12%" / "−8%", and whether it is better (higher is better unless lowerIsBetter). */
export function diffText(diff: number | null, lowerIsBetter = false): { text: string; tone: "better" | "worse" | "same" } {
  if (diff === null) return { text: "—", tone: "same" };
  const rounded = Math.round(diff);
  if (rounded === 0) return { text: "±0%", tone: "same" };
  const better = lowerIsBetter ? rounded < 0 : rounded > 0;
  return { text: `${rounded > 0 ? "+" : "−"}${Math.abs(rounded)}%`, tone: better ? "better" : "worse" };
}

export const reference = (test: PtsTestComparison): PtsDriveResult | undefined =>
  test.drives.find((d) => d.under_review) ?? test.drives[0];

/** Rows (block sizes, largest first) and columns (mixes, reads first) that any drive has. */
export function iopsGrid(test: PtsTestComparison): { sizes: string[]; mixes: string[] } {
  const sizes = new Set<string>();
  const mixes = new Set<string>();
  for (const d of test.drives) {
    for (const [bs, row] of Object.entries(d.values)) {
      sizes.add(bs);
      for (const mix of Object.keys(row)) mixes.add(mix);
    }
  }
  return {
    sizes: BS_ORDER.filter((b) => sizes.has(b)),
    mixes: MIX_ORDER.filter((m) => mixes.has(m)),
  };
}

export const cell = (d: PtsDriveResult, row: string, col: string): number | null => {
  const v = d.values[row]?.[col];
  return typeof v === "number" ? v : null;
};

export { blockSizeLabel as bsLabel } from "../../pages/pts-report/pts-report-utils";

/** Latency elements any drive has, in the first drive's order. */
export function latencyElements(test: PtsTestComparison): { name: string; label: string }[] {
  const out: { name: string; label: string }[] = [];
  for (const d of test.drives) {
    for (const [name, row] of Object.entries(d.values)) {
      if (!out.some((e) => e.name === name)) out.push({ name, label: String(row.label ?? name) });
    }
  }
  return out;
}

/** XSR stimuli any drive has, in the order the test runs them (the first follows a purge). */
export function xsrStimuli(test: PtsTestComparison): { name: string; label: string; first: boolean }[] {
  const order = ["xsr-seq-1", "xsr-rand", "xsr-seq-2"];
  const names = [...new Set(test.drives.flatMap((d) => Object.keys(d.values)))];
  names.sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
  return names.map((name) => {
    const row = test.drives.map((d) => d.values[name]).find(Boolean);
    return { name, label: String(row?.label ?? name).split(",")[0]!, first: name === order[0] };
  });
}

/** Demand intensity (DIRTH, ECW): each drive's sweep points, IOPS against TOC, the best IOPS
 * of the thread counts at each TOC (one line a drive, drives overlaid). */
export function diCurves(test: PtsTestComparison): { key: string; label: string; points: [number, number][] }[] {
  return test.drives.map((d) => {
    const best = new Map<number, number>();
    for (const [name, row] of Object.entries(d.values)) {
      if (!name.startsWith("tc") || typeof row.toc !== "number" || typeof row.iops !== "number") continue;
      best.set(row.toc, Math.max(best.get(row.toc) ?? 0, row.iops));
    }
    return {
      key: String(d.drive_id),
      label: d.label,
      points: [...best.entries()].sort((a, b) => a[0] - b[0]),
    };
  });
}
