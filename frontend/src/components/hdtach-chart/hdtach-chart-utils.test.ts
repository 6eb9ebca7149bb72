import { describe, expect, it } from "vitest";
import type { CompareSeries } from "../../api/results/types";
import { driveStyles } from "../../lib/house-style";
import { stepDownMarkers, stepDownSummary } from "./hdtach-chart-utils";

const data = {
  plan: "hdtach",
  metric: "mbps",
  op_percent: null,
  missing: [],
  drives: [
    {
      drive_id: 4,
      label: "A",
      simulated: true,
      run_id: 1,
      conditions: {} as CompareSeries["drives"][number]["conditions"],
      series: [
        {
          step_id: 9, step: "hdtach-write", label: "write", role: "hdtach-write", unit: "MB/s",
          x: "position_pct", total_points: 3, downsampled: false, points: [],
          step_downs: [
            { at_pct: 31.25, at_gb: 0.06, from_mbps: 24, to_mbps: 12.04 },
            { at_pct: 80.9, at_gb: 0.16, from_mbps: 1200, to_mbps: 600 },
          ],
        },
        {
          step_id: 10, step: "hdtach-read", label: "read", role: "hdtach-read", unit: "MB/s",
          x: "position_pct", total_points: 3, downsampled: false, points: [], step_downs: [],
        },
      ],
    },
  ],
} as unknown as CompareSeries;

describe("step-downs on the HD Tach chart", () => {
  const styles = driveStyles([4], 4);
  it("marks each step-down at its position, in the drive's colour", () => {
    const marks = stepDownMarkers(data, styles, () => true);
    expect(marks.map((m) => m.x)).toEqual([31.25, 80.9]);
    expect(marks[0]!.label).toBe("↓ 24→12 MB/s");
    expect(marks[1]!.label).toBe("↓ 1200→600 MB/s");
    expect(new Set(marks.map((m) => m.color)).size).toBe(1);
    expect(stepDownMarkers(data, styles, (r) => r === "hdtach-read")).toEqual([]);
  });
  it("says where each drive steps down, or that it does not", () => {
    expect(stepDownSummary(data, (r) => r === "hdtach-write").get(4)).toBe(
      "steps down at 31.3% (24→12 MB/s), 80.9% (1200→600 MB/s)",
    );
    expect(stepDownSummary(data, (r) => r === "hdtach-read").get(4)).toBe("no step-down");
    expect(stepDownSummary(undefined, () => true).size).toBe(0);
  });
});

describe("whether heat explains a step-down, on Compare", () => {
  const styles = driveStyles([4], 4);
  const told = structuredClone(data);
  const downs = told.drives[0]!.series[0]!.step_downs!;
  downs[0]!.heat = "not thermal";
  downs[1]!.heat = "thermal";
  it("tags a thermal step-down's mark, and says both in the legend", () => {
    expect(stepDownMarkers(told, styles, () => true).map((m) => m.label)).toEqual([
      "↓ 24→12 MB/s",
      "↓ 1200→600 MB/s · heat",
    ]);
    expect(stepDownSummary(told, (r) => r === "hdtach-write").get(4)).toBe(
      "steps down at 31.3% (24→12 MB/s, not heat), 80.9% (1200→600 MB/s, heat)",
    );
  });
});
