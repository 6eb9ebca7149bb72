import type { Step } from "../../api/types";

export const SLC_PLAN = "slc-cache";

export interface SlcFill {
  cacheGb: number | null;
  cacheMbps: number | null;
  afterMbps: number | null;
  resolutionGb: number;
  note: string;
}

export interface SlcRefillRow {
  step: string;
  idleS: number;
  /** The idle the drive had: from the pass before to this one, on fio's clock. */
  idleMeasuredS: number | null;
  /** GB recovered; the refill's whole when atLeast; 0 when none was seen; null unknown. */
  recoveredGb: number | null;
  atLeast: boolean;
  state: string;
  resolutionGb: number;
  note: string;
}

/** The fill's cache and each refill's recovered cache, from the run's findings, by idle. */
export function slcFindings(steps: readonly Step[]): { fill: SlcFill | null; refills: SlcRefillRow[] } {
  let fill: SlcFill | null = null;
  const refills: SlcRefillRow[] = [];
  for (const s of steps) {
    const f = s.findings?.slc;
    if (!f) continue;
    if (f.kind === "fill") {
      fill = {
        cacheGb: f.cache_gb ?? null,
        cacheMbps: f.cache_mbps ?? null,
        afterMbps: f.after_mbps ?? null,
        resolutionGb: f.resolution_gb,
        note: f.note ?? "",
      };
    } else if (f.idle_s != null) {
      refills.push({
        step: s.name,
        idleS: f.idle_s,
        idleMeasuredS: f.idle_measured_s ?? null,
        recoveredGb: f.recovered_gb ?? null,
        atLeast: f.at_least ?? false,
        state: f.state ?? "unknown",
        resolutionGb: f.resolution_gb,
        note: f.note ?? "",
      });
    }
  }
  refills.sort((a, b) => a.idleS - b.idleS);
  return { fill, refills };
}

/** "12.3 GB", "≥ 25 GB", "none (< 0.5 GB)", "unknown" */
export function recoveredText(r: Pick<SlcRefillRow, "recoveredGb" | "atLeast" | "state" | "resolutionGb">): string {
  if (r.recoveredGb === null) return "unknown";
  if (r.state === "none") return `none (< ${gb(r.resolutionGb)} GB)`;
  return `${r.atLeast ? "≥ " : ""}${gb(r.recoveredGb)} GB`;
}

export function gb(v: number): string {
  return String(Number(v.toPrecision(3)));
}

/** The rows Compare asks for its SLC cache table (GET /api/compare `rows`). */
export const SLC_ROWS = ["slc-cache:*:slc_*"];

export interface SlcCompareDrive {
  driveId: number;
  name: string;
  cacheGb: number | null;
  cacheMbps: number | null;
  afterMbps: number | null;
  /** By idle step (s): GB recovered and whether it is a lower bound. */
  recovered: Map<number, { gb: number; atLeast: boolean }>;
}

interface MetricRows {
  metric: string;
  rows: { drive_id: number; label: string; short_name?: string | null; value: number }[];
}

const REFILL = /^slc-cache:slc-refill-after-(\d+)s:(slc_recovered_gb|slc_recovered_at_least)$/;

/** Each drive's cache and recovery from a comparison's slc-cache metrics, in the drives'
 * order; the idle steps any drive ran, in increasing order. */
export function slcCompare(
  metrics: readonly MetricRows[],
  drives: readonly number[],
): { drives: SlcCompareDrive[]; idles: number[] } {
  const by = new Map<number, SlcCompareDrive>();
  const idles = new Set<number>();
  const get = (row: MetricRows["rows"][number]) => {
    let d = by.get(row.drive_id);
    if (!d) {
      d = {
        driveId: row.drive_id,
        name: row.short_name || row.label,
        cacheGb: null,
        cacheMbps: null,
        afterMbps: null,
        recovered: new Map(),
      };
      by.set(row.drive_id, d);
    }
    return d;
  };
  const flags = new Map<string, boolean>();
  for (const m of metrics) {
    if (!m.metric.startsWith("slc-cache:")) continue;
    for (const row of m.rows ?? []) {
      const d = get(row);
      if (m.metric === "slc-cache:slc-fill:slc_cache_gb") d.cacheGb = row.value;
      else if (m.metric === "slc-cache:slc-fill:slc_cache_mbps") d.cacheMbps = row.value;
      else if (m.metric === "slc-cache:slc-fill:slc_after_cache_mbps") d.afterMbps = row.value;
      const r = REFILL.exec(m.metric);
      if (!r) continue;
      const idle = Number(r[1]);
      idles.add(idle);
      if (r[2] === "slc_recovered_at_least") flags.set(`${row.drive_id}:${idle}`, row.value >= 0.5);
      else d.recovered.set(idle, { gb: row.value, atLeast: false });
    }
  }
  for (const d of by.values()) {
    for (const [idle, v] of d.recovered) v.atLeast = flags.get(`${d.driveId}:${idle}`) ?? false;
  }
  const ordered = drives.map((id) => by.get(id)).filter((d): d is SlcCompareDrive => d !== undefined);
  return { drives: ordered, idles: Array.from(idles).sort((a, b) => a - b) };
}
