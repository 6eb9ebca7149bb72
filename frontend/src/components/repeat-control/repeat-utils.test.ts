import { describe, expect, it } from "vitest";
import { ApiError } from "../../api/client";
import { REPEAT_DEFAULTS, repeatApiError, toRepeat } from "./repeat-utils";

describe("toRepeat", () => {
  it("runs once by default", () => {
    expect(toRepeat(REPEAT_DEFAULTS)).toEqual({ repeat: null, errors: {} });
  });
  it("sends N times", () => {
    const { repeat, errors } = toRepeat({ ...REPEAT_DEFAULTS, mode: "times", times: " 4 " });
    expect(errors).toEqual({});
    expect(repeat).toMatchObject({ times: 4, until_stable: false });
  });
  it("checks N", () => {
    expect(toRepeat({ ...REPEAT_DEFAULTS, mode: "times", times: "1" }).errors.times).toContain("between 2 and 50");
    expect(toRepeat({ ...REPEAT_DEFAULTS, mode: "times", times: "2.5" }).errors.times).toContain("whole number");
    expect(toRepeat({ ...REPEAT_DEFAULTS, mode: "times", times: "" }).repeat).toBeNull();
  });
  it("sends until stable with the defaults 10, 3, 2.5", () => {
    const { repeat, errors } = toRepeat({ ...REPEAT_DEFAULTS, mode: "stable" });
    expect(errors).toEqual({});
    expect(repeat).toEqual({ until_stable: true, max_runs: 10, min_runs: 3, rsd_pct: 2.5 });
  });
  it("checks until stable's inputs", () => {
    const bad = toRepeat({ mode: "stable", times: "", maxRuns: "3", minRuns: "5", rsdPct: "0" });
    expect(bad.repeat).toBeNull();
    expect(bad.errors.min_runs).toBe("At least 5 runs is more than at most 3.");
    expect(bad.errors.rsd_pct).toContain("over 0");
    expect(toRepeat({ ...REPEAT_DEFAULTS, mode: "stable", maxRuns: "51" }).errors.max_runs).toContain("not 51");
    expect(toRepeat({ ...REPEAT_DEFAULTS, mode: "stable", rsdPct: "abc" }).errors.rsd_pct).toBeDefined();
  });
});

describe("repeatApiError", () => {
  it("finds the field of a validation error about repeat", () => {
    const err = new ApiError(422, "invalid request: repeat.times: too big", null, {
      detail: "invalid request: repeat.times: too big",
      errors: [{ loc: ["body", "repeat", "times"], msg: "Input should be less than or equal to 50" }],
    });
    expect(repeatApiError(err)).toEqual({ field: "times", message: "Input should be less than or equal to 50" });
  });
  it("puts a model-level error on the whole choice", () => {
    const err = new ApiError(422, "invalid request", null, {
      errors: [{ loc: ["body", "repeat"], msg: "Value error, repeat: min_runs 5 is more than max_runs 3" }],
    });
    expect(repeatApiError(err)).toEqual({ field: "repeat", message: "repeat: min_runs 5 is more than max_runs 3" });
  });
  it("reads the api's field", () => {
    expect(repeatApiError(new ApiError(422, "no", "repeat.rsd_pct"))).toEqual({ field: "rsd_pct", message: "no" });
  });
  it("leaves other errors alone", () => {
    expect(repeatApiError(new ApiError(422, "bad serial", "confirm_serial"))).toBeNull();
    expect(repeatApiError(new ApiError(422, "x", null, { errors: [{ loc: ["body", "params", "span"], msg: "m" }] }))).toBeNull();
    expect(repeatApiError(new Error("network"))).toBeNull();
  });
});
