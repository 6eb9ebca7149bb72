import { describe, expect, it } from "vitest";
import type { Line } from "../../lib/series-utils";
import { defaultZoomStart, formatIops, scatterGeometry } from "./consistency-scatter-utils";

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

describe("scatterGeometry", () => {
  const five = Array.from({ length: 5 }, (_, i) =>
    line(`d${i}`, 2000, (t) => (t % 97 === 0 ? 0 : 5000 + ((t * 37 * (i + 1)) % 60000))),
  );

  it("draws each drive as one path with a dot per point", () => {
    const g = scatterGeometry(five, "log", 800, 300, { zoomStart: 1400, linearTop: 40000 });
    expect(g.paths).toHaveLength(5);
    expect(g.paths.every((p) => p.count === 2000)).toBe(true);
    expect(g.paths[0]?.d.match(/M/g)).toHaveLength(2000);
    expect(g.y.ticks[0]).toBeLessThanOrEqual(5000);
    expect(g.floored).toBe(5 * 20); // the zeros sit on the axis floor
  });

  it("zooms from the start time and clips the linear view at its top", () => {
    const g = scatterGeometry(five, "linear", 800, 300, { zoomStart: 1400, linearTop: 40000 });
    expect(g.x.domain).toEqual([1400, 2000]);
    expect(g.y.domain).toEqual([0, 40000]);
    expect(g.y.ticks).toEqual([0, 10000, 20000, 30000, 40000]);
    const drawn = g.paths.reduce((n, p) => n + p.count, 0);
    expect(drawn + g.above).toBe(5 * 601); // t = 1400..2000
    expect(g.above).toBeGreaterThan(0);
    // every dot inside the plot
    for (const p of g.paths) {
      for (const m of p.d.matchAll(/M([\d.]+) ([\d.]+)/g)) {
        expect(Number(m[1])).toBeGreaterThanOrEqual(56);
        expect(Number(m[2])).toBeLessThanOrEqual(300 - 34 + 0.01);
      }
    }
  });

  it("formats IOPS ticks", () => {
    expect([formatIops(40000), formatIops(1000), formatIops(1.2e6), formatIops(500)]).toEqual([
      "40K",
      "1K",
      "1.2M",
      "500",
    ]);
  });
});
