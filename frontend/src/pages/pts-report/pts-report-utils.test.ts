import { describe, expect, it } from "vitest";
import type { HirSet, PtsConvergence, PtsSection, XsrStimulus, XsrTransition } from "../../api/pts/types";
import {
  convergencePoints,
  formatSeconds,
  hirSeries,
  latencyRoundLines,
  latencyRoundsCsv,
  latencyRows,
  linesByMix,
  pivot,
  pivotCsv,
  verdictText,
  windowGeometry,
  wsatSeries,
  xsrCsv,
  xsrLevelLine,
  xsrRecoveryAreas,
} from "./pts-report-utils";

const conv = (over: Partial<PtsConvergence> = {}): PtsConvergence => ({
  steady: true,
  round: 7,
  rounds: 7,
  window: [3, 7],
  average: 1000,
  range_pct: 4,
  slope_excursion_pct: 2,
  fit: [990, 2],
  excursion_pct: 20,
  slope_pct: 10,
  current: { window: [3, 7], steady: true, range_pct: 4, slope_excursion_pct: 2 },
  ...over,
});

const el = (mix: string, bs: string, bytes: number) => ({
  name: `r${mix.replace("/", "w")}-${bs}`,
  label: `${bs} ${mix}`,
  bs,
  bs_bytes: bytes,
  mix,
  read_pct: Number(mix.split("/")[0]),
  access: "random" as const,
});

const section = (over: Partial<PtsSection> = {}): PtsSection => ({
  step_id: 4,
  name: "rounds",
  label: "IOPS rounds",
  status: "done",
  test: "pts-iops",
  track: { element: "r0w100-4k", metric: "write_iops", label: "4 KiB write IOPS", unit: "IOPS" },
  elements: [el("0/100", "4k", 4096), el("100/0", "4k", 4096), el("0/100", "64k", 65536)],
  profile: "enterprise",
  threads: 4,
  iodepth: 32,
  active_range_pct: 100,
  active_bytes: 1 << 30,
  element_s: 60,
  max_rounds: 25,
  values: [3000, 1500, 1010, 990, 1000, 1005, 995],
  convergence: conv(),
  rounds: [],
  window: [3, 7],
  table: {
    "r0w100-4k": { iops: 1000, write_iops: 1000 },
    "r100w0-4k": { iops: 50000, read_iops: 50000 },
    "r0w100-64k": { iops: 300, write_iops: 300 },
  },
  histograms: null,
  percentiles: null,
  stop: "steady",
  ...over,
});

describe("convergence and window", () => {
  it("marks the rounds of the window", () => {
    const points = convergencePoints(section());
    expect(points.map((p) => p.inWindow)).toEqual([false, false, true, true, true, true, true]);
    expect(points[0]).toEqual({ round: 1, value: 3000, inWindow: false });
  });

  it("draws the average, both bands and the least-squares line of the window", () => {
    const g = windowGeometry(section().values, conv())!;
    expect(g.rounds.map((r) => r.round)).toEqual([3, 4, 5, 6, 7]);
    expect(g.band10).toEqual([900, 1100]);
    expect(g.band20).toEqual([800, 1200]);
    expect(g.fit).toEqual([
      { round: 3, value: 996 },
      { round: 7, value: 1004 },
    ]);
    expect(windowGeometry([1, 2], conv({ window: null, average: null, fit: null }))).toBeNull();
  });

  it("says where convergence stands", () => {
    expect(verdictText(section())).toBe("Steady state reached in round 7 (window 3-7)");
    const running = section({
      status: "running",
      values: [3000, 1500],
      convergence: conv({ steady: false, round: null, current: { window: null, steady: false, needs: 3 } }),
    });
    expect(verdictText(running)).toBe("Round 2: 3 more rounds before a 5-round window");
    const unsteady = section({
      values: [1, 2, 3, 4, 5],
      convergence: conv({
        steady: false,
        round: null,
        window: [1, 5],
        current: { window: [1, 5], steady: false, range_pct: 133.3, slope_excursion_pct: 133.3 },
      }),
    });
    expect(verdictText(unsteady)).toContain("Steady state not reached in 5 rounds: last window 1-5");
    expect(verdictText(unsteady)).toContain("range 133.3% of the average, limit 20%");
  });
});

