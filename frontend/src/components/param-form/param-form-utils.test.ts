import { describe, expect, it } from "vitest";
import { ApiError } from "../../api/client";
import type { ParamsSchema } from "../../api/types";
import {
  changedFields,
  defaultValues,
  exactlyOneOf,
  errorField,
  fieldMessage,
  parseFioSize,
  schemaFields,
  spanErrors,
  toParams,
  valuesFromRun,
  type FieldSpec,
} from "./param-form-utils";

const SIZE = "^\\d+[kKmMgGtT]?$";

// As the api sends four-corners' schema (pydantic), trimmed to the kinds of field it has.
const SCHEMA: ParamsSchema = {
  type: "object",
  properties: {
    span: { type: "string", default: "8g", pattern: SIZE, description: "LBA span" },
    seq_span: { anyOf: [{ type: "string", pattern: SIZE }, { type: "null" }], default: null },
    runtime_s: { type: "integer", default: 180, minimum: 1, maximum: 3600 },
    patterns: {
      type: "array",
      items: { enum: ["incompressible", "compressible"], type: "string" },
      minItems: 1,
      default: ["incompressible", "compressible"],
    },
    prewrite: { type: "boolean", default: true },
    ioengine: { type: "string", enum: ["libaio", "io_uring"], default: "libaio" },
    ratio: { type: "number", default: 0.5 },
    profile: { anyOf: [{ type: "string", enum: ["heavy", "light"] }, { type: "null" }] },
    trace_id: { anyOf: [{ type: "integer", minimum: 1 }, { type: "null" }], default: null },
  },
};

describe("schemaFields", () => {
  const fields = schemaFields(SCHEMA);
  const byName = Object.fromEntries(fields.map((f) => [f.name, f]));

  it("keeps the schema's order and picks an input per type", () => {
    expect(fields.map((f) => [f.name, f.kind])).toEqual([
      ["span", "text"],
      ["seq_span", "text"],
      ["runtime_s", "integer"],
      ["patterns", "multi"],
      ["prewrite", "boolean"],
      ["ioengine", "enum"],
      ["ratio", "number"],
      ["profile", "enum"],
      ["trace_id", "integer"],
    ]);
  });

  it("reads ranges, patterns, choices and nullability, through anyOf too", () => {
    expect(byName.runtime_s).toMatchObject({ minimum: 1, maximum: 3600, nullable: false });
    expect(byName.seq_span).toMatchObject({ pattern: SIZE, nullable: true });
    expect(byName.trace_id).toMatchObject({ minimum: 1, nullable: true });
    expect(byName.patterns).toMatchObject({ options: ["incompressible", "compressible"], minItems: 1 });
    expect(byName.profile).toMatchObject({ options: ["heavy", "light"], nullable: true });
    expect(byName.span!.description).toBe("LBA span");
  });

  it("has nothing for a missing schema", () => {
    expect(schemaFields(undefined)).toEqual([]);
    expect(schemaFields({})).toEqual([]);
  });
});

describe("defaultValues and toParams", () => {
  const fields = schemaFields(SCHEMA);

  it("fills in every review default and sends them back as the api's types", () => {
    const values = defaultValues(fields);
    expect(values).toMatchObject({
      span: "8g",
      seq_span: "",
      runtime_s: "180",
      patterns: ["incompressible", "compressible"],
      prewrite: true,
      ioengine: "libaio",
      profile: "",
    });
    const { params, errors } = toParams(fields, values);
    expect(errors).toEqual({});
    expect(params).toEqual({
      span: "8g",
      seq_span: null,
      runtime_s: 180,
      patterns: ["incompressible", "compressible"],
      prewrite: true,
      ioengine: "libaio",
      ratio: 0.5,
      profile: null,
      trace_id: null,
    });
  });

  it("coerces what was typed, trimming spaces and keeping the schema's order of choices", () => {
    const values = {
      ...defaultValues(fields),
      span: " 64m ",
      runtime_s: "3",
      patterns: ["compressible", "incompressible"],
      prewrite: false,
      trace_id: "7",
    };
    const { params, errors } = toParams(fields, values);
    expect(errors).toEqual({});
    expect(params).toMatchObject({
      span: "64m",
      runtime_s: 3,
      patterns: ["incompressible", "compressible"],
      prewrite: false,
      trace_id: 7,
    });
  });

  it("names each field that is wrong, with what to do", () => {
    const values = {
      ...defaultValues(fields),
      span: "64 MB",
      runtime_s: "0",
      ratio: "abc",
      patterns: [],
      trace_id: "1.5",
      ioengine: "posixaio",
    };
    const { errors } = toParams(fields, values);
    expect(errors).toEqual({
      span: "is not a size: use a whole number with k, m, g or t (64m, 8g)",
      runtime_s: "must be at least 1",
      ratio: "must be a number",
      patterns: "pick at least 1",
      trace_id: "must be a whole number",
      ioengine: "must be one of libaio, io_uring",
    });
    expect(toParams(fields, { ...defaultValues(fields), runtime_s: "4000" }).errors).toEqual({
      runtime_s: "must be at most 3600",
    });
    expect(toParams(fields, { ...defaultValues(fields), runtime_s: " " }).errors).toEqual({
      runtime_s: "is required",
    });
  });

  it("lists the fields changed from the review defaults", () => {
    const values = { ...defaultValues(fields), runtime_s: "3", prewrite: false };
    expect(changedFields(fields, values)).toEqual(["runtime_s", "prewrite"]);
    expect(changedFields(fields, defaultValues(fields))).toEqual([]);
  });
});

