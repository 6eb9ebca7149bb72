import { describe, expect, it } from "vitest";
import type { PairMetric } from "../../api/results/types";
import type { VersusReview } from "../../api/types";
import {
  byPlan,
  differingText,
  formatDiff,
  planWarnings,
  verdict,
  verdictTitle,
} from "./side-by-side-utils";

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
  it("calls B better or worse only when the significance test does", () => {
    const vs = (verdict: VersusReview["verdict"], diff: number | null = 3): VersusReview => ({
      review_runs: 5,
      runs: 5,
      diff_pct: diff,
      low_pct: diff === null ? null : diff - 1,
      high_pct: diff === null ? null : diff + 1,
      p: 0.001,
      q: 0.002,
      verdict,
    });
    expect(verdict({ ...m("x", 10), versus: vs("better") })).toBe("better");
    expect(verdict({ ...m("lat", 10, true), versus: vs("worse") })).toBe("worse");
    // a 10% lead within the runs' noise is not better
    expect(verdict({ ...m("x", 10), versus: vs("within noise") })).toBe("same");
    expect(verdict({ ...m("x", 10), versus: vs("1 run: significance unknown", null) })).toBe(
      "unknown",
    );
    expect(verdict(m("x", 10))).toBe("unknown"); // no test at all: never coloured
    // a shorter runtime is not "better": only performance figures are judged
    expect(verdict(m("runtime", -30, true, false))).toBe("info");
    // over another span, neither better nor worse
    expect(verdict({ ...m("x", 50), set_apart: "span 1 GiB vs 32 MiB" })).toBe("apart");
    const title = verdictTitle({ ...m("x", 10), versus: vs("within noise") });
    expect(title).toContain("within noise");
    expect(title).toContain("95% interval +2.0% to +4.0%");
    expect(title).toContain("5 runs of B, 5 of A");
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
