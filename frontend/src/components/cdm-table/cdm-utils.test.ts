import { describe, expect, it } from "vitest";
import type { Step } from "../../api/types";
import { cdmCsvRows, cdmRows, formatCdm } from "./cdm-utils";

function summary(name: string, direction: "read" | "write", passes: number[]): Step {
  const best = passes.indexOf(Math.max(...passes)) + 1;
  return {
    id: passes.length,
    idx: 0,
    kind: "idle",
    name,
    label: name,
    params: {},
    status: "done",
    progress: 1,
    estimate_s: 5,
    started_at: null,
    finished_at: null,
    error: null,
    stderr: null,
    results: [
      { metric: `${direction}_mbps`, value: Math.max(...passes), unit: "MB/s" },
      { metric: `${direction}_iops`, value: Math.max(...passes) * 1e6 / 4096, unit: "IOPS" },
    ],
    findings: {
      cdm: {
        test: name,
        label: null,
        direction,
        best_pass: best,
        passes: passes.map((mbps, i) => ({ step: `${name}-pass${i + 1}`, number: i + 1, mbps })),
      },
    },
  } as unknown as Step;
}

describe("cdmRows", () => {
  const steps = [
    summary("seq1m-q8t1-read", "read", [3480.1, 3512.345, 3499]),
    summary("seq1m-q8t1-write", "write", [2900, 2950.5, 2700]),
    { ...summary("rnd4k-q1t1-read", "read", [60]), status: "running", results: [], findings: null } as Step,
  ];

  it("lays the best passes out as the Read/Write table, in the readers' order", () => {
    const rows = cdmRows(steps, "mbps");
    expect(rows.map((r) => r.label)).toEqual(["SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T16", "RND4K Q1T1"]);
    expect(rows[0]!.read.value).toBe(3512.345);
    expect(rows[0]!.write.value).toBe(2950.5);
    expect(rows[0]!.read.detail).toBe("best of 3 passes (* the best, by MB/s): 3,480.10 / *3,512.35 / 3,499.00");
    // A test still running, and one the run does not have.
    expect(rows[3]!.read).toEqual({ value: null, detail: "running" });
    expect(rows[1]!.read).toEqual({ value: null, detail: "not in this run" });
  });

  it("shows the unit picked, and exports what it shows", () => {
    const rows = cdmRows(steps, "iops");
    expect(rows[0]!.read.value).toBeCloseTo((3512.345 * 1e6) / 4096);
    expect(cdmCsvRows(cdmRows(steps, "mbps"))[0]).toEqual(["SEQ1M Q8T1", 3512.345, 2950.5]);
  });

  it("prints figures with two decimals and a dash for none", () => {
    expect(formatCdm(3512.345, "mbps")).toBe("3,512.35");
    expect(formatCdm(null, "lat_mean_us")).toBe("–");
  });
});
