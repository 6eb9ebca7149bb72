import { describe, expect, it } from "vitest";
import type { CompareMetric } from "../../api/results/types";
import type { Step } from "../../api/types";
import {
  averages,
  BAR_ROW,
  barsHeight,
  compareHeight,
  mbps,
  mixedParts,
  PANEL_HEIGHT,
  partLine,
  pointsRows,
  type MixedPart,
} from "./mixed-utils";

const point = (write_pct: number, read_mbps: number, write_mbps: number) => ({
  write_pct,
  step: `mixed-random-4k-qd4-w${write_pct}`,
  mbps: read_mbps + write_mbps,
  read_mbps,
  write_mbps,
  iops: ((read_mbps + write_mbps) * 1e6) / 4096,
  read_iops: (read_mbps * 1e6) / 4096,
  write_iops: (write_mbps * 1e6) / 4096,
});

const summary = (part: string, points: ReturnType<typeof point>[]) =>
  ({
    name: `mixed-${part}`,
    findings: {
      mixed: {
        part,
        points,
        avg_mbps: points.reduce((a, p) => a + p.mbps, 0) / points.length,
        avg_iops: 0,
        min_mbps: 10,
        min_write_pct: 100,
        max_mbps: 26.7,
        max_write_pct: 25,
        note: `${part} note`,
      },
    },
  }) as unknown as Step;

describe("mixedParts", () => {
  it("reads each part's curve from its summary step, random first, by share of writes", () => {
    const parts = mixedParts([
      { name: "mixed-prewrite", findings: null } as unknown as Step,
      summary("sequential", [point(100, 0, 10), point(0, 20, 0)]),
      summary("random", [point(50, 10, 10), point(0, 20, 0), point(25, 20, 6.7), point(100, 0, 10)]),
    ]);
    expect(parts.map((p) => p.part)).toEqual(["random", "sequential"]);
    const [random, sequential] = parts as [MixedPart, MixedPart];
    expect(random.points.map((p) => p.writePct)).toEqual([0, 25, 50, 100]);
    expect(random.points.map((p) => p.mbps)).toEqual([20, 26.7, 20, 10]);
    expect(random.avgMbps).toBeCloseTo((20 + 26.7 + 20 + 10) / 4);
    expect(sequential.note).toBe("sequential note");
    const line = partLine(random, 3, "#000");
    expect(line.label).toBe("4K random QD4");
    expect(line.points).toEqual([
      [0, 20],
      [25, 26.7],
      [50, 20],
      [100, 10],
    ]);
    expect(pointsRows(parts)[1]).toEqual(["random", 25, 26.7, 20, 6.7, (26.7 * 1e6) / 4096]);
  });
});

describe("averages", () => {
  it("takes each drive's stored average of each part, in the drives' order", () => {
    const metric = (step: string, rows: [number, number][]) =>
      ({
        metric: `mixed:${step}:mixed_avg_mbps`,
        rows: rows.map(([drive_id, value]) => ({ drive_id, value, label: `drive ${drive_id}`, short_name: null })),
      }) as unknown as CompareMetric;
    const got = averages(
      [
        metric("mixed-random-4k-qd4", [
          [1, 40.5],
          [2, 30],
        ]),
        metric("mixed-sequential-128k-qd1", [[2, 300]]),
        metric("mixed-random-4k-qd4-w50", [[1, 999]]),
      ],
      [2, 1, 7],
    );
    expect(got).toEqual([
      { driveId: 2, name: "drive 2", random: 30, sequential: 300 },
      { driveId: 1, name: "drive 1", random: 40.5, sequential: null },
    ]);
  });

  it("writes MB/s with three significant digits, whole from 100", () => {
    expect([mbps(26.666), mbps(9.87654), mbps(1234.5)]).toEqual(["26.7", "9.88", "1235"]);
  });
});

describe("compareHeight", () => {
  it("makes room under the curves for one bar row per drive, none without averages", () => {
    expect(compareHeight(0)).toBe(PANEL_HEIGHT);
    expect(compareHeight(3) - compareHeight(2)).toBe(BAR_ROW);
    expect(compareHeight(1)).toBeGreaterThan(PANEL_HEIGHT + barsHeight(1));
  });
});
