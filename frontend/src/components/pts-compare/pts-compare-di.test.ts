import { describe, expect, it } from "vitest";
import type { PtsTestComparison } from "../../api/pts/queries";
import { diCurves } from "./pts-compare-utils";

describe("demand intensity on Compare", () => {
  it("takes each drive's best thread count at each TOC, points only", () => {
    const test = {
      plan: "pts-dirth",
      title: "DIRTH",
      drives: [
        {
          drive_id: 3,
          label: "Drive A",
          under_review: true,
          run_id: 9,
          simulated: false,
          profile: "enterprise",
          steady: true,
          values: {
            "tc1-qd4": { label: "TC1/QD4", toc: 4, iops: 3000, art_us: 1300 },
            "tc4-qd1": { label: "TC4/QD1", toc: 4, iops: 3500, art_us: 1100 },
            "tc1-qd1": { label: "TC1/QD1", toc: 1, iops: 1000, art_us: 1000 },
            "max-iops": { label: "max IOPS point, TC4/QD1", toc: 4, iops: 3500, art_us: 1100 },
          },
        },
      ],
    } as unknown as PtsTestComparison;
    expect(diCurves(test)).toEqual([
      {
        key: "3",
        label: "Drive A",
        points: [
          [1, 1000],
          [4, 3500],
        ],
      },
    ]);
  });
});
