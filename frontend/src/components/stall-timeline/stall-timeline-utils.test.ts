import { describe, expect, it } from "vitest";
import type { CompareSeries } from "../../api/results/types";
import { driveStyles } from "../../lib/house-style";
import { stallAreas, stallSummary } from "./stall-timeline-utils";

const data = {
  plan: "write-hitching",
  metric: "mbps",
  op_percent: null,
  missing: [],
  warnings: [],
  drives: [
    {
      drive_id: 4,
      label: "A",
      short_name: null,
      simulated: true,
      run_id: 1,
      conditions: {} as CompareSeries["drives"][number]["conditions"],
      series: [
        {
          step_id: 9, step: "hitch-seq", label: "seq", role: "hitch-seq", unit: "MB/s", x: "t_s",
          total_points: 3, downsampled: false, points: [],
          stalls: [{ start_s: 1.2, duration_s: 0.3 }, { start_s: 5, duration_s: 0.1 }],
        },
        {
          step_id: 10, step: "hitch-rand", label: "rand", role: "hitch-rand", unit: "MB/s",
          x: "t_s", total_points: 3, downsampled: false, points: [], stalls: [],
        },
      ],
    },
  ],
} as CompareSeries;

describe("stalls", () => {
  it("shades each stall of the chosen steps in the drive's colour", () => {
    const styles = driveStyles([4], 4);
    const areas = stallAreas(data, styles, (r) => r === "hitch-seq");
    expect(areas.map((a) => [a.x1, a.x2])).toEqual([
      [1.2, 1.5],
      [5, 5.1],
    ]);
    expect(areas[0]?.color).toBe(styles.get(4)?.color);
    expect(stallAreas(data, styles, (r) => r === "hitch-rand")).toEqual([]);
  });

  it("summarises count and longest stall per drive", () => {
    expect(stallSummary(data, () => true).get(4)).toBe("2 stalls, longest 0.3 s");
    expect(stallSummary(data, (r) => r === "hitch-rand").get(4)).toBe("no stalls");
  });
});
