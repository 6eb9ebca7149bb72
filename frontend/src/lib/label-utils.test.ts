import { describe, expect, it } from "vitest";
import { inside, overlaps, placeLabels, pointBox } from "./label-utils";

const bounds = { x0: 0, y0: 0, x1: 300, y1: 200 };

describe("placeLabels", () => {
  it("puts every label beside its point, clear of the points and of each other", () => {
    const points = Array.from({ length: 6 }, (_, i) => [40 + i * 40, 150 - i * 20] as [number, number]);
    const { placed, dropped } = placeLabels(
      points.map(([x, y], i) => ({ key: `QD${2 ** i}`, x, y, width: 30, height: 12 })),
      points.map(([x, y]) => pointBox(x, y)),
      bounds,
    );
    expect(dropped).toEqual([]);
    expect(placed.map((p) => p.key)).toEqual(["QD1", "QD2", "QD4", "QD8", "QD16", "QD32"]);
    for (const p of placed) {
      expect(inside(p.box, bounds)).toBe(true);
      for (const [x, y] of points) expect(overlaps(p.box, pointBox(x, y))).toBe(false);
      for (const q of placed) if (q !== p) expect(overlaps(p.box, q.box)).toBe(false);
    }
  });

  it("moves a label off the plot's edge and off an obstacle, and drops one with no room", () => {
    // A point at the right edge: its label goes to the left.
    const edge = placeLabels([{ key: "a", x: 298, y: 100, width: 40, height: 12 }], [], bounds);
    expect(edge.placed[0]?.anchor).toBe("end");
    // A reference label where points sit: it takes another place.
    const target = { key: "t", x: 10, y: 100, width: 80, height: 12, places: ["ne", "se"] as const };
    const dots = [pointBox(30, 92), pointBox(60, 94)];
    const moved = placeLabels([{ ...target, places: [...target.places] }], dots, bounds);
    expect(moved.placed[0]?.box.y0).toBeGreaterThan(100);
    const none = placeLabels([{ key: "x", x: 5, y: 5, width: 400, height: 12 }], [], bounds);
    expect(none.dropped).toEqual(["x"]);
  });
});
