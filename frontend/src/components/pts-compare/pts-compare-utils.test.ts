import { describe, expect, it } from "vitest";
import type { PtsTestComparison } from "../../api/pts/queries";
import { cell, diffText, iopsGrid, latencyElements, pctDiff, reference, xsrStimuli } from "./pts-compare-utils";

const test: PtsTestComparison = {
  plan: "pts-iops",
  title: "IOPS",
  drives: [
    { drive_id: 1, label: "A", under_review: false, run_id: 1, simulated: true, profile: "enterprise", steady: true,
      values: { "4k": { "0/100": 1000, "100/0": 5000 }, "1m": { "0/100": 50 } } },
    { drive_id: 2, label: "B", under_review: true, run_id: 2, simulated: true, profile: "enterprise", steady: false,
      values: { "4k": { "0/100": 800, "65/35": 2000 } } },
  ],
};

describe("PTS comparison", () => {
  it("takes differences from the drive under review", () => {
    expect(reference(test)?.drive_id).toBe(2);
    expect(pctDiff(1000, 800)).toBe(25);
    expect(pctDiff(1, 0)).toBeNull();
    expect(pctDiff(null, 3)).toBeNull();
  });

  it("says whether a difference is better", () => {
    expect(diffText(25)).toEqual({ text: "+25%", tone: "better" });
    expect(diffText(-8.4)).toEqual({ text: "−8%", tone: "worse" });
    expect(diffText(-8.4, true)).toEqual({ text: "−8%", tone: "better" });
    expect(diffText(0.2)).toEqual({ text: "±0%", tone: "same" });
    expect(diffText(null)).toEqual({ text: "—", tone: "same" });
  });

  it("builds the grid every drive fits in, in the specification's order", () => {
    expect(iopsGrid(test)).toEqual({ sizes: ["1m", "4k"], mixes: ["100/0", "65/35", "0/100"] });
    expect(cell(test.drives[0]!, "4k", "65/35")).toBeNull();
    expect(cell(test.drives[1]!, "4k", "65/35")).toBe(2000);
  });

  it("lists latency elements once", () => {
    const lat: PtsTestComparison = {
      ...test,
      plan: "pts-latency",
      drives: test.drives.map((d) => ({ ...d, values: { "r0w100-4k": { label: "4 KiB random 0/100", mean: 20 } } })),
    };
    expect(latencyElements(lat)).toEqual([{ name: "r0w100-4k", label: "4 KiB random 0/100" }]);
  });

  it("lists the XSR stimuli in the order the test runs them, the first without a transition", () => {
    const xsr: PtsTestComparison = {
      plan: "pts-xsr",
      title: "XSR",
      drives: [
        { drive_id: 1, label: "A", under_review: true, run_id: 1, simulated: true, profile: "enterprise", steady: true,
          values: {
            "xsr-seq-2": { label: "sequential 1024 KiB write, TC1 QD32", recovery_s: 8.1 },
            "xsr-seq-1": { label: "sequential 1024 KiB write, TC1 QD32", recovery_s: null },
            "xsr-rand": { label: "random 8 KiB write, TC1 QD32", recovery_s: 5.0 },
          } },
      ],
    };
    expect(xsrStimuli(xsr)).toEqual([
      { name: "xsr-seq-1", label: "sequential 1024 KiB write", first: true },
      { name: "xsr-rand", label: "random 8 KiB write", first: false },
      { name: "xsr-seq-2", label: "sequential 1024 KiB write", first: false },
    ]);
    expect(cell(xsr.drives[0]!, "xsr-rand", "recovery_s")).toBe(5.0);
  });
});
