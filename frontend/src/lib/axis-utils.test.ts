import { describe, expect, it } from "vitest";
import {
  decimalsFor,
  formatAt,
  isNiceStep,
  niceAxis,
  niceStep,
  niceTicks,
  tickFormat,
  yAxisWidth,
  zeroAxis,
} from "./axis-utils";

const steps = (ticks: number[]) => ticks.slice(1).map((t, i) => Number((t - ticks[i]!).toPrecision(10)));

describe("the one tick rule", () => {
  it("only takes steps of 1, 2, 2.5, 5 x 10^n", () => {
    for (const [lo, hi] of [
      [0, 220],
      [0, 1350],
      [0, 237],
      [20.005999, 60],
      [0, 0.0031],
      [3, 97_000],
      [0, 1_234_567],
      [1400, 2000],
    ] as [number, number][]) {
      for (const count of [3, 4, 5, 6, 8]) {
        for (const s of steps(niceTicks(lo, hi, count))) expect(isNiceStep(s), `${lo}-${hi}/${count}: ${s}`).toBe(true);
        for (const s of steps(niceAxis(lo, hi, count).ticks)) expect(isNiceStep(s)).toBe(true);
      }
    }
    expect(isNiceStep(55)).toBe(false);
    expect(isNiceStep(450)).toBe(false);
    expect(isNiceStep(250)).toBe(true);
  });

  it("never gives the steps the issue saw (55, 450)", () => {
    expect(zeroAxis(220).ticks).toEqual([0, 50, 100, 150, 200, 250]);
    expect(zeroAxis(1350).ticks).toEqual([0, 500, 1000, 1500]);
    expect(zeroAxis(1350, 6).ticks).toEqual([0, 250, 500, 750, 1000, 1250, 1500]);
    expect(niceStep(1000, 4)).toBe(250);
    expect(niceStep(7, 5)).toBe(2);
  });

  it("widens an axis outward to round ticks", () => {
    expect(niceAxis(0, 237, 5)).toEqual({ domain: [0, 250], ticks: [0, 50, 100, 150, 200, 250], step: 50 });
    const flat = niceAxis(12, 12, 4);
    expect(flat.domain[0]).toBeLessThanOrEqual(12);
    expect(flat.domain[1]).toBeGreaterThan(12);
    expect(zeroAxis(0).ticks).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
  });

  it("labels distinct ticks distinctly with as few decimals as separate them", () => {
    const ticks = niceTicks(20.005999, 20.0061, 5);
    const labels = ticks.map(tickFormat(ticks));
    expect(new Set(labels).size).toBe(labels.length);
    expect(tickFormat([20, 20.5, 21])(20)).toBe("20.0");
    expect(tickFormat([0, 0.25, 0.5]).call(null, 0.5)).toBe("0.50");
    expect([0, 10000, 20000].map(tickFormat([0, 10000, 20000]))).toEqual(["0", "10K", "20K"]);
    expect([0, 2500, 5000].map(tickFormat([0, 2500, 5000]))).toEqual(["0", "2,500", "5,000"]);
    expect([100, 1000, 10000].map(tickFormat([100, 1000, 10000]))).toEqual(["100", "1K", "10K"]);
    expect(decimalsFor([1, 1.5, 2])).toBe(1);
  });

  it("says a zoom start at its axis' precision", () => {
    expect(formatAt(20.005999, [30, 40, 50])).toBe("20.0");
    expect(formatAt(1400, [1400, 1500])).toBe("1400");
    expect(formatAt(20.25, [20, 20.25, 20.5])).toBe("20.25");
  });
});

describe("yAxisWidth", () => {
  it("leaves the rotated title room beside the widest tick label", () => {
    const narrow = yAxisWidth(["0", "50"]);
    const wide = yAxisWidth(["1 µs", "100 ms"]);
    expect(wide).toBeGreaterThan(narrow);
    // "100 ms" at 12 px is about 43 px: tick + gap + a 12 px title still fit.
    expect(wide).toBeGreaterThanOrEqual(6 * 12 * 0.58 + 8 + 16);
    expect(yAxisWidth(["1,000"], false)).toBeLessThan(yAxisWidth(["1,000"]));
  });
});
