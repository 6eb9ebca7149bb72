import { describe, expect, it } from "vitest";
import type { CompareMetric } from "../../api/results/types";
import {
  barGroups,
  barLayout,
  barsCsv,
  barsProvenance,
  dropCommonVendor,
  fitText,
  headlineMetrics,
  metricTitle,
  twinOf,
} from "./bar-chart-utils";

const metric = (id: string, values: [number, number][], lower = false): CompareMetric => ({
  metric: id,
  unit: "IOPS",
  lower_is_better: lower,
  warnings: [`w ${id}`],
  rows: values.map(([drive, value]) => ({
    drive_id: drive,
    label: `Drive ${drive}`,
    simulated: true,
    embargoed: false,
    under_review: drive === 2,
    value,
    runs: { count: 1, mean: value, stddev: 0, min: value, max: value, spread_pct: 0 },
    firmware: "sim",
    fio_version: "fio-3.36",
    finished_at: "2026-11-21T10:00:00Z",
  })),
});

describe("metricTitle", () => {
  it("says the test and the metric in words", () => {
    expect(metricTitle("four-corners:randwrite-4k-qd32-incompressible:write_iops")).toBe(
      "4K random write QD32: IOPS",
    );
    expect(metricTitle("four-corners:seqread-128k-qd1:read_mbps")).toBe(
      "128K sequential read QD1: MB/s",
    );
    expect(metricTitle("consistency:consistency-4k-qd32:iops_mean_last400")).toBe(
      "consistency: mean IOPS, last 400 s",
    );
  });
});

describe("barGroups", () => {
  const inc = "four-corners:randwrite-4k-qd32-incompressible:write_iops";
  const com = "four-corners:randwrite-4k-qd32-compressible:write_iops";
  const metrics = [
    metric(inc, [
      [2, 300],
      [1, 200],
    ]),
    metric(com, [
      [1, 900],
      [2, 500],
    ]),
    metric("four-corners:randread-4k-qd3:read_iops", [[1, 50]]),
  ];

  it("pairs compressible with incompressible, in the api's order of the primary", () => {
    expect(twinOf(inc)).toBe(com);
    const [g] = barGroups(metrics, [inc]);
    expect(g?.pairNames).toEqual(["incompressible", "compressible"]);
    expect(g?.rows.map((r) => [r.driveId, r.value, r.paired, r.underReview])).toEqual([
      [2, 300, 500, true],
      [1, 200, 900, false],
    ]);
    expect(g?.warnings).toEqual([`w ${inc}`, `w ${com}`]);
    expect(barsProvenance(g!)).toBe("drivelab · Drive 2, Drive 1: fw sim, fio-3.36, 2026-11-21");
    expect(barsCsv(g!)).toBe(
      "drive,incompressible (IOPS),compressible (IOPS)\nDrive 2,300,500\nDrive 1,200,900\n",
    );
  });

  it("draws single bars when there is no twin, and skips metrics nobody has", () => {
    const groups = barGroups(metrics, ["four-corners:randread-4k-qd3:read_iops", "x:y:z"]);
    expect(groups).toHaveLength(1);
    expect(groups[0]?.pairNames).toBeNull();
  });

  it("picks the headline metrics that exist", () => {
    expect(headlineMetrics([com, inc, "four-corners:randread-4k-qd3:read_iops"])).toEqual([
      "four-corners:randread-4k-qd3:read_iops",
      inc,
    ]);
  });

  it("lays bars out to fit the width", () => {
    const [g] = barGroups(metrics, [inc]);
    const l = barLayout(g!, 600);
    expect(l.labelWidth + 900 * l.scale).toBeLessThanOrEqual(600);
    expect(l.height).toBe(2 * l.rowHeight + 6);
  });
});

describe("fitText", () => {
  it("cuts long labels with an ellipsis", () => {
    expect(fitText("short", 200, 12)).toBe("short");
    const cut = fitText("drivelab Simulated drive B 0.268 GB", 120, 12);
    expect(cut).toBe("drive… B 0.268 GB");
    expect(cut.length).toBe(Math.floor(120 / (12 * 0.56)));
  });

  it("drops a vendor every label shares", () => {
    expect(dropCommonVendor(["drivelab Sim A", "drivelab Sim B"])).toEqual(["Sim A", "Sim B"]);
    expect(dropCommonVendor(["Samsung 850", "Crucial MX100"])).toEqual([
      "Samsung 850",
      "Crucial MX100",
    ]);
  });
});
