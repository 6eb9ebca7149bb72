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
