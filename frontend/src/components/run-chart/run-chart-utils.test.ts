import { describe, expect, it } from "vitest";
import type { Sample } from "../../api/types";
import {
  activeDirections,
  formatCompact,
  hasTemperature,
  temperatureAxis,
  timeAxis,
  timeTicks,
  toChartPoints,
} from "./run-chart-utils";

const sample = (t: number, over: Partial<Sample> = {}): Sample => ({
  step_id: 1,
  t,
  dt: 1,
  read_mbps: 0,
  write_mbps: 0,
  read_iops: 0,
  write_iops: 0,
  read_lat_mean_us: null,
  write_lat_mean_us: null,
  read_lat_p99_us: null,
  write_lat_p99_us: null,
  ...over,
});

describe("toChartPoints", () => {
  it("keeps t and the four series in sample order", () => {
    const points = toChartPoints([
      sample(1, { read_mbps: 3500.5, read_iops: 26_700 }),
      sample(2, { write_mbps: 1200, write_iops: 9_155 }),
    ]);
    expect(points).toEqual([
      { t: 1, read_mbps: 3500.5, write_mbps: 0, read_iops: 26_700, write_iops: 0, temp_c: null },
      { t: 2, read_mbps: 0, write_mbps: 1200, read_iops: 0, write_iops: 9_155, temp_c: null },
    ]);
  });

  it("turns missing or non-finite numbers into 0", () => {
    const broken = sample(1, { read_mbps: Number.NaN, write_iops: null as unknown as number });
    expect(toChartPoints([broken])[0]).toMatchObject({ read_mbps: 0, write_iops: 0 });
  });
});

describe("toChartPoints gaps", () => {
  it("breaks the line where samples are missing", () => {
    const points = toChartPoints([sample(1), sample(2), sample(6), sample(7)]);
    expect(points.map((p) => p.t)).toEqual([1, 2, 4, 6, 7]);
    expect(points[2]).toEqual({
      t: 4,
      read_mbps: null,
      write_mbps: null,
      read_iops: null,
      write_iops: null,
      temp_c: null,
    });
  });

  it("does not break on ordinary jitter or on longer intervals that cover the jump", () => {
    const jitter = toChartPoints([sample(1), sample(2.3), sample(3.2)]);
    expect(jitter.every((p) => p.read_mbps !== null)).toBe(true);
    const long = toChartPoints([sample(5, { dt: 5 }), sample(10, { dt: 5 })]);
    expect(long).toHaveLength(2);
  });
});

describe("activeDirections", () => {
  it("draws only the directions that did I/O", () => {
    expect(activeDirections(toChartPoints([sample(1, { read_mbps: 10 })]))).toEqual({
      read: true,
      write: false,
    });
    expect(
      activeDirections(toChartPoints([sample(1, { read_iops: 5 }), sample(2, { write_mbps: 1 })])),
    ).toEqual({ read: true, write: true });
  });

  it("draws both when nothing moved yet", () => {
    expect(activeDirections([])).toEqual({ read: true, write: true });
    expect(activeDirections(toChartPoints([sample(1)]))).toEqual({ read: true, write: true });
  });
});

describe("timeTicks", () => {
  it("uses round steps and covers the last sample", () => {
    expect(timeTicks(40)).toEqual([0, 10, 20, 30, 40]);
    expect(timeTicks(41)).toEqual([0, 10, 20, 30, 40, 50]);
    expect(timeTicks(122)).toEqual([0, 25, 50, 75, 100, 125]);
    expect(timeTicks(1350)).toEqual([0, 500, 1000, 1500]);
    expect(timeTicks(3)).toEqual([0, 1, 2, 3]);
  });

  it("keeps at most 8 ticks for long steps", () => {
    const ticks = timeTicks(5 * 3600 + 1);
    expect(ticks.length).toBeLessThanOrEqual(8);
    expect(ticks[1]).toBe(5000);
    expect(ticks[ticks.length - 1]).toBeGreaterThanOrEqual(5 * 3600 + 1);
    const huge = timeTicks(100 * 3600);
    expect(huge.length).toBeLessThanOrEqual(8);
    expect(huge[huge.length - 1]).toBeGreaterThanOrEqual(100 * 3600);
  });

  it("has a sane axis before the first sample", () => {
    expect(timeTicks(0)).toEqual([0, 1]);
    expect(timeTicks(Number.NaN)).toEqual([0, 1]);
  });
});

