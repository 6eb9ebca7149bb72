import { describe, expect, it } from "vitest";
import { seriesPart } from "./charts";
import type { CompareCharts, CompareSeries } from "./types";

const answer = (plan: string, op: number | null): CompareSeries => ({
  plan,
  metric: "write_iops",
  op_percent: op,
  drives: [],
  missing: [],
  warnings: [],
});

const charts = {
  drives: [1, 2],
  under_review: null,
  series: [
    { plan: "hdtach", metric: null, points: 400, op_percent: null, answer: answer("hdtach", null) },
    { plan: "consistency", metric: null, points: 2000, op_percent: 0, answer: answer("consistency", 0) },
    { plan: "consistency", metric: null, points: 2000, op_percent: 25, answer: answer("consistency", 25) },
    { plan: "transfer-size", metric: null, points: 650, op_percent: null, answer: answer("transfer-size", null) },
  ],
} as unknown as CompareCharts;

describe("seriesPart", () => {
  it("finds the answer asked with the same plan, points, metric and over-provisioning", () => {
    expect(seriesPart(charts, { drives: [1, 2], plan: "consistency", opPercent: 25, points: 2000 })?.op_percent).toBe(25);
    expect(seriesPart(charts, { drives: [1, 2], plan: "consistency", opPercent: 0, points: 2000 })?.op_percent).toBe(0);
    // Default points (650) as the chart asks without them.
    expect(seriesPart(charts, { drives: [1, 2], plan: "transfer-size" })?.plan).toBe("transfer-size");
  });

  it("holds nothing for a request the charts answer was not asked", () => {
    expect(seriesPart(charts, { drives: [1, 2], plan: "trim-validation", points: 400 })).toBeUndefined();
    expect(seriesPart(charts, { drives: [1, 2], plan: "hdtach", points: 650 })).toBeUndefined();
    expect(seriesPart(charts, { drives: [1, 2], plan: "consistency", points: 2000 })).toBeUndefined();
    expect(
      seriesPart(charts, { drives: [1, 2], plan: "consistency", opPercent: 0, points: 2000, metric: "read_iops" }),
    ).toBeUndefined();
  });
});
