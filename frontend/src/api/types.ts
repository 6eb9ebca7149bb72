/**
 * API types used by the whole frontend. Every module imports api shapes from here, never
 * from the generated file directly.
 *
 * Until the backend commits frontend/openapi.json these are written by hand to match the
 * contract. Once it exists, run `npm run client` (writes src/api/schema.d.ts) and replace the
 * hand-written declarations below with aliases to the generated ones, for example:
 *
 *   import type { components } from "./schema";
 *   type Schemas = components["schemas"];
 *   export type RunDetail = Schemas["RunDetail"];
 *
 * That swap is a change to this file only.
 */

export type HealthStatus = "ok" | "degraded";

export interface HealthCheck {
  ok: boolean;
  detail: string;
}

export interface Health {
  status: HealthStatus;
  version: string;
  database: HealthCheck;
  broker: HealthCheck;
}

/** One property of a plan's parameter JSON schema (as pydantic emits it). */
export interface ParamSchemaProperty {
  type?: string | string[];
  default?: unknown;
  description?: string;
  title?: string;
  minimum?: number;
  maximum?: number;
  enum?: unknown[];
  anyOf?: ParamSchemaProperty[];
  $ref?: string;
  [extra: string]: unknown;
}

export interface ParamsSchema {
  type?: string;
  title?: string;
  properties?: Record<string, ParamSchemaProperty>;
  required?: string[];
  $defs?: Record<string, ParamSchemaProperty>;
  [extra: string]: unknown;
}

export interface Plan {
  key: string;
  title: string;
  description: string;
  destructive: boolean;
  params_schema: ParamsSchema;
}

export interface BenchRef {
  id: number;
  name: string;
  online: boolean;
}

export interface DriveModel {
  id: number;
  vendor: string;
  model: string;
  capacity_bytes: number;
  interface: string | null;
}

export interface Drive {
  id: number;
  serial: string;
  firmware: string | null;
  target_path: string;
  simulated: boolean;
  bench: BenchRef;
  model: DriveModel;
  active_run_id: number | null;
}

export type RunStatus = "queued" | "running" | "done" | "failed" | "cancelled" | "lost";

export interface RunSummary {
  id: number;
  plan: string;
  drive_id: number;
  drive_label: string;
  status: RunStatus;
  /** 0..1 */
  progress: number;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export type StepKind = "fio" | "purge" | "trim" | "idle" | "fill";

export type StepStatus = "pending" | "running" | "done" | "failed" | "cancelled" | "skipped";

export interface StepResult {
  metric: string;
  value: number;
  unit: string;
}

export interface Step {
  id: number;
  idx: number;
  kind: StepKind;
  name: string;
  status: StepStatus;
  /** 0..1 */
  progress: number;
  started_at: string | null;
  finished_at: string | null;
  error: string | null;
  results: StepResult[];
}

export interface RunDetail extends RunSummary {
  params: Record<string, unknown>;
  environment: Record<string, unknown>;
  steps: Step[];
}

/** One per-second fio sample. MB/s are decimal (10^6 bytes/s). */
export interface Sample {
  step_id: number;
  /** seconds since the step started, end of the interval */
  t: number;
  /** interval length in seconds */
  dt: number;
  read_mbps: number;
  write_mbps: number;
  read_iops: number;
  write_iops: number;
  read_lat_mean_us: number | null;
  write_lat_mean_us: number | null;
  read_lat_p99_us: number | null;
  write_lat_p99_us: number | null;
}

/** Data of the `samples` event on GET /api/runs/{id}/events. */
export interface SampleBatch {
  step_id: number;
  samples: Sample[];
}

export interface JobFile {
  step_id: number;
  idx: number;
  name: string;
  job_file: string;
  /** The fio command line the worker runs the job file with (not in the first contract). */
  command?: string;
}

/** Error body of every failing api call. FastAPI validation errors carry a list. */
export interface ApiErrorBody {
  detail: string | { msg: string; loc?: (string | number)[] }[];
}
