import type { Step } from "../../api/types";

export const FULL_DRIVE_PLAN = "full-drive";

/** The rows Compare asks for its empty-vs-full chart (GET /api/compare `rows`). */
export const FULL_DRIVE_ROWS = ["full-drive:*:*_mbps", "full-drive:*:state_drop_pct"];

/** The four tests of each state, in the plan's order, with what a reader calls them. */
const TEST = /^(rand|seq)(read|write)-(\d+k)-qd(\d+)$/;
const STATE = /^(empty|full(\d+))-(.+)$/;

export function testWords(test: string): string {
  const m = TEST.exec(test);
  if (!m) return test;
  const [, kind = "", dir = "", bs = "", qd = ""] = m;
  return `${bs.toUpperCase()} ${kind === "rand" ? "random" : "sequential"} ${dir} QD${qd}`;
}

/** Short words for a bar's category: "4K rand. write QD3". */
export function shortWords(test: string): string {
  const m = TEST.exec(test);
  if (!m) return test;
  const [, kind = "", dir = "", bs = ""] = m;
  return `${bs.toUpperCase()} ${kind === "rand" ? "rand." : "seq."} ${dir}`;
}

export interface StateRow {
  test: string;
  words: string;
  direction: "read" | "write";
  emptyMbps: number | null;
  fullMbps: number | null;
  /** (empty - full) / empty in %, from the full step's finding; negative: a rise. */
  dropPct: number | null;
  said: string;
}

function direction(test: string): "read" | "write" {
  return /read/.test(test) ? "read" : "write";
}

/** One run's tests in both states (empty and full), from its steps' results and findings, in
 * the plan's order; `fillPercent` the filled share (null until a full step is listed). */
export function fullDriveRows(steps: readonly Step[]): { rows: StateRow[]; fillPercent: number | null; note: string } {
  const rows = new Map<string, StateRow>();
  let fillPercent: number | null = null;
  let note = "";
  for (const s of steps) {
    const m = STATE.exec(s.name);
    const [, state = "", pct = "", test = ""] = m ?? [];
    if (!m || test === "prewrite") continue;
    const dir = direction(test);
    const row = rows.get(test) ?? {
      test,
      words: testWords(test),
      direction: dir,
      emptyMbps: null,
      fullMbps: null,
      dropPct: null,
      said: "",
    };
    rows.set(test, row);
    const mbps = s.results.find((r) => r.metric === `${dir}_mbps`)?.value ?? null;
    if (state === "empty") row.emptyMbps = mbps;
    else {
      fillPercent = Number(pct);
      row.fullMbps = mbps;
      const f = s.findings?.fullstate;
      if (f) {
        row.dropPct = f.drop_pct;
        row.said = f.said;
        note = f.note ?? note;
      }
    }
  }
  return { rows: Array.from(rows.values()), fillPercent, note };
}

/** "-35%" for a fall of 35%, "+4%" for a rise: the change from empty to full. */
export function changeText(dropPct: number | null): string {
  if (dropPct === null) return "–";
  const change = -dropPct;
  return `${change > 0 ? "+" : change < 0 ? "−" : "±"}${Math.abs(change).toFixed(0)}%`;
}

export interface CompareCell {
  mbps: number | null;
  runs: number;
}

export interface FullDriveCompareRow {
  driveId: number;
  name: string;
  /** By test: each state's MB/s (pooled per state as Compare pools runs) and the drop. */
  tests: Map<string, { empty: CompareCell; full: CompareCell; dropPct: number | null }>;
}

interface MetricRows {
  metric: string;
  rows: { drive_id: number; label: string; short_name?: string | null; value: number; runs?: { count: number } }[];
}

const METRIC = /^full-drive:(empty|full(\d+))-(.+):(read_mbps|write_mbps|state_drop_pct)$/;

/** Each drive's tests in both states from a comparison's full-drive metrics (the states are
 * metrics of their own, so each cell pools only that state's runs), in the drives' order; the
 * tests any drive ran, in the plan's order; the filled shares seen. */
export function fullDriveCompare(
  metrics: readonly MetricRows[],
  drives: readonly number[],
): { drives: FullDriveCompareRow[]; tests: string[]; fillPercents: number[] } {
  const by = new Map<number, FullDriveCompareRow>();
  const tests = new Set<string>();
  const fills = new Set<number>();
  const blank = () => ({ empty: { mbps: null, runs: 0 }, full: { mbps: null, runs: 0 }, dropPct: null });
  for (const m of metrics) {
    const found = METRIC.exec(m.metric);
    if (!found) continue;
    const [, state = "", pct = "", test = "", measure = ""] = found;
    if (!TEST.test(test)) continue; // the empty state's pre-write: a preparation, not a test
    if (measure !== "state_drop_pct" && measure !== `${direction(test)}_mbps`) continue;
    if (pct) fills.add(Number(pct));
    tests.add(test);
    for (const row of m.rows ?? []) {
      let d = by.get(row.drive_id);
      if (!d) {
        d = { driveId: row.drive_id, name: row.short_name || row.label, tests: new Map() };
        by.set(row.drive_id, d);
      }
      const cell = d.tests.get(test) ?? blank();
      d.tests.set(test, cell);
      if (measure === "state_drop_pct") cell.dropPct = row.value;
      else if (state === "empty") cell.empty = { mbps: row.value, runs: row.runs?.count ?? 1 };
      else cell.full = { mbps: row.value, runs: row.runs?.count ?? 1 };
    }
  }
  const order = ["randread", "randwrite", "seqread", "seqwrite"];
  const rank = (t: string) => {
    const i = order.findIndex((o) => t.startsWith(o));
    return i < 0 ? order.length : i;
  };
  const ordered = drives.map((id) => by.get(id)).filter((d): d is FullDriveCompareRow => d !== undefined);
  return {
    drives: ordered,
    tests: Array.from(tests).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)),
    fillPercents: Array.from(fills).sort((a, b) => a - b),
  };
}

/** The bars of one test: one category per test, one value per drive and state
 * (`d<id>:empty`, `d<id>:full`). */
export function compareBars(rows: readonly FullDriveCompareRow[], tests: readonly string[]) {
  return tests.map((test) => {
    const point: Record<string, string | number | null> = { test: shortWords(test) };
    for (const d of rows) {
      const cell = d.tests.get(test);
      point[`d${d.driveId}:empty`] = cell?.empty.mbps ?? null;
      point[`d${d.driveId}:full`] = cell?.full.mbps ?? null;
    }
    return point;
  });
}

/** CSV rows of a comparison: drive, test, empty MB/s, full MB/s, runs of each, change. */
export function compareCsvRows(rows: readonly FullDriveCompareRow[], tests: readonly string[]) {
  const out: (string | number | null)[][] = [];
  for (const d of rows) {
    for (const test of tests) {
      const cell = d.tests.get(test);
      if (!cell) continue;
      out.push([d.name, testWords(test), cell.empty.mbps, cell.empty.runs, cell.full.mbps, cell.full.runs, cell.dropPct]);
    }
  }
  return out;
}