describe("errorField and fieldMessage", () => {
  const names = ["span", "runtime_s", "patterns"];

  it("maps the api's field to the form's", () => {
    expect(errorField(new ApiError(422, "x", "params.runtime_s"), names)).toBe("runtime_s");
    expect(errorField(new ApiError(422, "x", "params.patterns.0"), names)).toBe("patterns");
    expect(errorField(new ApiError(422, "x", "span"), names)).toBe("span");
    expect(errorField(new ApiError(422, "x", "confirm_serial"), names)).toBe("confirm_serial");
    expect(errorField(new ApiError(404, "x", "drive_id"), names)).toBe("drive_id");
    expect(errorField(new ApiError(422, "x", "params.other"), names)).toBeNull();
    expect(errorField(new ApiError(409, "busy"), names)).toBeNull();
    expect(errorField(new Error("x"), names)).toBeNull();
  });

  it("reads FastAPI's validation errors by their loc", () => {
    const body = { detail: "invalid request", errors: [{ loc: ["body", "params", "span"] }] };
    expect(errorField(new ApiError(422, "x", null, body), names)).toBe("span");
    const other = { detail: "invalid request", errors: [{ loc: ["body", "drive_id"] }] };
    expect(errorField(new ApiError(422, "x", null, other), names)).toBe("drive_id");
  });

  it("keeps the part of the message about the field", () => {
    const message =
      "invalid parameters for plan four-corners: runtime_s: Input should be greater than or " +
      "equal to 1; span: String should match pattern";
    expect(fieldMessage(message, "runtime_s")).toBe("Input should be greater than or equal to 1");
    expect(fieldMessage(message, "span")).toBe("String should match pattern");
    const whole = "span 9t (9.0 TiB) is larger than the drive (1.0 GiB): choose a smaller span";
    expect(fieldMessage(whole, "span")).toBe(whole);
  });
});

describe("exactly one of", () => {
  const schema: ParamsSchema = {
    properties: {
      trace_id: { anyOf: [{ type: "integer" }, { type: "null" }], default: null },
      profile: { anyOf: [{ enum: ["heavy", "light"], type: "string" }, { type: "null" }], default: null },
    },
    "x-exactly-one-of": [["trace_id", "profile"]],
  };

  it("says which is needed before asking the api", () => {
    const fields = schemaFields(schema);
    const groups = exactlyOneOf(schema);
    expect(groups).toEqual([["trace_id", "profile"]]);
    const none = toParams(fields, defaultValues(fields), groups);
    expect(none.errors).toEqual({ profile: "give exactly one of trace_id and profile" });
    const one = toParams(fields, { ...defaultValues(fields), profile: "heavy" }, groups);
    expect(one.errors).toEqual({});
    expect(exactlyOneOf({ properties: {} })).toEqual([]);
  });
});

describe("queue again and spans that do not fit", () => {
  const base = { description: "", required: false, options: [] };
  const span: FieldSpec = { ...base, name: "span", kind: "text", label: "span", nullable: true, default: "8g", pattern: SIZE };
  const rt: FieldSpec = { ...base, name: "runtime_s", kind: "integer", label: "runtime", nullable: false, default: 60 };
  it("parses fio sizes as fio does (binary)", () => {
    expect(parseFioSize("8g")).toBe(8 * 2 ** 30);
    expect(parseFioSize("64m")).toBe(64 * 2 ** 20);
    expect(parseFioSize("4096")).toBe(4096);
    expect(parseFioSize("1x")).toBeNull();
  });
  it("says a span larger than the drive, before asking the api", () => {
    const errors = spanErrors([span, rt], { span: "8g", runtime_s: "60" }, 4 * 2 ** 30);
    expect(errors).toEqual({
      span: "8g (8 GiB) is larger than the drive (4 GiB): choose a smaller span",
    });
    expect(spanErrors([span], { span: "1g" }, 4 * 2 ** 30)).toEqual({});
    expect(spanErrors([span], { span: "" }, 4 * 2 ** 30)).toEqual({});
  });
  it("keeps a run's parameters, defaults for the ones it did not have", () => {
    expect(valuesFromRun([span, rt], { span: "1g" })).toEqual({ span: "1g", runtime_s: "60" });
  });
});
