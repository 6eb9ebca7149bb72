import type { BadgeTone } from "../../components/badge/badge";
import type { Series, SeriesFigure, SeriesStatus } from "../../api/types";

const TONES: Record<SeriesStatus, BadgeTone> = {
  running: "info",
  stable: "ok",
  done: "ok",
  "not stable": "warn",
  stopped: "neutral",
};

export function seriesTone(status: SeriesStatus): BadgeTone {
  return TONES[status] ?? "neutral";
}

/** "/series/12" -> 12; anything else: null. */
export function parseSeriesId(raw: string | undefined): number | null {
  return raw && /^\d+$/.test(raw) && Number(raw) > 0 ? Number(raw) : null;
}

/** How the series repeats, in words. */
export function modeText(series: Pick<Series, "until_stable" | "max_runs" | "min_runs" | "rsd_pct">): string {
  if (!series.until_stable) return `${series.max_runs} times`;
  return (
    `until stable: every MB/s and IOPS figure's RSD under ${series.rsd_pct}%, ` +
    `at least ${series.min_runs} and at most ${series.max_runs} runs`
  );
}

/** Why the series is where it is: the api's reason once it ended, else where it stands. */
export function statusText(series: Pick<Series, "status" | "reason" | "runs" | "max_runs" | "until_stable">): string {
  if (series.reason) return series.reason;
  if (series.status !== "running") return "";
  const done = series.runs.filter((r) => r.status === "done").length;
  const current = series.runs.find((r) => r.status === "running" || r.status === "queued");
  const of = series.until_stable ? `at most ${series.max_runs}` : String(series.max_runs);
  const now = current
    ? `repeat ${current.series_index ?? series.runs.length} of ${of} is ${current.status}`
    : `repeat ${series.runs.length + 1} of ${of} is being queued`;
  return `${now}; ${done} finished`;
}

/** A figure whose run-to-run variation is at or over the series' threshold. */
export function overThreshold(figure: Pick<SeriesFigure, "rsd_pct">, thresholdPct: number): boolean {
  return figure.rsd_pct !== null && figure.rsd_pct !== undefined && figure.rsd_pct >= thresholdPct;
}

/** The runs the figures' values belong to: the finished ones, in series order. */
export function figureRuns<R extends { status: string; series_index?: number | null }>(runs: R[]): R[] {
  return runs
    .filter((r) => r.status === "done")
    .sort((a, b) => (a.series_index ?? 0) - (b.series_index ?? 0));
}

/** An RSD as the page shows it: 1.234 -> "1.23%". */
export function formatRsd(pct: number | null | undefined): string {
  if (pct === null || pct === undefined || !Number.isFinite(pct)) return "—";
  return `${pct.toFixed(2)}%`;
}
