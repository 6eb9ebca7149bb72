import { describe, expect, it } from "vitest";
import type { Step } from "../../api/types";
import { changeText, compareBars, fullDriveCompare, fullDriveRows, testWords } from "./full-drive-utils";

function step(name: string, metric: string, value: number, fullstate?: Record<string, unknown>): Step {
  return {
    name,
    results: [{ metric, value, unit: "MB/s" }],
    findings: fullstate ? { fullstate } : null,
  } as unknown as Step;
}

describe("fullDriveRows", () => {
  it("pairs each test's empty and full figures with the finding", () => {
    const steps = [
      step("empty-prewrite", "write_mbps", 400),
      step("empty-randwrite-4k-qd3", "write_mbps", 16),
      step("fill", "write_mbps", 20),
      step("full80-randwrite-4k-qd3", "write_mbps", 10, {
        drop_pct: 37.5,
        said: "4K random write QD3 falls 38% from empty to 80% full",
        note: "no idle",
      }),
    ];
    const { rows, fillPercent, note } = fullDriveRows(steps);
    expect(fillPercent).toBe(80);
    expect(note).toBe("no idle");
    expect(rows).toEqual([
      {
        test: "randwrite-4k-qd3",
        words: "4K random write QD3",
        direction: "write",
        emptyMbps: 16,
        fullMbps: 10,
        dropPct: 37.5,
        said: "4K random write QD3 falls 38% from empty to 80% full",
      },
    ]);
    expect(changeText(37.5)).toBe("−38%");
    expect(changeText(-4)).toBe("+4%");
  });
});

describe("fullDriveCompare", () => {
  it("keeps each state's pooled figure apart per drive and test", () => {
    const row = (id: number, value: number, count: number) => ({ drive_id: id, label: `d${id}`, value, runs: { count } });
    const metrics = [
      { metric: "full-drive:empty-seqwrite-128k-qd1:write_mbps", rows: [row(1, 40, 2), row(2, 30, 1)] },
      { metric: "full-drive:full80-seqwrite-128k-qd1:write_mbps", rows: [row(1, 10, 2)] },
      { metric: "full-drive:full80-seqwrite-128k-qd1:state_drop_pct", rows: [row(1, 75, 2)] },
      { metric: "full-drive:empty-seqwrite-128k-qd1:write_iops", rows: [row(1, 300, 2)] },
      { metric: "full-drive:empty-prewrite:write_mbps", rows: [row(1, 400, 2)] },
      { metric: "four-corners:seqwrite-128k-qd1:write_mbps", rows: [row(1, 99, 3)] },
    ];
    const { drives, tests, fillPercents } = fullDriveCompare(metrics, [2, 1]);
    expect(tests).toEqual(["seqwrite-128k-qd1"]);
    expect(fillPercents).toEqual([80]);
    expect(drives.map((d) => d.driveId)).toEqual([2, 1]);
    const one = drives[1]?.tests.get("seqwrite-128k-qd1");
    expect(one).toEqual({ empty: { mbps: 40, runs: 2 }, full: { mbps: 10, runs: 2 }, dropPct: 75 });
    expect(compareBars(drives, tests)).toEqual([
      { test: "128K seq. write", "d2:empty": 30, "d2:full": null, "d1:empty": 40, "d1:full": 10 },
    ]);
    expect(testWords("randread-4k-qd32")).toBe("4K random read QD32");
  });
});
