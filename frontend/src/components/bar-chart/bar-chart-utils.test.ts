import { describe, expect, it } from "vitest";
import type { CompareMetric } from "../../api/results/types";
import {
  barGroups,
  barLayout,
  barsCsv,
  barsSignificance,
  barsProvenance,
  dropCommonVendor,
  HEADLINE_ROWS,
  headlineMetrics,
  matchesRows,
  shownMetrics,
  labelsFit,
  realWindow,
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
    runs: { count: 1, mean: value, stddev: 0, min: value, max: value, spread_pct: 0, low: null, high: null },
    other_runs: 0,
    run_id: 10 + drive,
    firmware: "sim",
    fio_version: "fio-3.36",
    finished_at: "2026-11-21T10:00:00Z",
    job_sha256: "abc",
    conditions: { span: "8 GiB" },
    versus_review: null,
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
        "mean 95% CI low,mean 95% CI high,review vs this %,review vs this 95% CI low %," +
        "review vs this 95% CI high %,review vs this q,review vs this verdict," +
        "simulated,firmware,fio version,job file sha256,run,finished",
    );
    expect(csv[header + 1]).toBe(
      "Drive 2,300,500,yes,1,0,,,,,,,,yes,sim,fio-3.36,abc,12,2026-11-21T10:00:00Z",
    );
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

  it("shows a full-drive run's writes in each state first, not its pre-write", () => {
    const ran = [
      "full-drive:empty-prewrite:write_iops",
      "full-drive:empty-prewrite:write_mbps",
      "full-drive:empty-randwrite-4k-qd3:write_mbps",
      "full-drive:full80-randwrite-4k-qd3:write_mbps",
      "full-drive:empty-seqwrite-128k-qd1:write_mbps",
      "full-drive:full80-seqwrite-128k-qd1:write_mbps",
    ];
    expect(headlineMetrics(ran)).toEqual(ran.slice(2));
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

describe("barsCsv header", () => {
  it("names a differing condition called drive or firmware as a condition, every name once", () => {
    const m = metric("four-corners:randread-4k-qd3:read_iops", [
      [1, 50],
      [2, 60],
    ]);
    m.differing = ["firmware", "drive", "span"];
    m.rows = m.rows.map((r, i) => ({ ...r, conditions: { firmware: `fw${i}`, drive: `state ${i}`, span: "8 GiB" } }));
    const [g] = barGroups([m], [m.metric]);
    const lines = barsCsv(g!).split("\n");
    const header = lines.find((l) => l.startsWith("drive,"))!.split(",");
    expect(new Set(header).size).toBe(header.length);
    expect(header).toContain("firmware (condition)");
    expect(header).toContain("drive (condition)");
    expect(header.indexOf("firmware")).toBeGreaterThan(header.indexOf("firmware (condition)"));
  });
});

describe("realWindow", () => {
  it("says the window a short run really had", () => {
    const t = "Consistency: mean IOPS, last 400 s";
    expect(realWindow(t, ["60 s", "60 s"])).toBe("Consistency: mean IOPS, whole 60 s run");
    expect(realWindow(t, ["2000 s"])).toBe(t);
    expect(realWindow(t, [undefined])).toBe(t);
    expect(realWindow(t, ["60 s", "2000 s"])).toBe(
      "Consistency: mean IOPS, last 400 s, or the whole run where shorter",
    );
    expect(realWindow("4K read: IOPS", ["60 s"])).toBe("4K read: IOPS");
  });
});

describe("barsSignificance", () => {
  const inc = "four-corners:randwrite-4k-qd32-incompressible:write_iops";
  const versus = (verdict: "better" | "worse" | "within noise" | "1 run: significance unknown") => ({
    review_runs: 5,
    runs: verdict.startsWith("1 run") ? 1 : 5,
    diff_pct: verdict.startsWith("1 run") ? null : 5.06,
    low_pct: verdict.startsWith("1 run") ? null : 2.96,
    high_pct: verdict.startsWith("1 run") ? null : 7.21,
    p: 0.001,
    q: 0.002,
    verdict,
  });

  it("says the drive under review's verdict against each drive, with the interval", () => {
    const m = metric(inc, [
      [2, 300],
      [1, 200],
      [3, 290],
      [4, 100],
    ]);
    m.rows[1]!.versus_review = versus("better");
    m.rows[2]!.versus_review = versus("within noise");
    m.rows[3]!.versus_review = versus("1 run: significance unknown");
    const group = barGroups([m], [inc], null)[0]!;
    const text = barsSignificance(group);
    expect(text).toContain("Drive 2: better than Drive 1 (+5.1% [+3.0, +7.2])");
    expect(text).toContain("within noise of Drive 3");
    expect(text).toContain("Drive 4: 1 run, significance unknown");
    expect(text).toContain("Benjamini-Hochberg");
    const csv = barsCsv(group).split("\n");
    expect(csv.find((l) => l.startsWith("# significance: "))).toContain("better than Drive 1");
    const row = csv.find((l) => l.startsWith("Drive 1,"));
    expect(row).toContain(",5.06,2.96,7.21,0.002,better,");
  });

  it("says nothing without a drive under review or anything to compare", () => {
    const group = barGroups([metric(inc, [[2, 300]])], [inc], null)[0]!;
    expect(barsSignificance(group)).toBeNull();
  });
});

describe("HEADLINE_ROWS", () => {
  // Metric ids as the api names them, variants (@op25) and patterns included.
  const ids = [
    "four-corners:randread-4k-qd3:read_iops",
    "four-corners:randread-4k-qd3:read_mbps",
    "four-corners:randwrite-4k-qd3-incompressible:write_iops",
    "four-corners:randwrite-4k-qd3-compressible:write_iops",
    "four-corners:randwrite-4k-qd32-incompressible:write_iops",
    "four-corners:randwrite-4k-qd32:write_iops",
    "four-corners:seqread-128k-qd1:read_mbps",
    "four-corners:seqwrite-128k-qd1-incompressible:write_mbps",
    "consistency:consistency-4k-qd32:iops_mean_last400",
    "consistency:consistency-4k-qd32@op25:iops_mean_last400",
    "consistency:consistency-4k-qd32:iops_min",
    "write-hitching:hitch-seq:stall_longest_s",
    "write-hitching:hitch-rand:stall_longest_s",
    "transfer-size:write-1m:write_mbps",
  ];

  it("asks the rows of every headline metric, and not of the others listed here", () => {
    const headline = headlineMetrics(ids);
    expect(headline.length).toBeGreaterThanOrEqual(8);
    for (const m of headline) expect(HEADLINE_ROWS.some((p) => matchesRows(m, p)), m).toBe(true);
    const asked = ids.filter((m) => HEADLINE_ROWS.some((p) => matchesRows(m, p)));
    expect(asked).not.toContain("consistency:consistency-4k-qd32:iops_min");
    expect(asked).not.toContain("write-hitching:hitch-rand:stall_longest_s");
    expect(asked).not.toContain("transfer-size:write-1m:write_mbps");
    expect(asked).not.toContain("four-corners:randread-4k-qd3:read_mbps");
  });

  it("matches as fnmatch does: * is any text, the rest literally", () => {
    expect(matchesRows("a.b:c", "a.b:c")).toBe(true);
    expect(matchesRows("axb:c", "a.b:c")).toBe(false);
    expect(matchesRows("consistency:x@op25:iops", "consistency:*:iops")).toBe(true);
    expect(matchesRows("consistency:x:iops_min", "consistency:*:iops")).toBe(false);
  });
});

describe("shownMetrics", () => {
  const metric = (id: string, performance = true) => ({ metric: id, performance }) as CompareMetric;
  it("draws the headline metrics, else the first six performance figures, then the added", () => {
    expect(shownMetrics([metric("four-corners:randread-4k-qd3:read_iops"), metric("x:y:z")], ["x:y:z"])).toEqual([
      "four-corners:randread-4k-qd3:read_iops",
      "x:y:z",
    ]);
    const plain = ["a", "b", "c", "d", "e", "f", "g"].map((x) => metric(`p:${x}:m`));
    expect(shownMetrics([metric("p:t:runtime_s", false), ...plain], [])).toEqual(plain.slice(0, 6).map((m) => m.metric));
  });
});
