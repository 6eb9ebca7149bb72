import { describe, expect, it } from "vitest";
import { asSsdCsvRows, asSsdRows, asSsdScores, formatAsSsd } from "../asssd-table/asssd-utils";
import type { Step } from "../../api/types";
import { headlineMetrics, matchesRows } from "../bar-chart/bar-chart-utils";
import { DESKTOP_ROWS, desktopCompare, desktopCsv } from "./desktop-compare-utils";

function step(name: string, results: [string, number][], findings: Step["findings"] = null): Step {
  return {
    id: name.length,
    idx: 0,
    kind: "fio",
    name,
    label: name,
    params: {},
    status: "done",
    progress: 1,
    estimate_s: 1,
    started_at: null,
    finished_at: null,
    error: null,
    stderr: null,
    results: results.map(([metric, value]) => ({ metric, value, unit: "" })),
    findings,
  } as Step;
}

function row(drive: number, value: number) {
  return { drive_id: drive, label: `drive ${drive}`, short_name: null, simulated: drive === 2, value, run_id: 10 + drive, firmware: "sim", fio_version: "fio-3.33", finished_at: "2026-12-06T04:00:00Z" };
}

describe("the AS-SSD-style window of a run", () => {
  it("lays out MB/s by test, the access time in ms, and the score step's scores", () => {
    const steps = [
      step("asssd-seq-read", [["read_mbps", 49.93], ["read_iops", 2.97]]),
      step("asssd-seq-write", [["write_mbps", 29.88]]),
      step("asssd-acc-read", [["read_lat_mean_us", 496.2], ["read_mbps", 1.0]]),
      step("asssd-score", [], {
        asssd: { tests: [], score_read: 74.4, score_write: 63.2, score_total: 183.5, score_source: "weights of X", words: "" },
      } as Step["findings"]),
    ];
    const rows = asSsdRows(steps, "mbps");
    expect(rows.map((r) => r.label)).toEqual(["Seq", "4K", "4K-64Thrd", "Acc.time"]);
    expect(rows[0]!.read).toMatchObject({ value: 49.93, unit: "MB/s" });
    expect(rows[1]!.read.value).toBeNull();
    expect(rows[3]!.read.value).toBeCloseTo(0.4962, 6);
    expect(rows[3]!.read.unit).toBe("ms");
    expect(formatAsSsd(rows[3]!.read.value, "ms")).toBe("0.496");
    expect(asSsdRows(steps, "iops")[0]!.read).toMatchObject({ value: 2.97, unit: "IOPS" });
    const scores = asSsdScores(steps);
    expect(scores).toMatchObject({ read: 74.4, total: 183.5, source: "weights of X" });
    const csv = asSsdCsvRows(rows, scores);
    expect(csv[0]).toEqual(["Seq", 49.93, 29.88, "MB/s"]);
    expect(csv.at(-1)).toEqual(["Score total", 183.5, null, "points"]);
  });
});

describe("the desktop tables on Compare", () => {
  const metrics = [
    { metric: "as-ssd-style:asssd-seq-read:read_mbps", rows: [row(1, 500), row(2, 50)] },
    { metric: "as-ssd-style:asssd-acc-write:write_lat_mean_us", rows: [row(2, 115)] },
    { metric: "as-ssd-style:asssd-score:asssd_score_total", rows: [row(1, 900)] },
    { metric: "cdm-style:seq1m-q8t1-read:read_mbps", rows: [row(2, 51)] },
    { metric: "cdm-style:seq1m-q8t1-read-pass1:read_mbps", rows: [row(2, 12)] },
  ];

  it("gives one block per drive in the drives' order, each plan's own figures", () => {
    const blocks = desktopCompare("as-ssd-style", metrics, [2, 1, 3], "mbps");
    expect(blocks.map((b) => b.driveId)).toEqual([2, 1]);
    expect(blocks[0]!.lines[0]).toMatchObject({ label: "Seq", read: 50, write: null, unit: "MB/s" });
    expect(blocks[0]!.lines[3]).toMatchObject({ label: "Acc.time", write: 0.115, unit: "ms" });
    expect(blocks[0]!.simulated).toBe(true);
    expect(blocks[0]!.provenance).toBe("run 12 · fw sim · fio-3.33 · 2026-12-06");
    expect(blocks[1]!.scores).toEqual({ read: null, write: null, total: 900 });
    const cdm = desktopCompare("cdm-style", metrics, [1, 2], "mbps");
    expect(cdm.map((b) => b.driveId)).toEqual([2]);
    // The test's figure (its best pass), not a single pass.
    expect(cdm[0]!.lines[0]).toMatchObject({ label: "SEQ1M Q8T1", read: 51, unit: "MB/s" });
    expect(cdm[0]!.scores).toBeNull();
  });

  it("exports a row per test and direction, a column per drive", () => {
    const { header, rows } = desktopCsv(desktopCompare("as-ssd-style", metrics, [1, 2], "mbps"));
    expect(header).toEqual(["test", "direction", "drive 1", "drive 2", "unit"]);
    expect(rows[0]).toEqual(["Seq", "read", 500, 50, "MB/s"]);
    expect(rows.find((r) => r[0] === "Acc.time" && r[1] === "write")).toEqual(["Acc.time", "write", null, 0.115, "ms"]);
    expect(rows.at(-1)).toEqual(["Score", "total", 900, null, "points"]);
  });
});

describe("the AS-SSD-style headline bars", () => {
  it("are Seq and 4K MB/s and the total score, asked by DESKTOP_ROWS", () => {
    const ids = [
      "as-ssd-style:asssd-seq-read:read_mbps",
      "as-ssd-style:asssd-4k-64thrd-read:read_mbps",
      "as-ssd-style:asssd-4k-write:write_mbps",
      "as-ssd-style:asssd-acc-read:read_lat_mean_us",
      "as-ssd-style:asssd-score:asssd_score_total",
      "as-ssd-style:asssd-score:asssd_score_read",
    ];
    const headline = headlineMetrics(ids);
    expect(headline).toEqual([
      "as-ssd-style:asssd-seq-read:read_mbps",
      "as-ssd-style:asssd-4k-write:write_mbps",
      "as-ssd-style:asssd-score:asssd_score_total",
    ]);
    for (const m of headline) expect(DESKTOP_ROWS.some((p) => matchesRows(m, p)), m).toBe(true);
  });
});