describe("IOPS tables", () => {
  it("pivots block sizes (largest first) against mixes (reads first)", () => {
    const t = pivot(section(), "iops");
    expect(t.mixes).toEqual(["100/0", "0/100"]);
    expect(t.sizes.map((s) => s.label)).toEqual(["64 KiB", "4 KiB"]);
    expect(t.cells).toEqual([
      [null, 300],
      [50000, 1000],
    ]);
    expect(pivotCsv(t, "block_size").split("\n")[0]).toBe("block_size,R/W 100/0,R/W 0/100");
  });

  it("draws one line per mix, smallest block first, skipping missing elements", () => {
    const lines = linesByMix(pivot(section(), "iops"));
    expect(lines.map((l) => l.key)).toEqual(["100/0", "0/100"]);
    expect(lines[0]!.points).toEqual([[4, 50000]]);
    expect(lines[1]!.points).toEqual([
      [4, 1000],
      [64, 300],
    ]);
  });
});

describe("latency, WSAT and HIR series", () => {
  it("takes five nines from the percentiles of all I/Os", () => {
    const s = section({
      table: { "r0w100-4k": { lat_mean_us: 20, lat_max_us: 900 } },
      percentiles: {
        "r0w100-4k": { all: { ios: 200000, "99": 40, "99.9": 60, "99.99": 80, "99.999": 300 } },
      },
    });
    const rows = latencyRows(s);
    expect(rows[0]).toMatchObject({ name: "r0w100-4k", mean: 20, max: 900, p99999: 300, ios: 200000 });
    expect(rows[1]).toMatchObject({ mean: null, p99999: null });
  });

  it("plots write saturation against minutes, GB and drive fills", () => {
    const s = section({
      capacity_bytes: 1e9,
      rounds: [
        { round: 1, t_start_s: 0, t_end_s: 60, value: 9000, iops: 9000, written_bytes: 2e9 },
        { round: 2, t_start_s: 60, t_end_s: 120, value: 3000, iops: 3000, written_bytes: 3e9 },
      ],
    });
    expect(wsatSeries(s)).toEqual({
      byTime: [
        [1, 9000],
        [2, 3000],
      ],
      byGb: [
        [2, 9000],
        [3, 3000],
      ],
      byFills: [
        [2, 9000],
        [3, 3000],
      ],
    });
  });

  it("puts host idle recovery's write periods on one clock with their wait states", () => {
    const sets: HirSet[] = [
      {
        wait_s: 5,
        step_id: 1,
        status: "done",
        cycles: 2,
        planned_cycles: 2,
        start_s: 0,
        end_s: 20,
        bursts: [
          [0, 5, 800],
          [10, 15, 900],
        ],
        burst_iops: 850,
        baseline: { step_id: 2, status: "done", start_s: 21, seconds: 10, iops: 700 },
      },
    ];
    const s = hirSeries(sets);
    expect(s.points).toEqual([
      { t: 2.5, iops: 800, wait: 5 },
      { t: 12.5, iops: 900, wait: 5 },
    ]);
    expect(s.areas).toEqual([{ key: "wait-5", x1: 0, x2: 20, label: "5 s wait" }]);
    expect(s.baselines).toEqual([{ key: "baseline-5", x1: 21, x2: 31, iops: 700 }]);
  });

  it("says why five nines are missing and draws each element's average and maximum per round", () => {
    const s = section({
      table: { "r0w100-4k": { lat_mean_us: 20, lat_max_us: 900 } },
      percentiles: {
        "r0w100-4k": {
          all: { ios: 50000, "99": 40, "99.9": 60, "99.99": 80, "99.999": null, unsupported: { "99.999": "not enough I/Os: 50,000 completed" } },
        },
      },
      element_rounds: {
        "r0w100-4k": [
          [1, 21, 800],
          [2, 19, null],
        ],
      },
    });
    expect(latencyRows(s)[0]).toMatchObject({ p99999: null, p99999Note: "not enough I/Os: 50,000 completed" });
    const [mean] = latencyRoundLines(s, "mean");
    expect(mean!.points).toEqual([
      [1, 21],
      [2, 19],
    ]);
    // A round without a maximum is left out of the line, not drawn at 0.
    expect(latencyRoundLines(s, "max")[0]!.points).toEqual([[1, 800]]);
    expect(latencyRoundsCsv(s).split("\n").slice(0, 3)).toEqual([
      "element,round,lat_mean_us,lat_max_us",
      "r0w100-4k,1,21,800",
      "r0w100-4k,2,19,",
    ]);
  });
});

