import { ApiError } from "../../api/client";
import type { ParamSchemaProperty, ParamsSchema } from "../../api/types";
import { resolve, variants } from "../params-table/params-utils";

/** How a plan parameter is entered. */
export type FieldKind = "boolean" | "integer" | "number" | "enum" | "multi" | "text" | "json";

export interface FieldSpec {
  name: string;
  /** "Runtime S" -> shown as the name itself, which is what the api and CLI call it. */
  label: string;
  kind: FieldKind;
  description: string;
  /** null (an empty input) is a valid value: "empty means the whole drive". */
  nullable: boolean;
  required: boolean;
  minimum?: number;
  maximum?: number;
  /** Regular expression the text must match (sizes: ^\d+[kKmMgGtT]?$). */
  pattern?: string;
  /** Allowed values of an enum or of the items of a multi-choice list. */
  options: (string | number)[];
  minItems?: number;
  /** The review default, as the schema states it (undefined: none). */
  default: unknown;
}

/** What a form input holds: text for numbers and text, a flag, or the ticked choices. */
export type FieldValue = string | boolean | string[];
export type FormValues = Record<string, FieldValue>;
export type FieldErrors = Record<string, string>;

function typesOf(v: ParamSchemaProperty): string[] {
  return Array.isArray(v.type) ? v.type : v.type ? [v.type] : [];
}

/** One form field per schema property, in the schema's order. */
export function schemaFields(schema: ParamsSchema | null | undefined): FieldSpec[] {
  if (!schema?.properties) return [];
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, raw]) => {
    const prop = resolve(raw, schema);
    const all = variants(prop, schema);
    const nullable = all.some((v) => typesOf(v).includes("null") || v.type === "null");
    const main = all.find((v) => !typesOf(v).includes("null") && v.type !== "null") ?? prop;
    const types = typesOf(main).filter((t) => t !== "null");
    const items = main["items"] ? resolve(main["items"] as ParamSchemaProperty, schema) : null;
    let kind: FieldKind;
    let options: (string | number)[] = [];
    if (main.enum) {
      kind = "enum";
      options = main.enum as (string | number)[];
    } else if (types.includes("boolean")) {
      kind = "boolean";
    } else if (types.includes("integer")) {
      kind = "integer";
    } else if (types.includes("number")) {
      kind = "number";
    } else if (types.includes("array") && items?.enum) {
      kind = "multi";
      options = items.enum as (string | number)[];
    } else if (types.includes("string")) {
      kind = "text";
    } else {
      kind = "json";
    }
    const spec: FieldSpec = {
      name,
      label: name,
      kind,
      description: prop.description ?? "",
      nullable,
      required: required.has(name),
      options,
      default: prop.default,
    };
    if (typeof main.minimum === "number") spec.minimum = main.minimum;
    if (typeof main.maximum === "number") spec.maximum = main.maximum;
    if (typeof main["pattern"] === "string") spec.pattern = main["pattern"] as string;
    if (typeof main["minItems"] === "number") spec.minItems = main["minItems"] as number;
    return spec;
  });
}

/** The input value that shows `value` (a schema default or a run's parameter). */
export function toFieldValue(field: FieldSpec, value: unknown): FieldValue {
  switch (field.kind) {
    case "boolean":
      return value === true;
    case "multi":
      return Array.isArray(value) ? value.map(String) : [];
    case "json":
      return value === undefined || value === null ? "" : JSON.stringify(value);
    default:
      return value === undefined || value === null ? "" : String(value);
  }
}

/** Every field at its review default (the schema's default). */
export function defaultValues(fields: readonly FieldSpec[]): FormValues {
  return Object.fromEntries(fields.map((f) => [f.name, toFieldValue(f, f.default)]));
}

/** The fields that differ from their review default. */
export function changedFields(fields: readonly FieldSpec[], values: FormValues): string[] {
  const defaults = defaultValues(fields);
  return fields
    .filter((f) => JSON.stringify(values[f.name]) !== JSON.stringify(defaults[f.name]))
    .map((f) => f.name);
}

function rangeError(field: FieldSpec, n: number): string | null {
  if (field.minimum !== undefined && n < field.minimum) {
    return `must be at least ${field.minimum}`;
  }
  if (field.maximum !== undefined && n > field.maximum) {
    return `must be at most ${field.maximum}`;
  }
  return null;
}

const SIZE_PATTERN = /\[kKmMgGtT\]/;

function patternHint(field: FieldSpec): string {
  if (field.pattern && SIZE_PATTERN.test(field.pattern)) {
    return "is not a size: use a whole number with k, m, g or t (64m, 8g)";
  }
  return `does not have the expected form (${field.pattern ?? ""})`;
}

/** One input's value as the api wants it, or the problem with it. */
function coerce(field: FieldSpec, raw: FieldValue | undefined): { value?: unknown; error?: string } {
  const empty = raw === undefined || (typeof raw === "string" && raw.trim() === "");
  if (field.kind === "boolean") return { value: raw === true };
  if (field.kind === "multi") {
    const picked = Array.isArray(raw) ? raw : [];
    if (field.minItems !== undefined && picked.length < field.minItems) {
      return { error: `pick at least ${field.minItems}` };
    }
    // Keep the schema's order, whatever order the boxes were ticked in.
    const value = field.options.filter((o) => picked.includes(String(o)));
    return { value };
  }
  if (empty) {
    if (field.nullable) return { value: null };
    return { error: "is required" };
  }
  const text = String(raw).trim();
  switch (field.kind) {
    case "integer":
    case "number": {
      const n = Number(text);
      if (!Number.isFinite(n)) return { error: "must be a number" };
      if (field.kind === "integer" && !Number.isInteger(n)) return { error: "must be a whole number" };
      const range = rangeError(field, n);
      return range ? { error: range } : { value: n };
    }
    case "enum": {
      const match = field.options.find((o) => String(o) === text);
      if (match === undefined) return { error: `must be one of ${field.options.join(", ")}` };
      return { value: match };
    }
    case "text": {
      if (field.pattern && !new RegExp(field.pattern).test(text)) return { error: patternHint(field) };
      return { value: text };
    }
    default: {
      try {
        return { value: JSON.parse(text) as unknown };
      } catch {
        return { error: "must be JSON" };
      }
    }
  }
}

