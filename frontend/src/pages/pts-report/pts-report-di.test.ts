import { describe, expect, it } from "vitest";
import type { PtsDemandIntensity, PtsSection } from "../../api/pts/types";
import { diCsv, diHistogramsSubtitle, diLines } from "./pts-report-utils";

const point = (tc: number, qd: number, iops: number, artMs: number) => ({
  name: `tc${tc}-qd${qd}`,
  tc,
  qd,
  toc: tc * qd,
  iops,
  art_us: artMs * 1000,
  mrt_us: artMs * 3000,
});

const di: PtsDemandIntensity = {
  points: [point(1, 1, 1000, 1), point(1, 4, 4000, 1), point(2, 1, 2000, 1), point(2, 4, 5000, 1.6)],
  art_ceiling_us: 5000,
  max: point(2, 4, 5000, 1.6),
  mid: point(2, 1, 2000, 1),
  min: point(1, 1, 1000, 1),
  saturation_toc: 8,
  peak_iops: 5000,
};

describe("demand intensity", () => {
  it("draws one line per thread count, by TOC and by IOPS, largest TC first", () => {
    const { byToc, byIops } = diLines(di);
    expect(byToc.map((l) => l.label)).toEqual(["TC 2", "TC 1"]);
    expect(byToc[0]!.points).toEqual([
      [2, 2000],
      [8, 5000],
    ]);
    expect(byIops[1]!.points).toEqual([
      [1000, 1],
      [4000, 1],
    ]);
  });

  it("exports every point with which of the three it is", () => {
    const lines = diCsv(di).trim().split("\n");
    expect(lines[0]).toBe("tc,qd,toc,iops,art_us,mrt_us,point");
    expect(lines).toContain("2,4,8,5000,1600,4800,max");
    expect(lines).toContain("1,1,1,1000,1000,3000,min");
    expect(lines).toContain("1,4,4,4000,1000,3000,");
  });

  it("says the histograms come from the dedicated runs, or from the sweep's window", () => {
    const dedicated = "from a dedicated 600-second run at each point, as the PTS specifies";
    const runs = { step_id: 7, status: "done", point_s: 600, runs: [] };
    const withRuns = { histograms_source: dedicated, point_runs: runs } as unknown as PtsSection;
    expect(diHistogramsSubtitle(withRuns, "measurement window: rounds 3-7")).toBe(
      `share of I/Os per latency bucket, all I/Os of the point, ${dedicated}`,
    );
    const sweep = "from those points' I/O in the sweep's measurement-window rounds";
    const before = { histograms_source: sweep } as unknown as PtsSection;
    expect(diHistogramsSubtitle(before, "measurement window: rounds 3-7")).toBe(
      `share of I/Os per latency bucket, all I/Os of the point, ${sweep} · measurement window: rounds 3-7`,
    );
  });
});