describe("timeAxis", () => {
  it("runs to a round tick past the last sample while the step runs", () => {
    expect(timeAxis(15.03, false)).toEqual({ ticks: [0, 5, 10, 15, 20], end: 20 });
  });

  it("ends where the job ended once the step has ended", () => {
    // A 15 s job: fio's 30 ms final interval folded in, the last point at 15.03 s.
    expect(timeAxis(15.03, true)).toEqual({ ticks: [0, 5, 10, 15], end: 15.03 });
    expect(timeAxis(40, true)).toEqual({ ticks: [0, 10, 20, 30, 40], end: 40 });
    expect(timeAxis(0, true)).toEqual({ ticks: [0, 1], end: 1 });
  });
});

describe("formatCompact", () => {
  it("abbreviates thousands and millions", () => {
    expect(formatCompact(950)).toBe("950");
    expect(formatCompact(12_500)).toBe("12.5k");
    expect(formatCompact(1_000)).toBe("1k");
    expect(formatCompact(1_234_567)).toBe("1.2M");
    expect(formatCompact(0)).toBe("0");
  });
});

describe("a step's short last interval", () => {
  const sample = (t: number, dt: number, mbps: number) =>
    ({ step_id: 1, t, dt, read_mbps: 0, write_mbps: mbps, read_iops: 0, write_iops: mbps * 8 }) as Sample;
  it("is folded into the one before, weighted by its length", () => {
    const samples = [sample(1, 1, 100), sample(2, 1, 100), sample(3, 1, 100), sample(3.03, 0.03, 10)];
    const points = toChartPoints(samples);
    expect(points).toHaveLength(3);
    expect(points[2]!.t).toBe(3.03);
    expect(points[2]!.write_mbps).toBeCloseTo((100 * 1 + 10 * 0.03) / 1.03);
  });
  it("leaves a series of whole intervals as it is", () => {
    const samples = [sample(1, 1, 100), sample(2, 1, 90), sample(3, 1, 80)];
    expect(toChartPoints(samples).map((p) => p.write_mbps)).toEqual([100, 90, 80]);
  });
});

describe("temperature", () => {
  it("keeps the drive's °C with each point, and no reading as null (no sensor), never 0", () => {
    const points = toChartPoints([
      sample(1, { temp_c: 49.9 }),
      sample(2, { temp_c: null }),
      sample(3, { temp_c: 51.2 }),
    ]);
    expect(points.map((p) => p.temp_c)).toEqual([49.9, null, 51.2]);
    expect(hasTemperature(points)).toBe(true);
    expect(hasTemperature(toChartPoints([sample(1), sample(2)]))).toBe(false);
    expect(temperatureAxis(toChartPoints([sample(1)]))).toBeNull();
  });

  it("puts round °C ticks around what was seen, at least 10 °C tall", () => {
    const flat = temperatureAxis(toChartPoints([sample(1, { temp_c: 45 }), sample(2, { temp_c: 46 })]));
    expect(flat).not.toBeNull();
    expect(flat!.domain[0]).toBeLessThanOrEqual(40.5);
    expect(flat!.domain[1]).toBeGreaterThanOrEqual(50.5);
    const hot = temperatureAxis(
      toChartPoints([sample(1, { temp_c: 35.2 }), sample(2, { temp_c: 78.4 })]),
    );
    expect(hot!.domain[0]).toBeLessThanOrEqual(35.2);
    expect(hot!.domain[1]).toBeGreaterThanOrEqual(78.4);
    expect(hot!.ticks.every((t) => Number.isInteger(t))).toBe(true);
  });
});
