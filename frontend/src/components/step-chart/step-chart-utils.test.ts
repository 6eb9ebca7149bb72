import { describe, expect, it } from "vitest";
import type { StepSeries } from "../../api/types";
import { axisTicks, chartLines, heatWords, linesCsv, maxX, stepChartSpec, stepDownLines } from "./step-chart-utils";

const series = (metric: string, points: [number, number][]): StepSeries => ({
  run_id: 1,
  step_id: 2,
  step: "s",
  metric,
  unit: "MB/s",
  x: "t_s",
  total_points: points.length,
  downsampled: false,
  points,
});

describe("stepChartSpec", () => {
  it("draws random I/O as IOPS and sequential as MB/s, in the job's directions", () => {
    expect(stepChartSpec({ kind: "fio", params: { rw: "randread" } })).toMatchObject({
      metrics: ["read_iops"],
      x: "time",
      unit: "IOPS",
    });
    expect(stepChartSpec({ kind: "fio", params: { rw: "write" } })).toMatchObject({
      metrics: ["write_mbps"],
      unit: "MB/s",
    });
    expect(stepChartSpec({ kind: "fio", params: { rw: "randrw" } })!.metrics).toEqual([
      "read_iops",
      "write_iops",
    ]);
    expect(stepChartSpec({ kind: "fio-rounds", params: {} })!.metrics).toEqual([
      "read_mbps",
      "write_mbps",
    ]);
  });

  it("draws an SLC cache pass against GB written", () => {
    const spec = stepChartSpec({ kind: "fio", params: { role: "slc-refill", rw: "write", span_bytes: 50e9 } });
    expect(spec).toMatchObject({ metrics: ["write_mbps"], x: "position", xLabel: "GB written" });
    expect(spec!.gbPerPct).toBeCloseTo(0.5);
    const lines = chartLines([series("write_mbps", [[50, 400], [100, 390]])], spec!.gbPerPct);
    expect(lines[0]!.points).toEqual([{ x: 25, y: 400 }, { x: 50, y: 390 }]);
    expect(linesCsv(lines, "position", true).split("\n")[0]).toContain("gb_written");
  });

  it("draws HD Tach passes against the position in the span", () => {
    expect(stepChartSpec({ kind: "fio", params: { role: "hdtach-read", rw: "read" } })).toMatchObject({
      metrics: ["read_mbps"],
      x: "position",
      xLabel: "position (% of span)",
    });
  });

  it("has no chart for steps without samples", () => {
    for (const kind of ["purge", "trim", "idle"]) {
      expect(stepChartSpec({ kind, params: {} })).toBeNull();
    }
  });

  it("leaves a QD1 burst to the bursts' own chart (a second at most: a sample or two)", () => {
    expect(stepChartSpec({ kind: "fio", params: { role: "burst", rw: "randread" } })).toBeNull();
    expect(stepChartSpec({ kind: "fio", params: { role: "bursts-prefill", rw: "write" } })).not.toBeNull();
  });
});

describe("chartLines, maxX and linesCsv", () => {
  it("keeps the directions that did I/O", () => {
    const lines = chartLines([
      series("read_mbps", [
        [1, 0],
        [2, 0],
      ]),
      series("write_mbps", [
        [1, 500],
        [2.5, 480.5],
      ]),
    ]);
    expect(lines.map((l) => [l.name, l.direction])).toEqual([["Write", "write"]]);
    expect(lines[0]!.points).toEqual([
      { x: 1, y: 500 },
      { x: 2.5, y: 480.5 },
    ]);
    expect(maxX(lines)).toBe(2.5);
    expect(linesCsv(lines, "time")).toBe("metric,t_s,value\nwrite_mbps,1,500\nwrite_mbps,2.5,480.5\n");
  });

  it("keeps idle lines when nothing did I/O, and nothing when there are no points", () => {
    expect(chartLines([series("read_mbps", [[1, 0]])])).toHaveLength(1);
    expect(chartLines([series("read_mbps", [])])).toEqual([]);
    expect(maxX([])).toBe(0);
  });
});

describe("the time axis of a finished step", () => {
  it("ends with the job, not at the next round tick", () => {
    expect(axisTicks(15.03)).toEqual([0, 5, 10, 15]);
    expect(axisTicks(20)).toEqual([0, 5, 10, 15, 20]);
    expect(axisTicks(0.4)).toEqual([0]);
  });
});

describe("stepDownLines", () => {
  const heat = (kind: "thermal" | "not thermal" | "unknown", words: string) => ({
    heat: kind,
    basis: null,
    at_s: 9.1,
    temp_c: null,
    peak_c: null,
    threshold: null,
    nearest: null,
    counters: [],
    counters_read: false,
    words,
  });
  it("says each step-down with whether heat explains it", () => {
    const lines = stepDownLines({
      findings: {
        hdtach: {
          direction: "write",
          levels: [],
          min_drop: 0.2,
          min_span_pct: 2,
          method: "pelt",
          step_downs: [
            { at_pct: 65.04, at_gb: 0.35, from_mbps: 40, to_mbps: 8, at_s: 9.12, heat: heat("thermal", "throttled at 50 °C after 9 s") },
            { at_pct: 80, at_gb: 0.4, from_mbps: 12, to_mbps: 6 },
          ],
        },
        dropoff: {
          dropoff_s: 13.65,
          fob_iops: 3000,
          after_iops: 800,
          ratio: 0.5,
          min_time_s: 5,
          heat: heat("unknown", "the drive reports no temperature"),
        },
      },
    });
    expect(lines).toEqual([
      "↓ at 65% (9.1 s), 40→8 MB/s: heat: throttled at 50 °C after 9 s",
      "↓ at 80%, 12→6 MB/s",
      "↓ drop-off after 13.7 s: heat unknown: the drive reports no temperature",
    ]);
    expect(heatWords(heat("not thermal", "41 °C, below WCTEMP 70 °C"))).toBe("not heat: 41 °C, below WCTEMP 70 °C");
    expect(heatWords(undefined)).toBe("");
  });
});
