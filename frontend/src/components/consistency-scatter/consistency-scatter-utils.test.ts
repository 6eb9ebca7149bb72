import { describe, expect, it } from "vitest";
import type { Line } from "../../lib/series-utils";
import { defaultZoomStart, scatterAxes, scatterPaths } from "./consistency-scatter-utils";

const line = (key: string, n: number, f: (t: number) => number): Line => ({
  key,
  driveId: 1,
  label: key,
  color: "#123456",
  dashed: false,
  points: Array.from({ length: n }, (_, i) => [i + 1, f(i + 1)] as [number, number]),
});

describe("defaultZoomStart", () => {
  it("is the reviews' 1400 s for a 2000 s run and 70% of a short one", () => {
    expect(defaultZoomStart(2000)).toBe(1400);
    expect(defaultZoomStart(3.2)).toBe(2);
    expect(defaultZoomStart(1000)).toBe(700);
  });
});

describe("scatter axes and paths", () => {
  const five = Array.from({ length: 5 }, (_, i) =>
    line(`d${i}`, 2000, (t) => (t % 97 === 0 ? 0 : 5000 + ((t * 37 * (i + 1)) % 60000))),
  );
  // Scales as Recharts hands them to the layer: value -> px over the axes' domains.
  const linear = ([d0, d1]: [number, number], [r0, r1]: [number, number]) => (v: number) =>
    r0 + ((v - d0) / (d1 - d0)) * (r1 - r0);
  const log = ([d0, d1]: [number, number], [r0, r1]: [number, number]) => (v: number) =>
    r0 + ((Math.log10(v) - Math.log10(d0)) / (Math.log10(d1) - Math.log10(d0))) * (r1 - r0);

  it("draws each drive as one path with a dot per point, on whole decades", () => {
    const axes = scatterAxes(five, "log", 700, { zoomStart: 1400, linearTop: 40000 });
    expect(axes.x.domain).toEqual([0, 2000]);
    expect(axes.y.domain).toEqual([1000, 100000]);
    expect(axes.y.ticks).toEqual([1000, 10000, 100000]);
    const x = linear(axes.x.domain, [56, 788]);
    const y = log(axes.y.domain, [266, 8]);
    const p = scatterPaths(five, axes, x, y, 40000);
    expect(p.paths).toHaveLength(5);
    expect(p.paths.every((q) => q.count === 2000)).toBe(true);
    expect(p.paths[0]?.d.match(/M/g)).toHaveLength(2000);
    expect(p.floored).toBe(5 * 20); // the zeros sit on the axis floor
    expect(p.paths[0]?.d).toContain(`M${x(97).toFixed(1)} 266.0h0`);
  });

  it("zooms from the start time and clips the linear view at its top", () => {
    const axes = scatterAxes(five, "linear", 700, { zoomStart: 1400, linearTop: 40000 });
    expect(axes.x.domain).toEqual([1400, 2000]);
    expect(axes.x.ticks).toEqual([1400, 1500, 1600, 1700, 1800, 1900, 2000]);
    expect(axes.y.domain).toEqual([0, 40000]);
    expect(axes.y.ticks).toEqual([0, 10000, 20000, 30000, 40000]);
    const p = scatterPaths(five, axes, linear(axes.x.domain, [56, 788]), linear([0, 40000], [266, 8]), 40000);
    const drawn = p.paths.reduce((n, q) => n + q.count, 0);
    expect(drawn + p.above).toBe(5 * 601); // t = 1400..2000
    expect(p.above).toBeGreaterThan(0);
    // every dot inside the plot
    for (const q of p.paths) {
      for (const m of q.d.matchAll(/M([\d.]+) ([\d.]+)/g)) {
        expect(Number(m[1])).toBeGreaterThanOrEqual(56);
        expect(Number(m[2])).toBeLessThanOrEqual(266);
      }
    }
  });
});

describe("panels that are compared", () => {
  // The default panel dips to 1K IOPS, the 25% OP one stays above 10K: one y range for both.
  const base = [line("base", 60, (t) => (t % 10 === 0 ? 1000 : 50_000))];
  const op = [line("op", 20, () => 60_000)];
  const shared = [...base, ...op];

  it("share their time and IOPS ranges", () => {
    for (const mode of ["log", "log-zoom", "linear"] as const) {
      const a = scatterAxes(base, mode, 400, { zoomStart: 10, linearTop: 40_000, shared });
      const b = scatterAxes(op, mode, 400, { zoomStart: 10, linearTop: 40_000, shared });
      expect(a.y.domain).toEqual(b.y.domain);
      expect(a.x.domain).toEqual(b.x.domain);
      expect(a.x.ticks).toEqual(b.x.ticks);
    }
    expect(scatterAxes(op, "log", 400, { zoomStart: 0, linearTop: 1, shared }).y.domain[0]).toBe(1000);
  });

  it("take no zoom start past the end of the runs (never 'from t = 20.005999 s')", () => {
    const short = [line("short", 20, () => 100)];
    const axes = scatterAxes(short, "linear", 400, { zoomStart: 1400, linearTop: 200 });
    expect(axes.start).toBe(defaultZoomStart(20));
    const labels = axes.x.ticks.map(String);
    expect(new Set(labels).size).toBe(labels.length);
    expect(axes.x.ticks.length).toBeGreaterThan(1);
  });
});
