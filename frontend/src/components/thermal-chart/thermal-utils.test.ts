import { describe, expect, it } from "vitest";
import type { Sample, Step } from "../../api/types";
import { thermalRows, thermalTimeline, withBreaks } from "./thermal-utils";

function step(id: number, role: string, phase: number, start: string, end: string, findings?: unknown): Step {
  return {
    id,
    idx: id,
    kind: role === "thermal-heat" ? "fio" : "idle",
    name: `${role === "thermal-heat" ? "heat" : "cool"}-${phase}`,
    label: "",
    params: { role, phase, rw: "write" },
    status: "done",
    progress: 1,
    estimate_s: 10,
    started_at: start,
    finished_at: end,
    error: null,
    stderr: null,
    results: [],
    findings: findings ? { thermal: findings } : null,
  } as unknown as Step;
}

const sample = (t: number, write_mbps: number, temp_c: number | null) =>
  ({ step_id: 0, t, dt: 1, read_mbps: 0, write_mbps, read_iops: 0, write_iops: 0, temp_c }) as unknown as Sample;

describe("thermalTimeline", () => {
  const steps = [
    step(1, "thermal-heat", 1, "2026-12-06T01:00:00Z", "2026-12-06T01:00:02.5Z"),
    step(2, "thermal-cool", 1, "2026-12-06T01:00:03Z", "2026-12-06T01:00:05Z"),
  ];
  const samples = new Map([
    [1, [sample(1, 40, 35), sample(2, 8, 50)]],
    [2, [sample(1, 0, 48), sample(2, 0, 45.5)]],
  ]);

  it("places every phase at its start, one after the other, with a break between them", () => {
    const { points, phases } = thermalTimeline(steps, samples);
    expect(points).toEqual([
      { t: 1, mbps: 40, temp_c: 35 },
      { t: 2, mbps: 8, temp_c: 50 },
      { t: 3, mbps: null, temp_c: null },
      { t: 4, mbps: 0, temp_c: 48 },
      { t: 5, mbps: 0, temp_c: 45.5 },
    ]);
    expect(phases.map((p) => [p.label, p.kind, p.start, p.end])).toEqual([
      ["heat 1", "heat", 0, 2.5],
      ["cool 1", "cool", 3, 5],
    ]);
  });

  it("draws no temperature without a sensor (a gap, never 0 °C)", () => {
    const { points } = thermalTimeline(steps.slice(0, 1), new Map([[1, [sample(1, 40, null)]]]));
    expect(points).toEqual([{ t: 1, mbps: 40, temp_c: null }]);
  });
});

describe("thermalRows", () => {
  it("says each phase's findings, and why a figure is unknown", () => {
    const heat = {
      kind: "heat", phase: 1, stop: "time", duration_s: 25, start_c: 35, peak_c: 50.2,
      first_throttle: {
        at_s: 8.84, from_mbps: 40.1, to_mbps: 8.02, temp_c: 49.9,
        heat: { heat: "thermal", words: "throttled at 50 °C after 8.8 s, from 40 MB/s to 8 MB/s" },
      },
      throttled_mbps: 8.02, above_wctemp_s: null,
      above_wctemp_note: "the drive reports no WCTEMP (warning temperature)",
      step_downs: [], levels: [],
    };
    const cool = { kind: "cool", phase: 1, stop: "temperature", duration_s: 24, start_c: 49,
      min_c: 37, target_c: 37, recover_s: 23.6 };
    const rows = thermalRows([
      step(1, "thermal-heat", 1, "2026-12-06T01:00:00Z", "2026-12-06T01:00:25Z", heat),
      step(2, "thermal-cool", 1, "2026-12-06T01:00:25Z", "2026-12-06T01:00:50Z", cool),
    ]);
    expect(rows.map((r) => r.phase)).toEqual(["heat 1", "cool 1"]);
    const values = Object.fromEntries(rows[0]!.figures.map((f) => [f.label, f.value]));
    expect(values["first throttle"]).toBe("8.8 s, 49.9 °C");
    expect(values["speed"]).toBe("40 → 8 MB/s");
    expect(values["above WCTEMP"]).toContain("unknown: the drive reports no WCTEMP");
    expect(values["cause"]).toBe("heat: throttled at 50 °C after 8.8 s, from 40 MB/s to 8 MB/s");
    expect(rows[1]!.figures[0]!.value).toBe("23.6 s to 37.0 °C");
  });
});

describe("withBreaks", () => {
  it("breaks a line where the samples have a gap (between two phases)", () => {
    expect(withBreaks([[1, 40], [2, 8], [6, 0], [7, 0]])).toEqual([
      { x: 1, y: 40 },
      { x: 2, y: 8 },
      { x: 4, y: null },
      { x: 6, y: 0 },
      { x: 7, y: 0 },
    ]);
  });

  it("does not break a downsampled line whose points are all further apart", () => {
    const sparse: [number, number][] = [[0, 1], [4, 1], [8, 1], [12, 1], [40, 0], [44, 0]];
    const drawn = withBreaks(sparse);
    expect(drawn.filter((p) => p.y === null)).toEqual([{ x: 26, y: null }]);
  });
});
