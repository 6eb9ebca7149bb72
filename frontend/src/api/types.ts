/**
 * API types used by the whole frontend. Every module imports api shapes from here, never
 * from the generated file directly.
 *
 * The api models are aliases of the types generated from the api's OpenAPI schema
 * (`make client` writes openapi.json and src/api/schema.d.ts; neither is edited by hand). What
 * is written here by hand is only what that schema does not describe:
 * - the JSON Schema of a plan's parameters (the api sends it as an open object),
 * - the data of the `samples` event on the SSE stream (not an OpenAPI operation),
 * - the error body the api's error handlers return.
 */

import type { components } from "./schema";

type Schemas = components["schemas"];

export type Health = Schemas["Health"];
/** The signed-in user (GET /api/auth/me). */
export type Me = Schemas["Me"];
export type HealthCheck = Schemas["Check"];

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

/** A plan's `params_schema`: the pydantic JSON Schema of its parameters. */
export interface ParamsSchema {
  type?: string;
  title?: string;
  properties?: Record<string, ParamSchemaProperty>;
  required?: string[];
  $defs?: Record<string, ParamSchemaProperty>;
  [extra: string]: unknown;
}

/** PlanOut, with `params_schema` (an open object in the OpenAPI schema) typed as JSON Schema. */
export type Plan = Omit<Schemas["PlanOut"], "params_schema"> & { params_schema: ParamsSchema };

export type BenchRef = Schemas["BenchRef"];
export type DriveModel = Schemas["DriveModelOut"];
export type Drive = Schemas["DriveOut"];

export type RunSummary = Schemas["RunSummary"];
export type RunDetail = Schemas["RunOut"];
export type RunStatus = RunSummary["status"];

export type Step = Schemas["StepOut"];
export type StepStatus = Step["status"];
export type StepResult = Schemas["ResultOut"];

/** One per-second fio sample. MB/s are decimal (10^6 bytes/s). */
export type Sample = Schemas["SampleOut"];

/**
 * Data of the `samples` event on GET /api/runs/{id}/events: the new samples of one step, as
 * GET /api/runs/{id}/samples returns them. (The schema's own `SampleBatch` is what a bench
 * worker uploads, raw byte and I/O counts; it is not this.)
 */
export interface SampleBatch {
  step_id: Sample["step_id"];
  samples: Sample[];
}

/**
 * Data of the `progress` event on GET /api/runs/{id}/events, sent with every sample batch and
 * heartbeat: how far the run and its running step are (fractions 0..1).
 */
export interface RunProgress {
  run_id: number;
  progress: number;
  step_id: number;
  step_progress: number;
}

export type JobFile = Schemas["JobOut"];

/**
 * Error body of every failing api call: `detail` is a message a person can act on, `field`
 * names the request field at fault when there is one. FastAPI's own validation errors (a
 * list in `detail`) are mapped to a message by the api, but are still understood here.
 */
export interface ApiErrorBody {
  detail: string | { msg: string; loc?: (string | number)[] }[];
  field?: string;
}

// --- Lab, queue, run and catalog pages ----------------------------------------------------

export type Bench = Schemas["BenchSummary"];
export type BenchToken = Schemas["BenchToken"];
export type PlanEstimate = Schemas["PlanEstimate"];
export type StepEstimate = Schemas["StepEstimate"];
export type RunCreate = Schemas["RunCreate"];
export type DriveCreate = Schemas["DriveCreate"];
export type DriveUpdate = Schemas["DriveUpdate"];
export type CatalogModel = Schemas["CatalogModelOut"];
export type ModelCreate = Schemas["ModelCreate"];
export type ModelUpdate = Schemas["ModelUpdate"];
export type Price = Schemas["PriceOut"];
export type PriceCreate = Schemas["PriceCreate"];
export type PriceUpdate = Schemas["PriceUpdate"];
export type PriceImportResult = Schemas["ImportResult"];

/**
 * GET /api/runs/{id}/series (its response is not described in the OpenAPI schema): one
 * metric of one step, downsampled on the server keeping each bucket's min and max.
 */
export interface StepSeries {
  run_id: number;
  step_id: number;
  step: string;
  metric: string;
  unit: string;
  /** "t_s": seconds since the step started; "position_pct": % of the span (HD Tach passes). */
  x: "t_s" | "position_pct";
  total_points: number;
  downsampled: boolean;
  points: [number, number][];
}

// --- Repeats, significance and firmware history (issue 28) ---------------------------------

export type RepeatSpec = Schemas["RepeatSpec"];
export type Series = Schemas["SeriesOut"];
export type SeriesStatus = Series["status"];
export type SeriesFigure = Schemas["SeriesFigure"];
/** Whether the drive under review differs from another: verdict, difference and its interval. */
export type VersusReview = Schemas["VersusReview"];
export type Variation = Schemas["Variation"];
export type FirmwareHistory = Schemas["FirmwareHistory"];
export type FirmwareMetric = Schemas["FirmwareMetric"];
export type FirmwareChange = Schemas["FirmwareChange"];
