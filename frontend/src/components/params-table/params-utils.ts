import type { ParamSchemaProperty, ParamsSchema } from "../../api/types";

export interface ParamRow {
  name: string;
  /** "integer", "string | null", "array of integer", "enum" values are in `allowed` */
  type: string;
  /** Allowed values or range: "1 – 64", "≥ 1", "one of 4k, 128k"; "" when unconstrained. */
  allowed: string;
  /** Default as text; null when there is no default. */
  default: string | null;
  description: string;
  required: boolean;
}

const MAX_REF_DEPTH = 8;

/** Follow a local "#/$defs/Name" (or "#/definitions/Name") reference, merging siblings. */
export function resolve(prop: ParamSchemaProperty, root: ParamsSchema, depth = 0): ParamSchemaProperty {
  if (!prop.$ref || depth > MAX_REF_DEPTH) return prop;
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(prop.$ref);
  const defs = (match?.[1] === "definitions" ? root["definitions"] : root.$defs) as
    Record<string, ParamSchemaProperty> | undefined;
  const target = match ? defs?.[match[2]!] : undefined;
  if (!target) return prop;
  const { $ref: _ref, ...siblings } = prop;
  return { ...resolve(target, root, depth + 1), ...siblings };
}

/** The property's variants: its anyOf/oneOf members, or itself. */
export function variants(prop: ParamSchemaProperty, root: ParamsSchema): ParamSchemaProperty[] {
  const list = prop.anyOf ?? (prop["oneOf"] as ParamSchemaProperty[] | undefined) ?? null;
  if (!list) return [prop];
  return list.map((v) => resolve(v, root));
}

function typeOf(prop: ParamSchemaProperty, root: ParamsSchema): string {
  const names: string[] = [];
  for (const v of variants(prop, root)) {
    const types = Array.isArray(v.type) ? v.type : v.type ? [v.type] : [];
    if (types.length === 0 && v.enum) types.push(inferEnumType(v.enum));
    if (types.length === 0 && "const" in v) types.push(typeof v["const"]);
    for (const t of types) {
      const items = v["items"] as ParamSchemaProperty | undefined;
      const label = t === "array" && items ? `array of ${typeOf(resolve(items, root), root)}` : t;
      if (!names.includes(label)) names.push(label);
    }
  }
  // "null" last, so Optional[int] reads "integer | null".
  names.sort((a, b) => Number(a === "null") - Number(b === "null"));
  return names.join(" | ") || "any";
}

function inferEnumType(values: unknown[]): string {
  const kinds = new Set(values.map((v) => (typeof v === "number" ? "number" : typeof v)));
  return kinds.size === 1 ? [...kinds][0]! : "any";
}

function valueText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function allowedOf(prop: ParamSchemaProperty, root: ParamsSchema): string {
  const parts: string[] = [];
  for (const v of variants(prop, root)) {
    if (v.enum) parts.push(`one of ${v.enum.map(valueText).join(", ")}`);
    const min = v.minimum ?? (v["exclusiveMinimum"] as number | undefined);
    const max = v.maximum ?? (v["exclusiveMaximum"] as number | undefined);
    const minOp = v.minimum !== undefined ? "≥" : ">";
    const maxOp = v.maximum !== undefined ? "≤" : "<";
    if (v.minimum !== undefined && v.maximum !== undefined) {
      parts.push(`${v.minimum} – ${v.maximum}`);
    } else {
      if (min !== undefined) parts.push(`${minOp} ${min}`);
      if (max !== undefined) parts.push(`${maxOp} ${max}`);
    }
  }
  return parts.join(", ");
}

/** Rows for the plan parameter table, in the schema's property order. */
export function paramRows(schema: ParamsSchema | null | undefined): ParamRow[] {
  if (!schema?.properties) return [];
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, raw]) => {
    const prop = resolve(raw, schema);
    return {
      name,
      type: typeOf(prop, schema),
      allowed: allowedOf(prop, schema),
      default: "default" in prop ? valueText(prop.default) : null,
      description: prop.description ?? "",
      required: required.has(name),
    };
  });
}
