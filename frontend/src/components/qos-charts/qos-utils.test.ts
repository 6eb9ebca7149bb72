import { describe, expect, it } from "vitest";
import type { DriveSweep } from "../../api/results/types";
import { driveStyles } from "../../lib/house-style";
import {
  decades,
  formatLatency,
  qdTicks,
  qosCsv,
  qosValue,
  sweepConditions,
  sweepFigureRows,
  sweepFiguresCsv,
  sweepLines,
  sweepWorkloads,
  testWords,
  workloadName,
} from "./qos-utils";

const q = {
  ios: 10_000,
  binned_ios: 10_000,
  mean_us: 120.5,
  min_us: 50,
  max_us: 9_000,
  percentiles: { p50: 100, p99: 800, "p99.999": null },
  unsupported: { "p99.999": "not enough I/Os: 10,000 completed" },
};

describe("qos utils", () => {
  it("says why a percentile is missing", () => {
    expect(qosValue(q, "p99")).toEqual({ us: 800 });
    expect(qosValue(q, "p99.999").us).toBeNull();
    expect(qosValue(q, "p99.999").reason).toContain("not enough I/Os");
    expect(qosValue(q, "max").us).toBe(9_000);
  });
  it("formats latencies in their unit", () => {
    expect(formatLatency(87.34)).toBe("87.3 µs");
    expect(formatLatency(1250)).toBe("1.25 ms");
    expect(formatLatency(2.5e6)).toBe("2.50 s");
    expect(formatLatency(null)).toBe("—");
  });
  it("spans decades and powers of two", () => {
    expect(decades(3, 2000)).toEqual({ domain: [1, 10000], ticks: [1, 10, 100, 1000, 10000] });
    expect(qdTicks([1, 8, 32])).toEqual([1, 2, 4, 8, 16, 32]);
  });
  it("exports rows with empty cells for missing percentiles", () => {
    const text = qosCsv([{ label: "4K QD1", direction: "read", qos: q }], { title: "QoS" });
    const last = text.trim().split("\n").pop()!;
    expect(last.startsWith("4K QD1,read,10000,120.5,100,800,")).toBe(true);
    expect(last.endsWith(",,9000")).toBe(true);
  });
});

const point = (qd: number, iops: number, p99: number | null, p9999: number | null) => ({
  step_id: qd,
  qd,
  total_qd: qd * 2,
  iops,
  mbps: (iops * 4096) / 1e6,
  mean_us: 10,
  p50_us: 8,
  p99_us: p99,
  p99_9_us: null,
  p99_99_us: p9999,
  max_us: 900,
});

const sweep = (id: number, review: boolean, workloads: string[], target = 1000): DriveSweep => ({
  drive_id: id,
  label: `Drive ${id} (S/N X${id})`,
  short_name: null,
  simulated: id === 2,
  under_review: review,
  run_id: 10 + id,
  numjobs: 2,
  latency_target_us: target,
  conditions: {
    plan: "qd-sweep",
    iodepth: 1,
    span_bytes: 67108864,
    pattern: null,
    op_percent: 0,
    firmware: "1.0",
    fio_version: "fio-3.33",
    finished_at: "2026-11-20T10:00:00Z",
    compared: { "queue depth": "QD1, 8 x 2 jobs", span: "64 MiB", runtime: "8 s", "drive state before": "purged, preconditioned" },
  },
  workloads: workloads.map((w) => ({
    workload: w,
    points: [point(1, 10_000 * id, 200, null), point(8, 60_000 * id, 1_500, 4_000)],
    figures: {
      points: 2,
      peak_iops: 60_000 * id,
      peak_qd: 8,
      share: 0.95,
      qd_at_share_of_peak: 8,
      iops_at_share_of_peak: 60_000 * id,
      target_us: target,
      iops_under_target: 10_000 * id,
      qd_under_target: 1,
      p99_under_target_us: 200,
      next_over_target: { qd: 8, iops: 60_000 * id, p99_us: 1_500 },
      low_qd_iops: id === 1 ? 12_345.6 : null,
    },
  })),
});

