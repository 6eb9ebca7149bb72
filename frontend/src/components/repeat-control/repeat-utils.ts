import { ApiError } from "../../api/client";
import type { RepeatSpec } from "../../api/types";

export type RepeatMode = "once" | "times" | "stable";

/** The repeat control's inputs, as typed. */
export interface RepeatValues {
  mode: RepeatMode;
  times: string;
  maxRuns: string;
  minRuns: string;
  rsdPct: string;
}

/** The inputs of the control, by the api's names. */
export type RepeatField = "times" | "max_runs" | "min_runs" | "rsd_pct";

export const REPEAT_DEFAULTS: RepeatValues = {
  mode: "once",
  times: "3",
  maxRuns: "10",
  minRuns: "3",
  rsdPct: "2.5",
};

const RUNS_MIN = 2;
const RUNS_MAX = 50;

function wholeRuns(raw: string, what: string): { value: number } | { error: string } {
  const text = raw.trim();
  if (!/^\d+$/.test(text)) return { error: `${what}: a whole number of runs (${RUNS_MIN}-${RUNS_MAX}).` };
  const value = Number(text);
  if (value < RUNS_MIN || value > RUNS_MAX) {
    return { error: `${what}: between ${RUNS_MIN} and ${RUNS_MAX} runs, not ${value}.` };
  }
  return { value };
}

/**
 * The `repeat` of POST /api/runs from the control (null: run once), or what to fix, per field.
 * The api checks the same again; its messages are shown at the field too (repeatApiError).
 */
export function toRepeat(values: RepeatValues): {
  repeat: RepeatSpec | null;
  errors: Partial<Record<RepeatField | "repeat", string>>;
} {
  if (values.mode === "once") return { repeat: null, errors: {} };
  if (values.mode === "times") {
    const times = wholeRuns(values.times, "Times");
    return "error" in times
      ? { repeat: null, errors: { times: times.error } }
      : {
          // min_runs and max_runs only matter until stable; a series of N times stores N for both.
          repeat: { times: times.value, until_stable: false, min_runs: times.value, max_runs: times.value, rsd_pct: 2.5 },
          errors: {},
        };
  }
  const errors: Partial<Record<RepeatField | "repeat", string>> = {};
  const max = wholeRuns(values.maxRuns, "At most");
  const min = wholeRuns(values.minRuns, "At least");
  if ("error" in max) errors.max_runs = max.error;
  if ("error" in min) errors.min_runs = min.error;
  const rsdText = values.rsdPct.trim();
  const rsd = Number(rsdText);
  if (rsdText === "" || !Number.isFinite(rsd) || rsd <= 0 || rsd > 100) {
    errors.rsd_pct = "RSD threshold: a percentage over 0 and at most 100, e.g. 2.5.";
  }
  if ("value" in max && "value" in min && min.value > max.value) {
    errors.min_runs = `At least ${min.value} runs is more than at most ${max.value}.`;
  }
  if (Object.keys(errors).length > 0 || !("value" in max) || !("value" in min)) {
    return { repeat: null, errors };
  }
  return {
    repeat: { until_stable: true, max_runs: max.value, min_runs: min.value, rsd_pct: rsd },
    errors: {},
  };
}

const FIELDS: readonly string[] = ["times", "max_runs", "min_runs", "rsd_pct"];

/**
 * An api error about `repeat` (a 422 of POST /api/runs): the field it names (or "repeat" for
 * the whole spec) and its message; null for errors about anything else.
 */
export function repeatApiError(error: unknown): { field: RepeatField | "repeat"; message: string } | null {
  if (!(error instanceof ApiError)) return null;
  let path: string[] = [];
  if (error.field) {
    path = error.field.split(".");
  } else {
    const list = (error.body as { errors?: { loc?: unknown[]; msg?: unknown }[] } | null)?.errors;
    const first = Array.isArray(list) ? list.find((e) => Array.isArray(e.loc) && e.loc.map(String).includes("repeat")) : undefined;
    if (first && Array.isArray(first.loc)) {
      path = first.loc.map(String).filter((p) => p !== "body");
      const msg = typeof first.msg === "string" ? first.msg.replace(/^Value error, /, "") : error.message;
      const field = FIELDS.includes(path[1] ?? "") ? (path[1] as RepeatField) : "repeat";
      return { field, message: msg };
    }
  }
  if (path[0] !== "repeat") return null;
  const field = FIELDS.includes(path[1] ?? "") ? (path[1] as RepeatField) : "repeat";
  return { field, message: error.message };
}
