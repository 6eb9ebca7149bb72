import { describe, expect, it } from "vitest";
import { appendixSize, columnOrder, formatPct, scaleUnit } from "./article-utils";

describe("article utils", () => {
  it("writes a difference with its sign", () => {
    expect(formatPct(12.345)).toBe("+12.3%");
    expect(formatPct(-4)).toBe("−4.0%");
    expect(formatPct(0)).toBe("±0.0%");
    expect(formatPct(Number.NaN)).toBe("—");
  });
  it("puts the drive under review first, the others as chosen", () => {
    const d = (id: number, under_review = false) => ({ id, under_review });
    expect(columnOrder([d(3), d(1, true), d(2)]).map((x) => x.id)).toEqual([1, 3, 2]);
  });
  it("counts an appendix", () => {
    expect(appendixSize([{ rows: [] }, { rows: [{} as never, {} as never] }])).toEqual({
      rows: 2,
      groups: 2,
    });
  });
});

describe("scaleUnit", () => {
  it("scales a row of latencies and sizes to one readable unit", () => {
    expect(scaleUnit([72, 4_278_190], "µs")).toEqual(["s", 1e6]);
    expect(scaleUnit([1500, 20], "µs")).toEqual(["ms", 1e3]);
    expect(scaleUnit([72, 150], "µs")).toEqual(["µs", 1]);
    expect(scaleUnit([0.5], "s")).toEqual(["ms", 1e-3]);
    expect(scaleUnit([4e9, 1e6], "bytes")).toEqual(["GB", 1e9]);
    expect(scaleUnit([1e4], "IOPS")).toEqual(["IOPS", 1]);
    expect(scaleUnit([null], "µs")).toEqual(["µs", 1]);
  });
});
