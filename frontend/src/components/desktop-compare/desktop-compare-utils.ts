/**
 * Compare: the CrystalDiskMark-style and AS-SSD-style tables of several drives, one block per
 * drive in the tool's own layout (tests as rows, Read / Write columns), from a comparison's
 * metrics (GET /api/compare with DESKTOP_ROWS).
 */
import { ACCESS_KEY, ASSSD_PLAN, ASSSD_TESTS, asSsdValue, type AsSsdCell } from "../asssd-table/asssd-utils";
import { CDM_PLAN, CDM_TESTS } from "../cdm-table/cdm-utils";

export type DesktopPlan = typeof CDM_PLAN | typeof ASSSD_PLAN;
export type DesktopUnit = "mbps" | "iops";

/** The rows Compare asks for its tables: the tests' figures (not CDM's single passes). */
export const DESKTOP_ROWS = [`${CDM_PLAN}:*-read:read_*`, `${CDM_PLAN}:*-write:write_*`, `${ASSSD_PLAN}:*`];

interface Row {
  drive_id: number;
  label: string;
  short_name?: string | null;
  simulated?: boolean;
  value: number;
  run_id?: number;
  firmware?: string | null;
  fio_version?: string | null;
  finished_at?: string | null;
}

interface MetricRows {
  metric: string;
  conditions?: Record<string, string | null | undefined>;
  rows: Row[];
}

export interface DesktopLine {
  key: string;
  label: string;
  read: number | null;
  write: number | null;
  unit: AsSsdCell["unit"];
}

export interface DesktopBlock {
  driveId: number;
  name: string;
  simulated: boolean;
  /** "run 12 · fw 1.0 · fio-3.33 · 2026-12-06" */
  provenance: string;
  lines: DesktopLine[];
  /** AS-SSD-style only: read, write and total score. */
  scores: { read: number | null; write: number | null; total: number | null } | null;
}

/** Each drive's table of `plan`, in the drives' order; drives without a figure are left out. */
export function desktopCompare(
  plan: DesktopPlan,
  metrics: readonly MetricRows[],
  drives: readonly number[],
  unit: DesktopUnit,
): DesktopBlock[] {
  const values = new Map<number, Map<string, number>>();
  const about = new Map<number, Row>();
  for (const m of metrics) {
    if (!m.metric.startsWith(`${plan}:`)) continue;
    const id = m.metric.slice(plan.length + 1);
    for (const row of m.rows ?? []) {
      if (!values.has(row.drive_id)) values.set(row.drive_id, new Map());
      values.get(row.drive_id)!.set(id, row.value);
      if (!about.has(row.drive_id)) about.set(row.drive_id, row);
    }
  }
  const tests = plan === CDM_PLAN ? CDM_TESTS : ASSSD_TESTS;
  const blocks: DesktopBlock[] = [];
  for (const driveId of drives) {
    const got = values.get(driveId);
    const row = about.get(driveId);
    if (!got || !row) continue;
    const lines = tests.map((t) => {
      const figure = (direction: "read" | "write") =>
        asSsdValue(plan === CDM_PLAN ? "" : t.key, direction, unit, (name) => got.get(`${t.key}-${direction}:${name}`));
      const read = figure("read");
      const write = figure("write");
      return { key: t.key, label: t.label, read: read.value, write: write.value, unit: read.unit };
    });
    if (lines.every((l) => l.read === null && l.write === null)) continue;
    const score = (name: string) => got.get(`asssd-score:asssd_score_${name}`) ?? null;
    blocks.push({
      driveId,
      name: row.short_name || row.label,
      simulated: row.simulated ?? false,
      provenance: [
        row.run_id !== undefined ? `run ${row.run_id}` : null,
        row.firmware ? `fw ${row.firmware}` : null,
        row.fio_version ?? null,
        row.finished_at ? row.finished_at.slice(0, 10) : null,
      ]
        .filter(Boolean)
        .join(" · "),
      lines,
      scores: plan === ASSSD_PLAN ? { read: score("read"), write: score("write"), total: score("total") } : null,
    });
  }
  return blocks;
}

/** The conditions the plan's figures share (span, data pattern, ...), in words. */
export function desktopConditions(plan: DesktopPlan, metrics: readonly MetricRows[]): string {
  const first = metrics.find((m) => m.metric.startsWith(`${plan}:`) && !m.metric.includes(`:${ACCESS_KEY}-`));
  const said = Object.entries(first?.conditions ?? {})
    .filter(([, v]) => v !== null && v !== undefined && v !== "")
    .map(([k, v]) => `${k} ${v}`);
  return [plan, ...said].join(" · ");
}

/** The blocks as CSV: one row per test and direction, one column per drive, then the unit. */
export function desktopCsv(blocks: readonly DesktopBlock[]): { header: string[]; rows: (string | number | null)[][] } {
  const header = ["test", "direction", ...blocks.map((b) => b.name), "unit"];
  const rows: (string | number | null)[][] = [];
  const first = blocks[0];
  if (!first) return { header, rows };
  first.lines.forEach((line, i) => {
    for (const direction of ["read", "write"] as const) {
      rows.push([line.label, direction, ...blocks.map((b) => b.lines[i]?.[direction] ?? null), line.unit]);
    }
  });
  if (first.scores) {
    for (const name of ["read", "write", "total"] as const) {
      rows.push(["Score", name, ...blocks.map((b) => b.scores?.[name] ?? null), "points"]);
    }
  }
  return { header, rows };
}
