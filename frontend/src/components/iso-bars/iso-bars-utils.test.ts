import { describe, expect, it } from "vitest";
import { isoLayout } from "./iso-bars-utils";

const parse = (points: string) => points.split(" ").map((p) => p.split(",").map(Number));

describe("isometric bars", () => {
  const l = isoLayout(
    [
      [100, 200],
      [null, 400],
    ],
    ["4 KiB", "64 KiB"],
    ["100/0", "0/100"],
    600,
    400,
  );

  it("draws one bar per value, none where there is no value", () => {
    expect(l.bars).toHaveLength(3);
    expect(l.bars.some((b) => b.row === 1 && b.col === 0)).toBe(false);
  });

  it("makes a bar's height proportional to its value", () => {
    const height = (row: number, col: number) => {
      const b = l.bars.find((x) => x.row === row && x.col === col)!;
      const side = parse(b.right);
      return side[0]![1]! - side[3]![1]!; // bottom y minus top y of the front edge
    };
    expect(height(0, 1) / height(0, 0)).toBeCloseTo(2, 5);
    expect(height(1, 1) / height(0, 0)).toBeCloseTo(4, 5);
  });

  it("paints bars further back first", () => {
    const depths = l.bars.map((b) => b.row + b.col);
    expect(depths).toEqual([...depths].sort((a, b) => b - a));
  });

  it("stays inside its box", () => {
    const xs = l.bars.flatMap((b) => [b.top, b.left, b.right].flatMap((p) => parse(p).map((q) => q[0]!)));
    const ys = l.bars.flatMap((b) => [b.top, b.left, b.right].flatMap((p) => parse(p).map((q) => q[1]!)));
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThanOrEqual(600);
    expect(Math.min(...ys)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...ys)).toBeLessThanOrEqual(400);
    expect(l.ticks[0]!.label).toBe(0);
  });
});
