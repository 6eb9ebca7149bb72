import { describe, expect, it } from "vitest";
import { figureRuns, formatRsd, modeText, overThreshold, parseSeriesId, seriesTone, statusText } from "./series-utils";

const run = (id: number, k: number, status: string) => ({ id, series_index: k, status });

describe("series-utils", () => {
  it("parses ids", () => {
    expect(parseSeriesId("12")).toBe(12);
    expect(parseSeriesId("0")).toBeNull();
    expect(parseSeriesId("x1")).toBeNull();
    expect(parseSeriesId(undefined)).toBeNull();
  });
  it("colours the status", () => {
    expect(seriesTone("stable")).toBe("ok");
    expect(seriesTone("not stable")).toBe("warn");
    expect(seriesTone("running")).toBe("info");
  });
  it("says the mode", () => {
    expect(modeText({ until_stable: false, max_runs: 4, min_runs: 4, rsd_pct: 2.5 })).toBe("4 times");
    expect(modeText({ until_stable: true, max_runs: 10, min_runs: 3, rsd_pct: 2.5 })).toContain(
      "RSD under 2.5%, at least 3 and at most 10 runs",
    );
  });
  it("says where a running series stands, and an ended one's reason", () => {
    const runs = [run(5, 1, "done"), run(6, 2, "running")];
    expect(statusText({ status: "running", reason: null, runs: runs as never, max_runs: 3, until_stable: false })).toBe(
      "repeat 2 of 3 is running; 1 finished",
    );
    expect(statusText({ status: "done", reason: "all 3 runs finished", runs: [] as never, max_runs: 3, until_stable: false })).toBe(
      "all 3 runs finished",
    );
  });
  it("marks figures at or over the threshold", () => {
    expect(overThreshold({ rsd_pct: 2.5 }, 2.5)).toBe(true);
    expect(overThreshold({ rsd_pct: 2.49 }, 2.5)).toBe(false);
    expect(overThreshold({ rsd_pct: null }, 2.5)).toBe(false);
  });
  it("orders the finished runs", () => {
    expect(figureRuns([run(9, 3, "done"), run(7, 1, "done"), run(8, 2, "failed")]).map((r) => r.id)).toEqual([7, 9]);
  });
  it("formats the RSD", () => {
    expect(formatRsd(1.234)).toBe("1.23%");
    expect(formatRsd(null)).toBe("—");
  });
});
