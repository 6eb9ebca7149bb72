import { describe, expect, it } from "vitest";
import { blockSizeTicks, markerLanes, overlayText } from "./series-lines-utils";

describe("overlayText", () => {
  it("says why nothing is drawn, or nothing when there is data", () => {
    const ok = { isPending: false, error: null };
    expect(overlayText([], ok, 0, "x")).toBe("Choose drives to compare.");
    expect(overlayText([1], { isPending: true, error: null }, 0, "x")).toBe("Loading…");
    expect(overlayText([1], { isPending: false, error: new Error("boom") }, 0, "x")).toBe(
      "Could not load: boom",
    );
    expect(overlayText([1], ok, 0, "no finished hdtach run")).toContain("no finished hdtach run");
    expect(overlayText([1], ok, 2, "x")).toBeUndefined();
  });
});

describe("blockSizeTicks", () => {
  it("gives powers of 2 within the range, thinned to at most 8", () => {
    expect(blockSizeTicks(4096, 4 * 1024 ** 2)).toEqual([
      4096, 16384, 65536, 262144, 1048576, 4194304,
    ]);
    expect(blockSizeTicks(4096, 65536)).toEqual([4096, 8192, 16384, 32768, 65536]);
  });
});

describe("markerLanes", () => {
  it("puts labels that would overlap on rows of their own, left of their line", () => {
    // HD Tach step-downs at 30.2%, 31.4%, 42.5% and 70.2% of a 500 px plot from x = 50
    const px = (pct: number) => 50 + pct * 5;
    const placed = markerLanes(
      [
        { key: "a1", px: px(30.2), width: 90 },
        { key: "c", px: px(31.4), width: 90 },
        { key: "b", px: px(42.5), width: 90 },
        { key: "a2", px: px(70.2), width: 90 },
      ],
      50,
      550,
    );
    const by = new Map(placed.map((p) => [p.key, p]));
    expect(by.get("a1")).toEqual({ key: "a1", x: px(30.2) - 3, anchor: "end", lane: 0 });
    expect(by.get("c")?.lane).toBe(1);
    expect(by.get("b")?.lane).toBe(2); // clears neither 30.2% nor 31.4% by 90 px
    expect(by.get("a2")?.lane).toBe(0);
  });

  it("puts a label right of its line near the left edge", () => {
    const [p] = markerLanes([{ key: "x", px: 60, width: 90 }], 50, 550);
    expect(p).toEqual({ key: "x", x: 63, anchor: "start", lane: 0 });
  });
});
