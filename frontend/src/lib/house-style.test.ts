import { describe, expect, it } from "vitest";
import { driveStyles, REVIEW_COLOR } from "./house-style";

describe("driveStyles", () => {
  it("gives the drive under review the accent and the others fixed colours by position", () => {
    const styles = driveStyles([7, 3, 9], 3);
    expect(styles.get(3)).toEqual({ color: REVIEW_COLOR, underReview: true });
    const others = [styles.get(7)?.color, styles.get(9)?.color];
    expect(new Set(others).size).toBe(2);
    expect(others).not.toContain(REVIEW_COLOR);
    // The same choice gives the same colours (every chart of the page, every export).
    expect(driveStyles([7, 3, 9], 3)).toEqual(styles);
    // Without a drive under review the first drive takes the first colour.
    expect(driveStyles([7, 3, 9], null).get(7)?.color).toBe(others[0]);
  });
});
