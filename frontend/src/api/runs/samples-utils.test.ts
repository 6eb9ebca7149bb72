import { describe, expect, it } from "vitest";
import type { Sample } from "../types";
import type { RunDetail, Step } from "../types";
import {
  addSampleBatch,
  applyProgress,
  mergeSamples,
  stepSamples,
  type LiveSamples,
} from "./samples-utils";

const s = (step_id: number, t: number, read_mbps = 0): Sample => ({
  step_id,
  t,
  dt: 1,
  read_mbps,
  write_mbps: 0,
  read_iops: read_mbps * 256,
  write_iops: 0,
  read_lat_mean_us: null,
  write_lat_mean_us: null,
  read_lat_p99_us: null,
  write_lat_p99_us: null,
});

const keys = (samples: Sample[]) => samples.map((x) => `${x.step_id}@${x.t}`);

describe("mergeSamples", () => {
  it("appends a later batch in order", () => {
    const merged = mergeSamples([s(1, 1), s(1, 2)], [s(1, 3), s(1, 4)]);
    expect(keys(merged)).toEqual(["1@1", "1@2", "1@3", "1@4"]);
  });

  it("drops duplicates of the same (step_id, t), keeping the incoming one", () => {
    const merged = mergeSamples([s(1, 1, 100), s(1, 2, 200)], [s(1, 2, 999), s(1, 3, 300)]);
    expect(keys(merged)).toEqual(["1@1", "1@2", "1@3"]);
    expect(merged[1]!.read_mbps).toBe(999);
  });

  it("treats float noise in t as the same interval", () => {
    const merged = mergeSamples([s(1, 0.1 + 0.2)], [s(1, 0.3, 7)]);
    expect(merged).toHaveLength(1);
    expect(merged[0]!.read_mbps).toBe(7);
  });

  it("orders out-of-order batches and interleaves steps by step then t", () => {
    const merged = mergeSamples([s(2, 1), s(1, 3)], [s(1, 1), s(2, 0.5), s(1, 2)]);
    expect(keys(merged)).toEqual(["1@1", "1@2", "1@3", "2@0.5", "2@1"]);
  });

  it("removes duplicates inside one list, the later report winning", () => {
    const merged = mergeSamples([], [s(1, 1, 1), s(1, 1, 2), s(1, 1, 3)]);
    expect(merged).toHaveLength(1);
    expect(merged[0]!.read_mbps).toBe(3);
  });

  it("does not modify its inputs", () => {
    const base = [s(1, 2), s(1, 1)];
    const incoming = [s(1, 3)];
    mergeSamples(base, incoming);
    expect(keys(base)).toEqual(["1@2", "1@1"]);
    expect(incoming).toHaveLength(1);
  });
});

describe("addSampleBatch", () => {
  it("keeps one ordered list per step", () => {
    let live: LiveSamples = {};
    live = addSampleBatch(live, { step_id: 5, samples: [s(5, 1), s(5, 2)] });
    live = addSampleBatch(live, { step_id: 6, samples: [s(6, 1)] });
    live = addSampleBatch(live, { step_id: 5, samples: [s(5, 2, 50), s(5, 3)] });
    expect(keys([...live[5]!])).toEqual(["5@1", "5@2", "5@3"]);
    expect(live[5]![1]!.read_mbps).toBe(50);
    expect(keys([...live[6]!])).toEqual(["6@1"]);
  });

  it("returns the same store for an empty batch and never mutates the old one", () => {
    const before: LiveSamples = { 5: [s(5, 1)] };
    expect(addSampleBatch(before, { step_id: 5, samples: [] })).toBe(before);
    const after = addSampleBatch(before, { step_id: 5, samples: [s(5, 2)] });
    expect(before[5]).toHaveLength(1);
    expect(after[5]).toHaveLength(2);
  });

  it("files samples under the batch's step", () => {
    const live = addSampleBatch({}, { step_id: 8, samples: [s(0, 1)] });
    expect(live[8]![0]!.step_id).toBe(8);
  });
});

describe("stepSamples", () => {
  it("merges stored samples of one step with the live ones", () => {
    const fetched = [s(1, 1), s(1, 2), s(1, 3)];
    const live: LiveSamples = { 1: [s(1, 3, 30), s(1, 4)], 2: [s(2, 1)] };
    const merged = stepSamples(1, fetched, live);
    expect(keys(merged)).toEqual(["1@1", "1@2", "1@3", "1@4"]);
    expect(merged[2]!.read_mbps).toBe(30);
  });

  it("works before the GET answered and when nothing is live", () => {
    expect(keys(stepSamples(1, undefined, { 1: [s(1, 9)] }))).toEqual(["1@9"]);
    expect(keys(stepSamples(1, [s(1, 1), s(2, 1)], {}))).toEqual(["1@1"]);
  });
});

describe("applyProgress", () => {
  const step = (id: number, progress: number): Step => ({
    id,
    idx: id - 1,
    kind: "fio",
    name: `step-${id}`,
    label: `Step ${id}`,
    params: {},
    status: id === 1 ? "done" : id === 2 ? "running" : "pending",
    progress,
    estimate_s: 60,
    started_at: null,
    finished_at: null,
    error: null,
    results: [],
  });
  const run: RunDetail = {
    id: 7,
    plan: "four-corners",
    drive_id: 1,
    drive_label: "Drive",
    simulated: true,
    emulated: false,
    embargoed: false,
    status: "running",
    progress: 0.4,
    error: null,
    waiting_position: null,
    created_at: "2026-11-21T10:00:00Z",
    started_at: "2026-11-21T10:00:01Z",
    finished_at: null,
    params: {},
    environment: {},
    steps: [step(1, 1), step(2, 0.2), step(3, 0)],
  };

  it("moves the run's progress and its step's, and nothing else", () => {
    const next = applyProgress(run, { run_id: 7, progress: 0.5, step_id: 2, step_progress: 0.5 });
    expect(next.progress).toBe(0.5);
    expect(next.steps.map((s) => s.progress)).toEqual([1, 0.5, 0]);
    expect(next.steps[0]).toBe(run.steps[0]);
    expect(next.steps[1]!.status).toBe("running");
    expect(run.progress).toBe(0.4); // the cached run is not mutated
  });

  it("ignores another run's progress", () => {
    const other = applyProgress(run, { run_id: 8, progress: 0.9, step_id: 2, step_progress: 1 });
    expect(other).toBe(run);
  });
});
