import { describe, expect, it } from "vitest";
import type { CompareMetric } from "../../api/results/types";
import {
  barGroups,
  barLayout,
  barsCsv,
  barsProvenance,
  dropCommonVendor,
  headlineMetrics,
  labelsFit,
  twinOf,
} from "./bar-chart-utils";

const testOf = (id: string) =>
  (id.split(":")[1] ?? "").replace(/-(incompressible|compressible)$/, ", $1");
const metric = (id: string, values: [number, number][], lower = false): CompareMetric => ({
  metric: id,
  names: { plan: "Four corners", test: testOf(id), measure: "IOPS", title: `${testOf(id)}: IOPS` },
  unit: "IOPS",
  lower_is_better: lower,
  performance: true,
  conditions: { span: "8 GiB" },
  differing: [],
  warnings: [`w ${id}`],
  rows: values.map(([drive, value]) => ({
    drive_id: drive,
    label: `Drive ${drive}`,
    short_name: null,
    simulated: true,
    embargoed: false,
    under_review: drive === 2,
    set_apart: null,
    value,
    runs: { count: 1, mean: value, stddev: 0, min: value, max: value, spread_pct: 0 },
    other_runs: 0,
    run_id: 10 + drive,
    firmware: "sim",
    fio_version: "fio-3.36",
    finished_at: "2026-11-21T10:00:00Z",
    job_sha256: "abc",
    conditions: { span: "8 GiB" },
  })),
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
    const csv = barsCsv(g!).split("\n");
    expect(csv[0]).toBe("# title: randwrite-4k-qd32: IOPS (higher is better)");
    expect(csv).toContain(`# metric: ${inc}, ${com} (IOPS)`);
    expect(csv).toContain("# conditions: Four corners · span 8 GiB");
    expect(csv.find((l) => l.startsWith("# simulated: "))).toContain("Drive 2, Drive 1");
    const header = csv.findIndex((l) => l.startsWith("drive,"));
    expect(csv[header]).toBe(
      "drive,incompressible (IOPS),compressible (IOPS),ranked,runs pooled,spread %," +
        "simulated,firmware,fio version,job file sha256,run,finished",
    );
    expect(csv[header + 1]).toBe("Drive 2,300,500,yes,1,0,yes,sim,fio-3.36,abc,12,2026-11-21T10:00:00Z");
  });

  it("draws single bars when there is no twin, and skips metrics nobody has", () => {
    const groups = barGroups(metrics, ["four-corners:randread-4k-qd3:read_iops", "x:y:z"]);
    expect(groups).toHaveLength(1);
    expect(groups[0]?.pairNames).toBeNull();
  });

  it("picks the headline metrics that exist, every variant of them", () => {
    expect(headlineMetrics([com, inc, "four-corners:randread-4k-qd3:read_iops"])).toEqual([
      "four-corners:randread-4k-qd3:read_iops",
      inc,
    ]);
    const op = "consistency:consistency-4k-qd32@op25:iops_mean_last400";
    expect(headlineMetrics([op, "consistency:consistency-4k-qd32:iops_mean_last400"])).toEqual([
      "consistency:consistency-4k-qd32:iops_mean_last400",
      op,
    ]);
  });

  it("says on the chart that the drive under review has no result", () => {
    const [g] = barGroups(metrics, ["four-corners:randread-4k-qd3:read_iops"], {
      id: 2,
      name: "Drive 2",
    });
    expect(g?.rows.map((r) => [r.driveId, r.value, r.underReview])).toEqual([
      [1, 50, false],
      [2, null, true],
    ]);
    expect(g?.warnings).toContain("The drive under review, Drive 2, has no result for this test.");
  });
});

describe("labels", () => {
  it("wrap whole into the label column, never cut", () => {
    const [g] = barGroups([metric("a:b:c", [[1, 1], [2, 2]])], ["a:b:c"]);
    const long = ["drivelab Simulated drive A (sparse file) 8.59 GB", "Drive 1"];
    const l = barLayout(g!, long, 400);
    expect(l.lines[0]!.join(" ")).toBe(long[0]);
    expect(l.lines[0]!.length).toBeGreaterThan(1);
    expect(labelsFit(l)).toBe(true);
    expect(l.lines.flat().some((line) => line.includes("…"))).toBe(false);
  });

  it("drops a vendor every label shares", () => {
    expect(dropCommonVendor(["drivelab Sim A", "drivelab Sim B"])).toEqual(["Sim A", "Sim B"]);
    expect(dropCommonVendor(["Samsung 850", "Crucial MX100"])).toEqual([
      "Samsung 850",
      "Crucial MX100",
    ]);
  });
});
