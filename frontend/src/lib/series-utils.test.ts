import { describe, expect, it } from "vitest";
import type { CompareSeries, DriveSeries } from "../api/results/types";
import { driveColor, driveStyles } from "./house-style";
import {
  conditionsLine,
  formatBinaryBytes,
  formatBlockSize,
  legendOf,
  linesCsv,
  niceTicks,
  provenanceLine,
  seriesSimulated,
  seriesWarnings,
  tickFormat,
  toLines,
} from "./series-utils";

const drive = (id: number, qd: number, extra: Partial<DriveSeries> = {}): DriveSeries => ({
  drive_id: id,
  label: `Simulated drive ${id} (S/N SIM-${id})`,
  short_name: null,
  simulated: true,
  run_id: 10 + id,
  conditions: {
    plan: "consistency",
    iodepth: qd,
    span_bytes: 256 * 1024 ** 2,
    pattern: "incompressible",
    op_percent: 0,
    firmware: "sim",
    fio_version: "fio-3.36",
    finished_at: "2026-11-21T15:10:40Z",
    compared: {},
  },
  series: [
    {
      step_id: 100 + id,
      step: "consistency-4k-qd32",
      label: "4K random write QD32",
      role: "consistency",
      unit: "IOPS",
      x: "t_s",
      total_points: 2,
      downsampled: false,
      points: [
        [1, 100],
        [2, 0],
      ],
      stalls: null,
    },
  ],
  ...extra,
});

describe("conditions and provenance", () => {
  it("states plan, QD, span, pattern and OP, listing values that differ", () => {
    expect(conditionsLine([drive(1, 32)])).toBe(
      "consistency · QD32 · span 256 MiB · incompressible · OP 0%",
    );
    expect(conditionsLine([drive(1, 32), drive(2, 1)])).toContain("QD32/QD1");
  });

  it("names firmware, fio version and date per drive", () => {
    expect(provenanceLine([drive(1, 32), drive(2, 32)])).toBe(
      "drivelab · Simulated drive 1, Simulated drive 2: fw sim, fio-3.36, 2026-11-21",
    );
  });
});

describe("toLines", () => {
  it("colours lines by drive and dashes a drive's later passes", () => {
    const two = drive(2, 32);
    two.series.push({ ...two.series[0]!, step_id: 999, label: "after TRIM" });
    const data: CompareSeries = {
      plan: "consistency",
      metric: "write_iops",
      op_percent: 0,
      drives: [drive(1, 32), two],
      missing: [],
      warnings: [],
    };
    const styles = driveStyles([1, 2], 2);
    const lines = toLines(data, styles);
    expect(lines.map((l) => [l.label, l.dashed])).toEqual([
      ["Simulated drive 1", false],
      ["Simulated drive 2, 4K random write QD32", false],
      ["Simulated drive 2, after TRIM", true],
    ]);
    expect(lines[1]?.color).toBe(driveColor(2));
    expect(lines[1]?.width).toBeGreaterThan(lines[0]?.width ?? 0);
    expect(legendOf(lines, styles).map((l) => l.highlight)).toEqual([false, true, true]);
    // the later pass is dashed in the legend too
    expect(legendOf(lines, styles).map((l) => l.dashed)).toEqual([false, false, true]);
    expect(linesCsv(lines.slice(0, 1), "t_s", "write_iops")).toBe(
      "series,t_s,write_iops\nSimulated drive 1,1,100\nSimulated drive 1,2,0\n",
    );
  });
});

describe("chart warnings and marks", () => {
  it("says when the drive under review is missing and which drives are simulated", () => {
    const data: CompareSeries = {
      plan: "consistency",
      metric: "write_iops",
      op_percent: 0,
      drives: [drive(1, 32)],
      missing: [{ drive_id: 2, label: "Drive B (S/N x)", short_name: "B", reason: "no finished consistency run" }],
      warnings: ["measured with different span: 1 GiB (A); 32 MiB (B)"],
    };
    expect(seriesWarnings(data, driveStyles([1, 2], 2))).toEqual([
      "measured with different span: 1 GiB (A); 32 MiB (B)",
      "The drive under review, B, is not in this chart: no finished consistency run.",
    ]);
    expect(seriesWarnings(data, driveStyles([1, 2], 1))).toHaveLength(1);
    expect(seriesSimulated([drive(1, 32, { short_name: "Sim one" })])).toContain("Sim one");
  });

  it("formats every tick of an axis alike", () => {
    const k = tickFormat([0, 10000, 20000, 30000]);
    expect([0, 10000, 20000, 30000].map(k)).toEqual(["0", "10K", "20K", "30K"]);
    const half = tickFormat([0, 2500, 5000, 7500]);
    expect([2500, 5000].map(half)).toEqual(["2,500", "5,000"]);
    const log = tickFormat([100, 1000, 10000, 100000, 1e6]);
    expect([100, 1000, 10000, 100000, 1e6].map(log)).toEqual(["100", "1K", "10K", "100K", "1M"]);
    expect([0.1, 1, 10].map(tickFormat([0.1, 1, 10]))).toEqual(["0.1", "1", "10"]);
    const m = tickFormat([0, 5e5, 1e6, 1.5e6]);
    expect([5e5, 1e6].map(m)).toEqual(["0.5M", "1.0M"]);
  });
});

describe("ticks", () => {
  it("are round values covering the range", () => {
    expect(niceTicks(0, 40000, 5)).toEqual([0, 10000, 20000, 30000, 40000]);
    expect(niceTicks(0, 2.3, 5)).toEqual([0, 0.5, 1, 1.5, 2]);
    expect(niceTicks(0, 2.3, 4)).toEqual([0, 1, 2]);
  });

  it("formats sizes", () => {
    expect(formatBinaryBytes(256 * 1024 ** 2)).toBe("256 MiB");
    expect(formatBinaryBytes(1.5 * 1024 ** 3)).toBe("1.5 GiB");
    expect(formatBlockSize(4096)).toBe("4K");
    expect(formatBlockSize(8 * 1024 ** 2)).toBe("8M");
    expect(formatBlockSize(512)).toBe("512");
  });
});