describe("cross-stimulus recovery", () => {
  const stim = (over: Partial<XsrStimulus>): XsrStimulus => ({
    step_id: 1,
    name: "xsr-seq-1",
    role: "xsr-1",
    label: "sequential 1024 KiB write",
    status: "done",
    start_s: 0,
    seconds: 10,
    mbps: 40,
    lat_mean_us: 800,
    lat_max_us: 5000,
    recovery_s: 0,
    settled_mbps: 40,
    initial_mbps: 40,
    held_s: 10,
    levels: [{ start_s: 0, end_s: 10, mbps: 40 }],
    min_time_s: 3,
    min_rel_change: 0.2,
    mbps_series: [],
    lat_series: [],
    lat_max_series: [],
    ...over,
  });
  const stimuli = [
    stim({}),
    stim({
      name: "xsr-rand",
      role: "xsr-2",
      start_s: 11,
      recovery_s: 5.1,
      settled_mbps: 4.9,
      levels: [
        { start_s: 0, end_s: 5.1, mbps: 20.5 },
        { start_s: 5.1, end_s: 30, mbps: 4.9 },
      ],
    }),
    stim({ name: "xsr-seq-2", role: "xsr-3", start_s: null, recovery_s: null, levels: [] }),
  ];

  it("draws the levels as one stepped line on the report's clock", () => {
    expect(xsrLevelLine(stimuli)).toEqual([
      [0, 40],
      [10, 40],
      [11, 20.5],
      [16.1, 20.5],
      [16.1, 4.9],
      [41, 4.9],
    ]);
  });

  it("shades each recovery from the transition to the settled level", () => {
    const transitions: XsrTransition[] = [
      { from: "xsr-seq-1", to: "xsr-rand", label: "", at_s: 11, recovery_s: 5.1, before_mbps: 40, settled_mbps: 4.9, ratio: 0.12 },
      { from: "xsr-rand", to: "xsr-seq-2", label: "", at_s: 42, recovery_s: 0, before_mbps: 4.9, settled_mbps: 40, ratio: 8 },
      { from: "a", to: "b", label: "", at_s: null, recovery_s: null, before_mbps: null, settled_mbps: null, ratio: null },
    ];
    expect(xsrRecoveryAreas(transitions)).toEqual([{ key: "recovery-xsr-rand", x1: 11, x2: 16.1, label: "recovery 5.1 s" }]);
  });

  it("exports every stimulus, the first without a recovery time", () => {
    const lines = xsrCsv(stimuli).split("\n");
    expect(lines[0]).toBe("stimulus,start_s,mbps,settled_mbps,initial_mbps,recovery_s,lat_mean_us,lat_max_us");
    expect(lines[1]).toBe("xsr-seq-1,0,40,40,40,,800,5000");
    expect(lines[2]).toBe("xsr-rand,11,40,4.9,40,5.1,800,5000");
  });

  it("formats seconds, minutes and hours", () => {
    expect(formatSeconds(5.14)).toBe("5.1 s");
    expect(formatSeconds(288)).toBe("4.8 min");
    expect(formatSeconds(1500)).toBe("25 min");
    expect(formatSeconds(3 * 3600)).toBe("3.0 h");
    expect(formatSeconds(null)).toBe("—");
  });
});
