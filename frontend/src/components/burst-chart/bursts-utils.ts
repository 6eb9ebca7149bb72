import type { Step } from "../../api/types";

export const BURSTS_PLAN = "qd1-bursts";

/** The tests' mean figures, drawn as bars on Compare (their rows of GET /api/compare). */
export const BURST_METRICS = [
  "qd1-bursts:rnd4k-q1-read:read_iops",
  "qd1-bursts:rnd4k-q1-write:write_iops",
  "qd1-bursts:seq128k-q1-read:read_mbps",
  "qd1-bursts:seq128k-q1-write:write_mbps",
];
export const BURST_ROWS = BURST_METRICS;

export interface BurstPoint {
  burst: number;
  value: number;
  iops: number;
  mbps: number;
  runtimeS: number | null;
  idleBeforeS: number | null;
}

export interface BurstTest {
  test: string;
  label: string;
  direction: string;
  /** IOPS for the random tests, MB/s for the sequential ones: the figure a review quotes. */
  unit: "IOPS" | "MB/s";
  mean: number;
  min: number;
  max: number;
  spreadPct: number;
  idleMinS: number | null;
  points: BurstPoint[];
  note: string;
}

/** Each test's bursts and figures from the run's findings (the test's summary step), in the
 * run's order. */
export function burstTests(steps: readonly Step[]): BurstTest[] {
  const out: BurstTest[] = [];
  for (const s of steps) {
    const f = s.findings?.bursts;
    if (!f) continue;
    const unit = f.test.startsWith("seq") ? "MB/s" : "IOPS";
    const key = unit === "MB/s" ? "mbps" : "iops";
    out.push({
      test: f.test,
      label: f.label,
      direction: f.direction,
      unit,
      mean: key === "mbps" ? f.mbps_mean : f.iops_mean,
      min: key === "mbps" ? f.mbps_min : f.iops_min,
      max: key === "mbps" ? f.mbps_max : f.iops_max,
      spreadPct: key === "mbps" ? f.mbps_spread_pct : f.iops_spread_pct,
      idleMinS: f.idle_min_s ?? null,
      points: f.rows.map((r) => ({
        burst: r.burst,
        value: key === "mbps" ? r.mbps : r.iops,
        iops: r.iops,
        mbps: r.mbps,
        runtimeS: r.runtime_s ?? null,
        idleBeforeS: r.idle_before_s ?? null,
      })),
      note: f.note ?? "",
    });
  }
  return out;
}

/** "12,345" IOPS, "1,234" or "45.6" MB/s: whole numbers from 100 up, 3 digits below. */
export function figure(value: number): string {
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString("en-US");
  return Number(value.toPrecision(3)).toString();
}

/** The CSV of a test's bursts: one row per burst, with its runtime and the idle before it. */
export function burstsCsvRows(t: BurstTest): (string | number | null)[][] {
  return t.points.map((p) => [t.test, p.burst, p.iops, p.mbps, p.runtimeS, p.idleBeforeS]);
}

export const BURSTS_CSV_HEADER = [
  "test",
  "burst",
  "iops (IOPS)",
  "mbps (MB/s)",
  "runtime_s (s)",
  "idle_before_s (s)",
];
