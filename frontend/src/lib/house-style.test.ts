import { describe, expect, it } from "vitest";
import { driveColor, driveStyles, widthOf } from "./house-style";

describe("driveStyles", () => {
  it("gives each drive the colour of its id, whatever its role or place in the list", () => {
    const styles = driveStyles([7, 3, 9], 3);
    expect(styles.get(3)).toEqual({ color: driveColor(3), underReview: true });
    expect(styles.get(7)?.color).toBe(driveColor(7));
    // Another comparison, another order, another drive under review: the same colours.
    const other = driveStyles([9, 2, 7, 3], 9);
    for (const id of [3, 7, 9]) expect(other.get(id)?.color).toBe(styles.get(id)?.color);
    expect(other.get(9)?.underReview).toBe(true);
    expect(other.get(3)?.underReview).toBe(false);
    // The same choice gives the same colours (every chart of the page, every export).
    expect(driveStyles([7, 3, 9], 3)).toEqual(styles);
  });

  it("never gives two drives of one comparison the same colour", () => {
    const ids = [1, 9, 17, 2, 10];
    const styles = driveStyles(ids, 9);
    expect(new Set(ids.map((id) => styles.get(id)?.color)).size).toBe(ids.length);
    expect(styles.get(1)?.color).toBe(driveColor(1));
  });

  it("sets the drive under review apart by width, not by colour", () => {
    const styles = driveStyles([4, 5], 5);
    expect(widthOf(styles, 5)).toBeGreaterThan(widthOf(styles, 4));
  });
});
