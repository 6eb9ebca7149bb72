import { describe, expect, it } from "vitest";
import type { Step } from "../../api/types";
import { BURST_METRICS, burstTests, burstsCsvRows, figure } from "./bursts-utils";

function summary(test: string, direction: string, rows: { burst: number; iops: number; mbps: number }[]): Step {
  return {
    name: test,
    findings: {
      bursts: {
        test,
        label: test,
        direction,
        bursts: rows.length,
        iops_mean: 11000,
        iops_min: 10000,
        iops_max: 12000,
        iops_spread_pct: 9.1,
        mbps_mean: 45,
        mbps_min: 41,
        mbps_max: 49,
        mbps_spread_pct: 8.9,
        idle_min_s: 4.05,
        rows: rows.map((r) => ({ step: `${test}-burst0${r.burst}`, runtime_s: 0.5, idle_before_s: 4.1, ...r })),
        note: "the words",
      },
    },
  } as unknown as Step;
}

describe("burstTests", () => {
  it("quotes IOPS for random tests and MB/s for sequential ones, burst by burst", () => {
    const steps = [
      { name: "rnd4k-q1-read-burst01", findings: null } as unknown as Step,
      summary("rnd4k-q1-read", "read", [
        { burst: 1, iops: 10000, mbps: 40.96 },
        { burst: 2, iops: 12000, mbps: 49.15 },
      ]),
      summary("seq128k-q1-write", "write", [{ burst: 1, iops: 350, mbps: 45.9 }]),
    ];
    const tests = burstTests(steps);
    expect(tests.map((t) => [t.test, t.unit, t.mean])).toEqual([
      ["rnd4k-q1-read", "IOPS", 11000],
      ["seq128k-q1-write", "MB/s", 45],
    ]);
    expect(tests[0]!.points.map((p) => p.value)).toEqual([10000, 12000]);
    expect(tests[1]!.points.map((p) => p.value)).toEqual([45.9]);
    expect(burstsCsvRows(tests[0]!)[1]).toEqual(["rnd4k-q1-read", 2, 12000, 49.15, 0.5, 4.1]);
  });

  it("writes figures as a reviewer does", () => {
    expect(figure(12345.6)).toBe("12,346");
    expect(figure(45.678)).toBe("45.7");
  });

  it("draws on Compare the mean figure of each test", () => {
    expect(BURST_METRICS).toHaveLength(4);
    expect(BURST_METRICS.every((m) => m.startsWith("qd1-bursts:"))).toBe(true);
  });
});
