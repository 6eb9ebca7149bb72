import { ApiError } from "../../api/client";

const UNITS: Record<string, number> = { "": 1, b: 1, kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12 };

/**
 * A capacity as typed, in decimal units as printed on the drive: "1000204886016",
 * "500 GB", "1.92TB" -> bytes. Null when it is not one.
 */
export function parseCapacity(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?b?)\s*$/i.exec(text);
  if (!m) return null;
  const unit = m[2]!.toLowerCase();
  const bytes = Number(m[1]) * UNITS[unit.endsWith("b") || unit === "" ? unit : `${unit}b`]!;
  return Number.isFinite(bytes) && bytes > 0 ? Math.round(bytes) : null;
}

/** "" -> null, else trimmed: optional text fields clear with an empty input. */
export const optionalText = (v: string | undefined): string | null => (v?.trim() ? v.trim() : null);

export type Values = Record<string, string>;
export type Errors = Record<string, string>;

/** Fields the reviewer must fill, by name: "is required" for each empty one. */
export function requireFields(values: Values, names: readonly string[]): Errors {
  const errors: Errors = {};
  for (const n of names) if (!values[n]?.trim()) errors[n] = "is required";
  return errors;
}

/** Only what changed from `initial`, as the api's PATCH wants it (null clears). */
export function changedValues(initial: Values, values: Values): Values {
  return Object.fromEntries(Object.entries(values).filter(([k, v]) => (initial[k] ?? "") !== v));
}

/**
 * The form field an api error is about and its message: the api's `field`, or the last
 * part of a validation error's loc (["body", "capacity_bytes"]). Null field: about the form.
 */
export function apiFieldError(error: unknown): { field: string | null; message: string } {
  const message = error instanceof Error ? error.message : String(error);
  if (!(error instanceof ApiError)) return { field: null, message };
  if (error.field) return { field: error.field.split(".").at(-1) ?? null, message };
  const list = (error.body as { errors?: { loc?: unknown[]; msg?: unknown }[] } | null)?.errors;
  const first = Array.isArray(list) ? list[0] : undefined;
  if (first && Array.isArray(first.loc)) {
    const loc = first.loc.map(String).filter((p) => p !== "body");
    const field = loc.length > 0 ? loc[0]! : null;
    return { field, message: typeof first.msg === "string" ? first.msg : message };
  }
  return { field: null, message };
}

export interface ImportProblem {
  line: number;
  problems: string[];
}

/** The bad rows of a refused CSV import (the 422's `errors`), each with its line number. */
export function importProblems(error: unknown): ImportProblem[] {
  if (!(error instanceof ApiError)) return [];
  const list = (error.body as { errors?: unknown } | null)?.errors;
  if (!Array.isArray(list)) return [];
  return list.filter(
    (e): e is ImportProblem =>
      typeof e === "object" && e !== null && typeof (e as ImportProblem).line === "number",
  );
}

/** Today as YYYY-MM-DD in local time (a price's observed_on default). */
export function today(now: Date = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}
