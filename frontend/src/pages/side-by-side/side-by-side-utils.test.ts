import { describe, expect, it } from "vitest";
import type { PairMetric } from "../../api/results/types";
import { byPlan, differingText, formatDiff, planWarnings, verdict } from "./side-by-side-utils";

const m = (metric: string, diff: number | null, lower = false, performance = true): PairMetric => ({
  metric,
  names: { plan: metric.split(":")[0] ?? "", test: metric.split(":")[1] ?? "", measure: "MB/s", title: metric },
  unit: "MB/s",
  lower_is_better: lower,
  performance,
  a: 100,
  b: 100 + (diff ?? 0),
  diff_pct: diff,
  conditions: {},
  differing: {},
  warnings: [],
});

describe("side by side", () => {
  it("judges B against A by the metric's direction", () => {
    expect(verdict(m("x", 10))).toBe("better");
    expect(verdict(m("x", -10))).toBe("worse");
    expect(verdict(m("lat", 10, true))).toBe("worse");
    expect(verdict(m("lat", -10, true))).toBe("better");
    expect(verdict(m("x", 0.2))).toBe("same");
    expect(verdict(m("x", null))).toBe("same");
    // a shorter runtime is not "better": only performance figures are judged
    expect(verdict(m("runtime", -30, true, false))).toBe("info");
    // over another span, neither better nor worse
    expect(verdict({ ...m("x", 50), set_apart: "span 1 GiB vs 32 MiB" })).toBe("apart");
  });

  it("says what A and B were measured under where it differs", () => {
    const differs = { ...m("x", 1), differing: { span: ["32 MiB", "1 GiB"] as [string, string] } };
    expect(differingText(differs)).toBe("span 32 MiB vs 1 GiB");
    expect(differingText(m("x", 1))).toBe("");
  });

  it("formats differences and groups by plan", () => {
    expect([formatDiff(12.345), formatDiff(-4), formatDiff(null)]).toEqual([
      "+12.3%",
      "−4.0%",
      "—",
    ]);
    expect(byPlan([m("a:s:x", 1), m("b:s:x", 1), m("a:t:y", 1)]).map(([p, l]) => [p, l.length])).toEqual([
      ["a", 2],
      ["b", 1],
    ]);
  });
});

describe("planWarnings", () => {
  it("lists each warning once", () => {
    const w = (warnings: string[]) => ({ ...m("a:s:x", 1), warnings });
    expect(planWarnings([w(["OP differs"]), w(["OP differs", "fio differs"])])).toEqual([
      "OP differs",
      "fio differs",
    ]);
  });
});