/**
 * The params to send for the form's values, and the problems found before sending (the api
 * checks everything again; this only saves a round trip for the obvious ones).
 */
export function toParams(
  fields: readonly FieldSpec[],
  values: FormValues,
  exactlyOneOf: readonly (readonly string[])[] = [],
): { params: Record<string, unknown>; errors: FieldErrors } {
  const params: Record<string, unknown> = {};
  const errors: FieldErrors = {};
  for (const field of fields) {
    const { value, error } = coerce(field, values[field.name]);
    if (error) errors[field.name] = error;
    else params[field.name] = value;
  }
  // Parameters of which exactly one is given (a trace or a profile): said next to the last,
  // as the api says it, without asking the api.
  for (const group of exactlyOneOf) {
    const given = group.filter((name) => params[name] !== null && params[name] !== undefined);
    const last = group[group.length - 1];
    if (given.length !== 1 && last && !errors[last]) {
      errors[last] = `give exactly one of ${group.join(" and ")}`;
    }
  }
  return { params, errors };
}

/** The groups of parameters of which exactly one is given (the schema's x-exactly-one-of). */
export function exactlyOneOf(schema: ParamsSchema | null | undefined): string[][] {
  const groups = schema?.["x-exactly-one-of"];
  return Array.isArray(groups)
    ? groups.filter((g): g is string[] => Array.isArray(g) && g.every((n) => typeof n === "string"))
    : [];
}

/** Where an api error belongs on the queue form. */
export type ErrorTarget = { field: string } | { form: true };

/**
 * The form field an api error is about: "params.runtime_s" and "span" name a parameter,
 * "confirm_serial", "drive_id" and "plan" the form's own fields. FastAPI's own validation
 * errors carry `loc` (["body", "params", "runtime_s"]) instead.
 */
export function errorField(error: unknown, paramNames: readonly string[]): string | null {
  if (!(error instanceof ApiError)) return null;
  let path: string[] = [];
  if (error.field) {
    path = error.field.split(".");
  } else {
    const list = (error.body as { errors?: { loc?: unknown[] }[] } | null)?.errors;
    const loc = Array.isArray(list) ? list[0]?.loc : undefined;
    if (Array.isArray(loc)) path = loc.map(String).filter((p) => p !== "body");
  }
  if (path[0] === "params") path = path.slice(1);
  const head = path[0];
  if (!head) return null;
  if (paramNames.includes(head)) return head;
  if (head === "confirm_serial" || head === "drive_id" || head === "plan") return head;
  return null;
}

/**
 * The part of an api message about one parameter: "invalid parameters for plan x: a: bad;
 * b: worse" -> "bad" for a. Messages about one thing are kept whole.
 */
export function fieldMessage(message: string, name: string): string {
  const body = message.replace(/^invalid parameters for plan [^:]+: /, "");
  const parts = body.split("; ");
  const mine = parts.find((p) => p.startsWith(`${name}: `) || p.startsWith(`${name}.`));
  if (mine) return mine.slice(mine.indexOf(": ") + 2);
  return body;
}

const FIO_SIZE = /^(\d{1,20})([kKmMgGtT]?)$/;
const BINARY: Record<string, number> = { "": 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30, t: 2 ** 40 };

/** Bytes of a size in fio's syntax (`8g` = 8 GiB), or null if it is not one. */
export function parseFioSize(text: string): number | null {
  const m = FIO_SIZE.exec(text.trim());
  if (!m) return null;
  return Number(m[1]) * BINARY[m[2]!.toLowerCase()]!;
}

function binary(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${Number(v.toFixed(2))} ${units[i]}`;
}

/** Spans (span, seq_span...) larger than the drive, said as the api says it, before asking
 * it: a plan's review default (8g) on a 4 GiB drive, or a run's parameters queued again on a
 * smaller drive. */
export function spanErrors(
  fields: readonly FieldSpec[],
  values: FormValues,
  capacityBytes: number | null | undefined,
): FieldErrors {
  const errors: FieldErrors = {};
  if (!capacityBytes) return errors;
  for (const f of fields) {
    if (!/(^|_)span$/.test(f.name)) continue;
    const raw = values[f.name];
    if (typeof raw !== "string" || !raw.trim()) continue;
    const n = parseFioSize(raw);
    if (n !== null && n > capacityBytes) {
      errors[f.name] =
        `${raw.trim()} (${binary(n)}) is larger than the drive (${binary(capacityBytes)}): ` +
        `choose a smaller ${f.name}`;
    }
  }
  return errors;
}

/** A run's parameters as the form's values: each field the run had, the review default for
 * the others (a parameter the plan gained since). */
export function valuesFromRun(
  fields: readonly FieldSpec[],
  params: Record<string, unknown>,
): FormValues {
  return Object.fromEntries(
    fields.map((f) => [f.name, toFieldValue(f, f.name in params ? params[f.name] : f.default)]),
  );
}
