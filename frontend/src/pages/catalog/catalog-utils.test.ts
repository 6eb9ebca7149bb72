import { describe, expect, it } from "vitest";
import { ApiError } from "../../api/client";
import {
  apiFieldError,
  changedValues,
  importProblems,
  optionalText,
  parseCapacity,
  requireFields,
  today,
} from "./catalog-utils";

describe("parseCapacity", () => {
  it("reads bytes and decimal units as printed on drives", () => {
    expect(parseCapacity("1000204886016")).toBe(1000204886016);
    expect(parseCapacity("500 GB")).toBe(500e9);
    expect(parseCapacity("1.92TB")).toBe(1.92e12);
    expect(parseCapacity(" 2 tb ")).toBe(2e12);
    expect(parseCapacity("512g")).toBe(512e9);
  });

  it("refuses what is not a capacity", () => {
    for (const bad of ["", "abc", "-1", "0", "1 PiB", "1,000"]) expect(parseCapacity(bad)).toBeNull();
  });
});

describe("form helpers", () => {
  it("clears empty optional text, requires fields and sends only changes", () => {
    expect(optionalText("  ")).toBeNull();
    expect(optionalText(" E18 ")).toBe("E18");
    expect(requireFields({ a: "x", b: " " }, ["a", "b", "c"])).toEqual({
      b: "is required",
      c: "is required",
    });
    expect(changedValues({ a: "1", b: "2" }, { a: "1", b: "3", c: "" })).toEqual({ b: "3" });
    expect(today(new Date(2026, 10, 2))).toBe("2026-11-02");
  });
});

describe("apiFieldError and importProblems", () => {
  it("finds the field the api names, or the validation error's loc", () => {
    expect(apiFieldError(new ApiError(422, "vendor is empty", "vendor"))).toEqual({
      field: "vendor",
      message: "vendor is empty",
    });
    const body = { errors: [{ loc: ["body", "capacity_bytes"], msg: "must be positive" }] };
    expect(apiFieldError(new ApiError(422, "invalid request", null, body))).toEqual({
      field: "capacity_bytes",
      message: "must be positive",
    });
    expect(apiFieldError(new ApiError(409, "duplicate"))).toEqual({ field: null, message: "duplicate" });
    expect(apiFieldError("boom")).toEqual({ field: null, message: "boom" });
  });

  it("lists a refused import's bad rows", () => {
    const body = { detail: "1 of 2 rows", errors: [{ line: 3, problems: ["price: not a number"] }] };
    expect(importProblems(new ApiError(422, "x", "body", body))).toEqual([
      { line: 3, problems: ["price: not a number"] },
    ]);
    expect(importProblems(new ApiError(422, "x"))).toEqual([]);
  });
});
