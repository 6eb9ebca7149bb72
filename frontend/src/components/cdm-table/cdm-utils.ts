/**
 * The CrystalDiskMark-style preset's figures (plan `cdm-style`) laid out as readers know them:
 * one row per test (SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T16, RND4K Q1T1), a Read and a Write
 * column, in MB/s (decimal), IOPS or mean latency in µs. Each figure is the test's best pass,
 * derived by the api on the test's summary step (findings.cdm).
 */
import type { Step } from "../../api/types";

export const CDM_PLAN = "cdm-style";
export const CDM_TESTS = [
  { key: "seq1m-q8t1", label: "SEQ1M Q8T1" },
  { key: "seq1m-q1t1", label: "SEQ1M Q1T1" },
  { key: "rnd4k-q32t16", label: "RND4K Q32T16" },
  { key: "rnd4k-q1t1", label: "RND4K Q1T1" },
] as const;
export const CDM_UNITS = [
  { key: "mbps", label: "MB/s", digits: 2 },
  { key: "iops", label: "IOPS", digits: 2 },
  { key: "lat_mean_us", label: "µs", digits: 2 },
] as const;
export type CdmUnit = (typeof CDM_UNITS)[number]["key"];
export type Direction = "read" | "write";

export interface CdmCell {
  value: number | null;
  /** "best of 5 passes: 3,480.12 / 3,512.34 / ..." or what is still to come. */
  detail: string;
}

export interface CdmRow {
  key: string;
  label: string;
  read: CdmCell;
  write: CdmCell;
}

/** A figure as CrystalDiskMark prints it: two decimals, thousands grouped. */
export function formatCdm(value: number | null, unit: CdmUnit): string {
  if (value === null || !Number.isFinite(value)) return "–";
  const digits = CDM_UNITS.find((u) => u.key === unit)?.digits ?? 2;
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function cell(step: Step | undefined, direction: Direction, unit: CdmUnit): CdmCell {
  if (!step) return { value: null, detail: "not in this run" };
  const found = step.results.find((r) => r.metric === `${direction}_${unit}`);
  const cdm = step.findings?.cdm;
  if (!found || !cdm) {
    return { value: null, detail: step.status === "done" ? "no figure" : `${step.status}` };
  }
  const passes = cdm.passes
    .map((p) => {
      const v = unit === "mbps" ? p.mbps : unit === "iops" ? p.iops : p.lat_mean_us;
      return `${p.number === cdm.best_pass ? "*" : ""}${formatCdm(v ?? null, unit)}`;
    })
    .join(" / ");
  return {
    value: found.value,
    detail: `best of ${cdm.passes.length} passes (* the best, by MB/s): ${passes}`,
  };
}

/** The table of a run's steps: each test's summary step is named `<test>-<direction>`. */
export function cdmRows(steps: Step[], unit: CdmUnit): CdmRow[] {
  const byName = new Map(steps.map((s) => [s.name, s]));
  return CDM_TESTS.map((t) => ({
    key: t.key,
    label: t.label,
    read: cell(byName.get(`${t.key}-read`), "read", unit),
    write: cell(byName.get(`${t.key}-write`), "write", unit),
  }));
}

/** The rows as CSV rows: test, read, write (in `unit`). */
export function cdmCsvRows(rows: CdmRow[]): (string | number | null)[][] {
  return rows.map((r) => [r.label, r.read.value, r.write.value]);
}