describe("queue-depth sweeps across drives", () => {
  const drives = [sweep(1, true, ["mix70", "randread"]), sweep(2, false, ["randread"])];
  const styles = driveStyles([1, 2], 1);
  it("lists the workloads in the plan's order, mixes by their read share", () => {
    expect(sweepWorkloads(drives)).toEqual(["randread", "mix70"]);
    const more = [sweep(3, false, ["mix50", "randwrite", "mix70", "randread"])];
    expect(sweepWorkloads(more)).toEqual(["randread", "randwrite", "mix70", "mix50"]);
    expect(workloadName("mix70")).toBe("4K random 70/30");
    expect(workloadName("mix5")).toBe("4K random 5/95");
    expect(workloadName("randwrite")).toBe("4K random write");
  });
  it("draws IOPS against outstanding I/Os, the drive under review last", () => {
    const lines = sweepLines(drives, "randread", "iops", styles);
    expect(lines.map((l) => l.driveId)).toEqual([2, 1]);
    expect(lines[1]!.points).toEqual([
      [2, 10_000],
      [16, 60_000],
    ]);
    expect(lines[1]!.color).toBe(styles.get(1)!.color);
    // A workload only one drive swept has only its line.
    expect(sweepLines(drives, "mix70", "iops", styles).map((l) => l.driveId)).toEqual([1]);
  });
  it("draws p99 solid and p99.99 dashed against IOPS, leaving out what a point cannot give", () => {
    const lines = sweepLines([drives[1]!], "randread", "latency", styles);
    expect(lines.map((l) => [l.label, l.dashed])).toEqual([
      ["Drive 2 p99", false],
      ["Drive 2 p99.99", true],
    ]);
    expect(lines[0]!.points).toEqual([
      [20_000, 200],
      [120_000, 1_500],
    ]);
    // QD1 ran too few I/Os for a p99.99: one point, not a zero.
    expect(lines[1]!.points).toEqual([[120_000, 4_000]]);
  });
  it("tabulates and exports the figures a review quotes", () => {
    const rows = sweepFigureRows(drives, "randread");
    expect(rows.map((r) => [r.label, r.highlight, r.peakIops, r.qdAt95, r.iopsUnderTarget])).toEqual([
      ["Drive 1", true, 60_000, 8, 10_000],
      ["Drive 2", false, 120_000, 8, 20_000],
    ]);
    const csv = sweepFiguresCsv(rows, { title: "Sweep", provenance: "drivelab" });
    const lines = csv.trim().split("\n");
    expect(lines[0]).toBe("# title: Sweep");
    // Drive 2 did not sweep QD2 and 4: no low-QD score, an empty cell, not a zero.
    expect(lines[lines.length - 1]).toBe("Drive 2,2,120000,8,8,1000,20000,1,200,8,1500,");
    expect(lines[lines.length - 2]).toBe("Drive 1,2,60000,8,8,1000,10000,1,200,8,1500,12346");
  });
  it("states the queue depths swept in the conditions", () => {
    expect(sweepConditions(drives, "randread")).toBe(
      "qd-sweep · 4K random read · QD1, 8 x 2 jobs · span 64 MiB · 8 s a point · purged, preconditioned",
    );
  });
});

describe("testWords", () => {
  it("names plans and tests by their keys, not by a variant's", () => {
    const w = testWords([
      { metric: "four-corners:randread-4k-qd3:read_iops", names: { plan: "Four corners", test: "4K random read QD3" } },
      { metric: "four-corners:randread-4k-qd3@op25:read_iops", names: { plan: "Four corners", test: "4K random read QD3, 25% OP" } },
    ]);
    expect(w.plans.get("four-corners")).toBe("Four corners");
    expect(w.tests.get("four-corners:randread-4k-qd3")).toBe("4K random read QD3");
    expect(w.tests.size).toBe(1);
  });
});
