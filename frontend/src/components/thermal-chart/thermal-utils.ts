import type { Sample, Step } from "../../api/types";
import { heatWords } from "../step-chart/step-chart-utils";

export const THERMAL_PLAN = "thermal";
const ROLES = new Set(["thermal-heat", "thermal-cool"]);

export type ThermalFindings = NonNullable<NonNullable<Step["findings"]>["thermal"]>;

/** One point of the whole run's chart: seconds since the first phase began. */
export interface ThermalPoint {
  t: number;
  mbps: number | null;
  temp_c: number | null;
}

/** A phase on the run's time line: where it starts and ends (s since the first phase). */
export interface ThermalPhase {
  step: Step;
  kind: "heat" | "cool";
  label: string;
  start: number;
  end: number;
}

/** The thermal plan's phases of a run, in order, those that started. */
export function thermalSteps(steps: readonly Step[]): Step[] {
  return steps
    .filter((s) => ROLES.has(String(s.params.role ?? "")) && s.started_at !== null)
    .slice()
    .sort((a, b) => a.idx - b.idx);
}

function seconds(iso: string | null | undefined): number | null {
  if (!iso) return null;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms / 1000 : null;
}

/**
 * The phases one after the other on one time line: each phase's samples (t since its own
 * start) placed at its start, the api's started_at, less the first phase's. A heat phase's
 * line is its MB/s (read or write, as it ran); a cool phase moves nothing: 0 MB/s. The
 * temperature is every sample's reading (null where the drive has no sensor: a gap).
 */
export function thermalTimeline(
  steps: readonly Step[],
  samples: ReadonlyMap<number, readonly Sample[]>,
): { points: ThermalPoint[]; phases: ThermalPhase[] } {
  const ordered = thermalSteps(steps);
  const origin = seconds(ordered[0]?.started_at);
  const points: ThermalPoint[] = [];
  const phases: ThermalPhase[] = [];
  if (origin === null) return { points, phases };
  for (const step of ordered) {
    const start = (seconds(step.started_at) ?? origin) - origin;
    const heat = step.params.role === "thermal-heat";
    const read = step.params.rw === "read";
    const own = samples.get(step.id) ?? [];
    if (points.length > 0) {
      // The line breaks between phases: the worker's few ms between steps are not a sample.
      points.push({ t: start, mbps: null, temp_c: null });
    }
    let last = 0;
    for (const s of own) {
      const mbps = heat ? (read ? s.read_mbps : s.write_mbps) : 0;
      points.push({
        t: start + s.t,
        mbps: Number.isFinite(mbps) ? mbps : null,
        temp_c: typeof s.temp_c === "number" && Number.isFinite(s.temp_c) ? s.temp_c : null,
      });
      last = s.t;
    }
    const finished = seconds(step.finished_at);
    const end = finished !== null ? Math.max(finished - origin, start + last) : start + last;
    const phase = Number(step.params.phase ?? 0);
    phases.push({
      step,
      kind: heat ? "heat" : "cool",
      label: `${heat ? "heat" : "cool"} ${phase}`,
      start,
      end,
    });
  }
  return { points, phases };
}

/** The findings table's rows: one per phase, the figures a review quotes. */
export interface ThermalRow {
  phase: string;
  figures: { label: string; value: string }[];
}

const fmt = (v: number | null | undefined, digits: number, unit: string) =>
  v === null || v === undefined ? "—" : `${v.toFixed(digits)} ${unit}`;

export function thermalRows(steps: readonly Step[]): ThermalRow[] {
  const rows: ThermalRow[] = [];
  for (const step of thermalSteps(steps)) {
    const f = step.findings?.thermal;
    if (!f) continue;
    if (f.kind === "heat") {
      const first = f.first_throttle;
      rows.push({
        phase: `heat ${f.phase}`,
        figures: [
          {
            label: "first throttle",
            value: first
              ? `${first.at_s.toFixed(1)} s, ${fmt(first.temp_c, 1, "°C")}`
              : "none (no step-down)",
          },
          {
            label: "speed",
            value: first
              ? `${first.from_mbps.toFixed(0)} → ${first.to_mbps.toFixed(0)} MB/s`
              : fmt(f.mean_mbps, 0, "MB/s"),
          },
          ...(first?.heat ? [{ label: "cause", value: heatWords(first.heat) }] : []),
          { label: "peak", value: fmt(f.peak_c, 1, "°C") },
          {
            label: "above WCTEMP",
            value:
              f.above_wctemp_s === null || f.above_wctemp_s === undefined
                ? `unknown: ${f.above_wctemp_note ?? "no threshold"}`
                : `${f.above_wctemp_s.toFixed(0)} s (WCTEMP ${fmt(f.wctemp_c, 0, "°C")})`,
          },
          {
            label: "ended by",
            value: f.stop === "temperature" ? "the temperature" : "its time",
          },
        ],
      });
    } else {
      rows.push({
        phase: `cool ${f.phase}`,
        figures: [
          {
            label: "time to recover",
            value:
              f.recover_s === null || f.recover_s === undefined
                ? f.target_c === null || f.target_c === undefined
                  ? "unknown (no start temperature)"
                  : `not back to ${f.target_c.toFixed(1)} °C`
                : `${f.recover_s.toFixed(1)} s to ${fmt(f.target_c, 1, "°C")}`,
          },
          { label: "from", value: fmt(f.start_c, 1, "°C") },
          { label: "lowest", value: fmt(f.min_c, 1, "°C") },
          {
            label: "ended by",
            value: f.stop === "temperature" ? "the temperature" : "its time",
          },
        ],
      });
    }
  }
  return rows;
}

// Samples come about once a second: a gap wider than GAP_S, and than GAP_FACTOR times the
// line's usual spacing (a downsampled long run's points are further apart), is the time
// between two phases (the worker moving on), drawn as a break, not as a line across it.
export const GAP_S = 2.5;
const GAP_FACTOR = 3;

/** A line's points for Recharts, with a break (y null) where the samples have a gap. */
export function withBreaks(points: readonly [number, number][]): { x: number; y: number | null }[] {
  const steps = points.slice(1).map(([x], i) => x - points[i]![0]).sort((a, b) => a - b);
  const usual = steps.length ? steps[Math.floor(steps.length / 2)]! : 0;
  const gap = Math.max(GAP_S, GAP_FACTOR * usual);
  const out: { x: number; y: number | null }[] = [];
  points.forEach(([x, y], i) => {
    const prev = points[i - 1];
    if (prev && x - prev[0] > gap) out.push({ x: (x + prev[0]) / 2, y: null });
    out.push({ x, y });
  });
  return out;
}
