import { describe, expect, it } from "vitest";
import type { FirmwareChange, FirmwareMetric } from "../../api/types";
import {
  changeRunsText,
  firmwareArticlePath,
  formatMean,
  groupMetrics,
  parseModelId,
  readFirmwareArticle,
  significantChanges,
} from "./firmware-utils";

const change = (over: Partial<FirmwareChange>): FirmwareChange => ({
  from_firmware: "1.00",
  to_firmware: "1.01",
  from_runs: 3,
  to_runs: 4,
  diff_pct: 0.2,
  low_pct: -1,
  high_pct: 1.4,
  p: 0.6,
  q: 0.9,
  verdict: "within noise",
  ...over,
});

const metric = (id: string, plan: string, test: string, changes: FirmwareChange[]): FirmwareMetric => ({
  metric: id,
  names: { plan, test, measure: "MB/s", title: `${test}: MB/s` },
  unit: "MB/s",
  lower_is_better: false,
  performance: true,
  by_firmware: [],
  changes,
});

describe("firmware-utils", () => {
  it("parses ids", () => {
    expect(parseModelId("3")).toBe(3);
    expect(parseModelId("abc")).toBeNull();
  });
  it("formats a mean with its interval", () => {
    const v = { count: 3, mean: 512.4, stddev: 5, min: 507, max: 517, spread_pct: 2, low: 498.1, high: 526.3 };
    expect(formatMean(v, "MB/s")).toBe("512 MB/s [498, 526]");
    expect(formatMean({ ...v, count: 1, low: null, high: null }, "MB/s")).toBe("512 MB/s");
    expect(formatMean({ ...v, mean: null }, "MB/s")).toBe("—");
  });
  it("groups by plan and test, keeping the order", () => {
    const groups = groupMetrics([
      metric("a", "Four corners", "Seq read", []),
      metric("b", "Four corners", "Seq write", []),
      metric("c", "Four corners", "Seq read", []),
    ]);
    expect(groups.map((g) => [g.test, g.metrics.map((m) => m.metric)])).toEqual([
      ["Seq read", ["a", "c"]],
      ["Seq write", ["b"]],
    ]);
  });
  it("lists significant changes, regressions first", () => {
    const found = significantChanges([
      metric("a", "P", "T", [change({ verdict: "improvement", diff_pct: 9 })]),
      metric("b", "P", "T", [change({ verdict: "regression", diff_pct: -3 })]),
      metric("c", "P", "T", [change({}), change({ verdict: "1 run: significance unknown" })]),
      metric("d", "P", "T", [change({ verdict: "regression", diff_pct: -12 })]),
    ]);
    expect(found.map((f) => f.metric.metric)).toEqual(["d", "b", "a"]);
  });
  it("says the runs of a change", () => {
    expect(changeRunsText(change({ from_runs: 1 }))).toBe("4 runs of 1.01 vs 1 run of 1.00");
  });
});

describe("firmware article address", () => {
  it("round-trips the drive and the versions, odd characters kept", () => {
    const path = firmwareArticlePath(3, 7, "1.0 beta", "2.0&x");
    expect(path).toBe("/models/3/firmware/article?drive=7&firmware=1.0+beta&firmware=2.0%26x");
    const back = readFirmwareArticle(new URLSearchParams(path.split("?")[1]));
    expect(back).toEqual({ drive: 7, firmware: ["1.0 beta", "2.0&x"] });
  });
  it("names no drive for a bad id", () => {
    expect(readFirmwareArticle(new URLSearchParams("drive=x&firmware=1")).drive).toBeNull();
  });
});
