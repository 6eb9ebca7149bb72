import { describe, expect, it } from "vitest";
import type { Step } from "../../api/types";
import { recoveredText, slcCompare, slcFindings } from "./slc-utils";

const step = (name: string, slc: Record<string, unknown> | null): Step =>
  ({ name, findings: slc ? { slc } : null }) as unknown as Step;

describe("slcFindings", () => {
  it("reads the fill's cache and each refill's recovery, by idle time", () => {
    const { fill, refills } = slcFindings([
      step("purge", null),
      step("slc-fill", { kind: "fill", cache_gb: 24, cache_mbps: 2000, after_mbps: 400, resolution_gb: 2, note: "n" }),
      step("slc-refill-after-20s", { kind: "refill", idle_s: 20, idle_measured_s: 21.4, recovered_gb: 25, at_least: true, state: "whole", resolution_gb: 0.5 }),
      step("slc-refill-after-10s", { kind: "refill", idle_s: 10, recovered_gb: 6.2, at_least: false, state: "step-down", resolution_gb: 0.5 }),
    ]);
    expect(fill).toMatchObject({ cacheGb: 24, cacheMbps: 2000, afterMbps: 400 });
    expect(refills.map((r) => r.idleS)).toEqual([10, 20]);
    expect(refills.map((r) => r.idleMeasuredS)).toEqual([null, 21.4]);
    expect(refills.map(recoveredText)).toEqual(["6.2 GB", "≥ 25 GB"]);
  });

  it("says none with the resolution, and unknown without a finding", () => {
    expect(recoveredText({ recoveredGb: 0, atLeast: false, state: "none", resolutionGb: 0.5 })).toBe(
      "none (< 0.5 GB)",
    );
    expect(recoveredText({ recoveredGb: null, atLeast: false, state: "unknown", resolutionGb: 0.5 })).toBe(
      "unknown",
    );
  });
});

describe("slcCompare", () => {
  const row = (drive_id: number, value: number) => ({ drive_id, label: `Drive ${drive_id}`, short_name: null, value });
  it("lays each drive's cache and recoveries out by idle, in the drives' order", () => {
    const { drives, idles } = slcCompare(
      [
        { metric: "slc-cache:slc-fill:slc_cache_gb", rows: [row(2, 24), row(1, 0.05)] },
        { metric: "slc-cache:slc-fill:slc_cache_mbps", rows: [row(2, 2000)] },
        { metric: "slc-cache:slc-fill:slc_after_cache_mbps", rows: [row(2, 400)] },
        { metric: "slc-cache:slc-refill-after-15s:slc_recovered_gb", rows: [row(2, 25)] },
        { metric: "slc-cache:slc-refill-after-15s:slc_recovered_at_least", rows: [row(2, 1)] },
        { metric: "slc-cache:slc-refill-after-10s:slc_recovered_gb", rows: [row(2, 6), row(1, 0.02)] },
        { metric: "slc-cache:slc-refill-after-10s:slc_recovered_at_least", rows: [row(2, 0)] },
        { metric: "hdtach:hdtach-write:hdtach_write_avg_mbps", rows: [row(3, 100)] },
      ],
      [1, 2, 3],
    );
    expect(idles).toEqual([10, 15]);
    expect(drives.map((d) => d.driveId)).toEqual([1, 2]);
    expect(drives[1]).toMatchObject({ cacheGb: 24, cacheMbps: 2000, afterMbps: 400 });
    expect(drives[1]!.recovered.get(15)).toEqual({ gb: 25, atLeast: true });
    expect(drives[1]!.recovered.get(10)).toEqual({ gb: 6, atLeast: false });
    expect(drives[0]!.recovered.get(15)).toBeUndefined();
  });
});
