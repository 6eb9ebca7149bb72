/**
 * The AS-SSD-style preset's figures (plan `as-ssd-style`) laid out as AS SSD Benchmark's window:
 * rows Seq / 4K / 4K-64Thrd / Acc.time, columns Read / Write; MB/s (decimal) or IOPS for the
 * first three, the access time in ms. Each figure is its test's own fio step's totals; the
 * scores come from the score step's findings (findings.asssd), with the source of their weights.
 */
import type { Step } from "../../api/types";

export const ASSSD_PLAN = "as-ssd-style";
export const ASSSD_SCORE_STEP = "asssd-score";
export const ASSSD_TESTS = [
  { key: "asssd-seq", label: "Seq" },
  { key: "asssd-4k", label: "4K" },
  { key: "asssd-4k-64thrd", label: "4K-64Thrd" },
  { key: "asssd-acc", label: "Acc.time" },
] as const;
export const ACCESS_KEY = "asssd-acc";
export type AsSsdUnit = "mbps" | "iops";
export type Direction = "read" | "write";

export interface AsSsdCell {
  value: number | null;
  unit: "MB/s" | "IOPS" | "ms";
  detail: string;
}

export interface AsSsdRow {
  key: string;
  label: string;
  read: AsSsdCell;
  write: AsSsdCell;
}

export interface AsSsdScores {
  read: number | null;
  write: number | null;
  total: number | null;
  source: string;
}

/** A figure as AS SSD prints it: MB/s and IOPS with two decimals, ms with three. */
export function formatAsSsd(value: number | null, unit: AsSsdCell["unit"]): string {
  if (value === null || !Number.isFinite(value)) return "–";
  const digits = unit === "ms" ? 3 : 2;
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** The figure of a (test, direction) from a metric reader: MB/s or IOPS, or for the access
 * time the mean latency (µs) in ms. */
export function asSsdValue(
  test: string,
  direction: Direction,
  unit: AsSsdUnit,
  metric: (name: string) => number | undefined,
): { value: number | null; unit: AsSsdCell["unit"] } {
  if (test === ACCESS_KEY) {
    const us = metric(`${direction}_lat_mean_us`);
    return { value: us === undefined ? null : us / 1000, unit: "ms" };
  }
  const v = metric(`${direction}_${unit}`);
  return { value: v ?? null, unit: unit === "mbps" ? "MB/s" : "IOPS" };
}

function cell(step: Step | undefined, test: string, direction: Direction, unit: AsSsdUnit): AsSsdCell {
  const read = (name: string) => step?.results.find((r) => r.metric === name)?.value;
  const got = asSsdValue(test, direction, unit, read);
  const detail = !step ? "not in this run" : got.value === null ? (step.status === "done" ? "no figure" : step.status) : step.label;
  return { ...got, detail };
}

/** The table of a run's steps: each test's step is named `<test>-<direction>`. */
export function asSsdRows(steps: readonly Step[], unit: AsSsdUnit): AsSsdRow[] {
  const byName = new Map(steps.map((s) => [s.name, s]));
  return ASSSD_TESTS.map((t) => ({
    key: t.key,
    label: t.label,
    read: cell(byName.get(`${t.key}-read`), t.key, "read", unit),
    write: cell(byName.get(`${t.key}-write`), t.key, "write", unit),
  }));
}

/** The scores of a run, from its score step's findings; null before it ends. */
export function asSsdScores(steps: readonly Step[]): AsSsdScores | null {
  const f = steps.find((s) => s.name === ASSSD_SCORE_STEP)?.findings?.asssd;
  if (!f) return null;
  return {
    read: f.score_read ?? null,
    write: f.score_write ?? null,
    total: f.score_total ?? null,
    source: f.score_source,
  };
}

/** A score as AS SSD prints it: a whole number. */
export function formatScore(v: number | null): string {
  return v === null || !Number.isFinite(v) ? "–" : String(Math.round(v));
}

/** The rows as CSV rows: test, read, write, unit (the access time in ms), then the scores. */
export function asSsdCsvRows(rows: AsSsdRow[], scores: AsSsdScores | null): (string | number | null)[][] {
  const out: (string | number | null)[][] = rows.map((r) => [r.label, r.read.value, r.write.value, r.read.unit]);
  if (scores) {
    out.push(["Score", scores.read, scores.write, "points"]);
    out.push(["Score total", scores.total, null, "points"]);
  }
  return out;
}
