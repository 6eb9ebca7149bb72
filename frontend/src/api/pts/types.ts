/**
 * A SNIA PTS run's report (GET /api/runs/{id}/pts). The OpenAPI schema gives its envelope
 * (PtsReport); its header and sections are open objects there, so their shape is written out
 * here, as backend/pts/report.py builds them.
 */

import type { components } from "../schema";

export type PtsReportEnvelope = components["schemas"]["PtsReport"];

export interface PtsElement {
  /** fio job section name, e.g. "r65w35-4k". */
  name: string;
  label: string;
  bs: string;
  bs_bytes: number;
  mix: string;
  read_pct: number;
  access: "random" | "sequential";
}

export interface PtsTrack {
  element: string;
  metric: string;
  label: string;
  unit: string;
}

export interface PtsConvergence {
  steady: boolean;
  round: number | null;
  rounds: number;
  window: [number, number] | null;
  average: number | null;
  range_pct: number | null;
  slope_excursion_pct: number | null;
  /** [intercept, slope] of value = intercept + slope x round. */
  fit: [number, number] | null;
  excursion_pct: number;
  slope_pct: number;
  current: {
    window: [number, number] | null;
    steady: boolean;
    needs?: number;
    range_pct?: number | null;
    slope_excursion_pct?: number | null;
  };
}

export interface PtsRound {
  round: number;
  t_start_s: number;
  t_end_s: number;
  value: number;
  iops: number;
  written_bytes: number;
}

/** Each element's figures over the measurement window (µs for latencies). */
export type PtsRow = Record<string, number>;

export interface PtsPercentiles {
  ios: number;
  "99": number | null;
  "99.9": number | null;
  "99.99": number | null;
  "99.999": number | null;
  /** Percentile -> why it is left out (too few I/Os). */
  unsupported?: Record<string, string>;
}

export interface PtsSection {
  step_id: number;
  name: string;
  label: string;
  status: string;
  test: string;
  track: PtsTrack;
  elements: PtsElement[];
  profile: string | null;
  threads: number | null;
  iodepth: number | null;
  active_range_pct: number | null;
  active_bytes: number | null;
  element_s: number | null;
  max_rounds: number;
  values: number[];
  convergence: PtsConvergence;
  rounds: PtsRound[];
  window: [number, number] | null;
  table: Record<string, PtsRow> | null;
  /** Element -> direction ("read", "write", "all") -> [upper edge µs, share %]. */
  histograms: Record<string, Record<string, [number, number][]>> | null;
  percentiles: Record<string, Record<string, PtsPercentiles>> | null;
  stop: string | null;
  /** pts-latency: element -> [round, average µs, maximum µs] of every round. */
  element_rounds?: Record<string, [number, number | null, number | null][]>;
  capacity_bytes?: number;
  stop_write_bytes?: number;
  /** DIRTH, ECW, CBW: the test stimulus in words. */
  stimulus?: string;
  /** DIRTH, ECW: the demand-intensity figures of the sweep (backend.analysis.pts). */
  di?: PtsDemandIntensity | null;
  /** DIRTH, ECW: where the histograms at the three IOPS points come from, in words (the
   * dedicated run at each point, or, for a run made before those existed, the sweep). */
  histograms_source?: string;
  /** DIRTH, ECW: the dedicated runs at the three points; absent for a run made before them. */
  point_runs?: PtsPointRuns;
}

export interface PtsPointRuns {
  step_id: number | null;
  status: string;
  point_s: number;
  /** Each run's round and its point's figures in it (as a round's element). */
  runs: (PtsRow & { round: number; name: string })[];
}

export interface PtsDiPoint {
  /** fio job section: "tc4-qd16". */
  name: string;
  tc: number;
  qd: number;
  /** Total outstanding I/O, TC x QD. */
  toc: number;
  iops: number;
  art_us: number | null;
  mrt_us: number | null;
}

export interface PtsDemandIntensity {
  points: PtsDiPoint[];
  art_ceiling_us: number;
  max: PtsDiPoint | null;
  mid: PtsDiPoint | null;
  min: PtsDiPoint | null;
  saturation_toc: number | null;
  peak_iops: number | null;
  /** Seconds of the dedicated run at each point; null for a run made before those. */
  point_s?: number | null;
  finding?: string;
}

export interface PtsHeader {
  sponsor: string | null;
  drive: string;
  vendor: string;
  model: string;
  serial: string;
  firmware: string | null;
  capacity_bytes: number;
  tested_bytes: number | null;
  interface: string | null;
  purge: { method: string; seconds: number; detail: string } | null;
  preconditioning: string[];
  write_cache: {
    supported: boolean;
    method: string;
    before: boolean | null;
    after: boolean | null;
    asked: boolean | null;
    detail: string;
  } | null;
  profile: string | null;
  active_range_pct: number | null;
  threads: number | null;
  iodepth: number | null;
  /** A demand-intensity sweep's TC x QD and its preconditioning's (DIRTH, ECW); null else. */
  demand?: string | null;
  convergence: string;
  host: Record<string, string | number | null>;
  fio_version: string | null;
  ioengine: string | null;
  randseed: number | null;
  started_at: string | null;
  finished_at: string | null;
}

export interface HirSet {
  wait_s: number;
  step_id: number;
  status: string;
  cycles: number;
  planned_cycles: number;
  start_s: number;
  end_s: number;
  /** [start s, end s, IOPS] of each write period. */
  bursts: [number, number, number][];
  burst_iops: number | null;
  baseline: {
    step_id: number;
    status: string;
    start_s: number | null;
    seconds: number | null;
    iops: number | null;
  } | null;
}

export interface XsrLevel {
  /** Seconds from the stimulus's start (its own fio clock). */
  start_s: number;
  end_s: number;
  mbps: number;
}

export interface XsrStimulus {
  step_id: number;
  name: string;
  role: string;
  label: string;
  status: string;
  start_s: number | null;
  seconds: number | null;
  mbps: number | null;
  lat_mean_us: number | null;
  lat_max_us: number | null;
  /** From the stimulus's start to the start of the level it settled at (null until it ends). */
  recovery_s: number | null;
  settled_mbps: number | null;
  initial_mbps: number | null;
  held_s: number | null;
  levels: XsrLevel[];
  min_time_s: number | null;
  min_rel_change: number | null;
  /** [s since the first stimulus began, value], downsampled keeping minima and maxima. */
  mbps_series: [number, number][];
  lat_series: [number, number][];
  lat_max_series: [number, number][];
}

export interface XsrTransition {
  from: string;
  to: string;
  label: string;
  /** When the new stimulus began, s since the first stimulus began. */
  at_s: number | null;
  recovery_s: number | null;
  before_mbps: number | null;
  settled_mbps: number | null;
  ratio: number | null;
}

export interface PtsReport extends Omit<PtsReportEnvelope, "header" | "sections" | "hir" | "xsr"> {
  header: PtsHeader;
  sections: PtsSection[];
  hir?: { baseline_iops: number | null; sets: HirSet[] } | null;
  xsr?: { stimuli: XsrStimulus[]; transitions: XsrTransition[] } | null;
}

/** The `round` event of a run's SSE stream, when a PTS round ends. */
export interface PtsRoundEvent {
  step_id: number;
  round: number;
  values: number[];
  convergence: PtsConvergence;
}
