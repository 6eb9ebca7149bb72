import type { components } from "../schema";

type Schemas = components["schemas"];

export type Comparison = Schemas["Comparison"];
export type CompareMetric = Schemas["CompareMetric"];
export type CompareRow = Schemas["CompareRow"];
export type Pair = Schemas["Pair"];
export type Article = Schemas["Article"];
export type ArticleRow = Schemas["ArticleRow"];
export type ArticleGroup = Schemas["ArticleGroup"];
export type ArticleDrive = Schemas["ArticleDrive"];
export type ArticleDiff = Schemas["ArticleDiff"];
export type PairMetric = Schemas["PairMetric"];
export type ValueComparison = Schemas["ValueComparison"];
export type CompareSeries = Schemas["CompareSeries"];
export type DriveSeries = Schemas["DriveSeries"];
export type StepSeries = Schemas["StepSeries"];
export type RunConditions = Schemas["RunConditions"];

/** Plans the compare page draws series of (GET /api/compare/series). */
export type SeriesPlan =
  | "consistency"
  | "hdtach"
  | "trim-validation"
  | "write-hitching"
  | "trim-performance"
  | "transfer-size"
  | "thermal"
  | "mixed";

export interface SeriesRequest {
  drives: number[];
  plan: SeriesPlan;
  points?: number;
  opPercent?: number;
  metric?: string;
}

export type QosFigures = Schemas["QosFigures"];
export type RunQos = Schemas["RunQos"];
export type StepQos = Schemas["StepQos"];
export type SweepWorkload = Schemas["SweepWorkload"];
export type SweepPoint = Schemas["SweepPoint"];
export type StepLatency = Schemas["StepLatencyOut"];
export type LatencyDistribution = Schemas["Distribution"];
export type CompareLatency = Schemas["CompareLatency"];
export type DriveLatency = Schemas["DriveLatency"];
export type CompareSweeps = Schemas["CompareSweeps"];
export type DriveSweep = Schemas["DriveSweep"];
export type CompareCharts = Schemas["CompareCharts"];
