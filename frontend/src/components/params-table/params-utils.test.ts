import { describe, expect, it } from "vitest";
import type { ParamsSchema } from "../../api/types";
import { paramRows } from "./params-utils";

describe("paramRows", () => {
  it("lists properties in order with type, default and description", () => {
    const schema: ParamsSchema = {
      type: "object",
      properties: {
        runtime_s: {
          type: "integer",
          default: 60,
          minimum: 5,
          maximum: 3600,
          description: "Seconds per corner",
          title: "Runtime S",
        },
        block_size: { type: "string", default: "128k", enum: ["4k", "128k", "1m"] },
        precondition: { type: "boolean", default: true },
      },
    };
    expect(paramRows(schema)).toEqual([
      {
        name: "runtime_s",
        type: "integer",
        allowed: "5 – 3600",
        default: "60",
        description: "Seconds per corner",
        required: false,
      },
      {
        name: "block_size",
        type: "string",
        allowed: "one of 4k, 128k, 1m",
        default: "128k",
        description: "",
        required: false,
      },
      {
        name: "precondition",
        type: "boolean",
        allowed: "",
        default: "true",
        description: "",
        required: false,
      },
    ]);
  });

  it("reads pydantic's Optional (anyOf with null) and a null default", () => {
    const [row] = paramRows({
      properties: {
        size_gb: { anyOf: [{ type: "number", minimum: 1 }, { type: "null" }], default: null },
      },
    });
    expect(row).toMatchObject({ type: "number | null", allowed: "≥ 1", default: "null" });
  });

  it("marks required parameters and has no default for them", () => {
    const [row] = paramRows({
      properties: { queue_depth: { type: "integer", exclusiveMinimum: 0 } },
      required: ["queue_depth"],
    });
    expect(row).toMatchObject({ required: true, default: null, allowed: "> 0" });
  });

  it("resolves $ref to $defs (pydantic enums) and keeps the local description", () => {
    const [row] = paramRows({
      $defs: { Pattern: { type: "string", enum: ["seq", "rand"], title: "Pattern" } },
      properties: {
        pattern: { $ref: "#/$defs/Pattern", default: "seq", description: "Access pattern" },
      },
    });
    expect(row).toMatchObject({
      type: "string",
      allowed: "one of seq, rand",
      default: "seq",
      description: "Access pattern",
    });
  });

  it("names array item types and serialises structured defaults", () => {
    const [row] = paramRows({
      properties: { block_sizes: { type: "array", items: { type: "integer" }, default: [4, 128] } },
    });
    expect(row).toMatchObject({ type: "array of integer", default: "[4,128]" });
  });

  it("returns nothing for a plan without parameters", () => {
    expect(paramRows({ type: "object" })).toEqual([]);
    expect(paramRows(null)).toEqual([]);
  });
});
