import { describe, expect, it } from "vitest";
import { blockSizeTicks, overlayText } from "./series-lines-utils";

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
