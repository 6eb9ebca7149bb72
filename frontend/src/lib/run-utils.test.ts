import { describe, expect, it } from "vitest";
import type { Step } from "../api/types";
import {
  anyActive,
  canCancel,
  currentStepId,
  etaText,
  isActiveStatus,
  isFinalStatus,
  remainingSeconds,
  runDurationSeconds,
  stepDurationSeconds,
  totalEstimateSeconds,
  waitingText,
} from "./run-utils";

const step = (over: Partial<Step> & Pick<Step, "id" | "idx">): Step => ({
  kind: "fio",
  name: `step ${over.idx}`,
  label: `Step ${over.idx}`,
  status: "pending",
  progress: 0,
  estimate_s: 10,
  params: {},
  started_at: null,
  finished_at: null,
  error: null,
  results: [],
  ...over,
});

describe("statuses", () => {
  it("treats queued and running as active, the rest as final", () => {
    expect(isActiveStatus("queued")).toBe(true);
    expect(isActiveStatus("running")).toBe(true);
    for (const s of ["done", "failed", "cancelled", "lost"] as const) {
      expect(isActiveStatus(s)).toBe(false);
      expect(isFinalStatus(s)).toBe(true);
      expect(canCancel({ status: s })).toBe(false);
    }
    expect(canCancel({ status: "queued" })).toBe(true);
  });

  it("knows whether any run in a list is active", () => {
    expect(anyActive(undefined)).toBe(false);
    expect(anyActive([{ status: "done" }, { status: "lost" }])).toBe(false);
    expect(anyActive([{ status: "done" }, { status: "queued" }])).toBe(true);
  });
});

describe("runDurationSeconds", () => {
  const now = Date.parse("2026-11-21T12:00:00Z");

  it("measures started to finished", () => {
    expect(
      runDurationSeconds(
        { status: "done", started_at: "2026-11-21T10:00:00Z", finished_at: "2026-11-21T10:03:30Z" },
        now,
      ),
    ).toBe(210);
  });

  it("counts up to now while running", () => {
    expect(
      runDurationSeconds(
        { status: "running", started_at: "2026-11-21T11:59:00Z", finished_at: null },
        now,
      ),
    ).toBe(60);
  });

  it("has no duration before the start or without a recorded end", () => {
    expect(
      runDurationSeconds({ status: "queued", started_at: null, finished_at: null }, now),
    ).toBeNull();
    expect(
      runDurationSeconds(
        { status: "cancelled", started_at: null, finished_at: "2026-11-21T11:00:00Z" },
        now,
      ),
    ).toBeNull();
    expect(
      runDurationSeconds(
        { status: "lost", started_at: "2026-11-21T11:00:00Z", finished_at: null },
        now,
      ),
    ).toBeNull();
  });

  it("handles time zone offsets in the timestamps", () => {
    expect(
      runDurationSeconds(
        {
          status: "done",
          started_at: "2026-11-21T10:00:00+01:00",
          finished_at: "2026-11-21T09:00:05Z",
        },
        now,
      ),
    ).toBe(5);
  });

  it("works for steps too", () => {
    expect(
      stepDurationSeconds(
        { status: "running", started_at: "2026-11-21T11:59:30Z", finished_at: null },
        now,
      ),
    ).toBe(30);
  });
});

describe("currentStepId", () => {
  it("prefers the running step", () => {
    const steps = [
      step({ id: 10, idx: 0, status: "done", started_at: "x" }),
      step({ id: 11, idx: 1, status: "running", started_at: "x" }),
      step({ id: 12, idx: 2 }),
    ];
    expect(currentStepId(steps)).toBe(11);
  });

  it("falls back to the last step that started, in idx order", () => {
    const steps = [
      step({ id: 12, idx: 2, status: "skipped" }),
      step({ id: 11, idx: 1, status: "failed", started_at: "x" }),
      step({ id: 10, idx: 0, status: "done", started_at: "x" }),
    ];
    expect(currentStepId(steps)).toBe(11);
  });

  it("shows the first step of a queued run and nothing without steps", () => {
    expect(currentStepId([step({ id: 21, idx: 1 }), step({ id: 20, idx: 0 })])).toBe(20);
    expect(currentStepId([])).toBeNull();
  });
});

describe("waitingText", () => {
  it("says next for the first waiting run and the place for the others", () => {
    expect(waitingText(1)).toBe("next for its drive");
    expect(waitingText(3)).toBe("#3 in line for its drive");
  });
});

describe("remainingSeconds and etaText", () => {
  const now = Date.parse("2026-11-21T14:00:00Z");
  const ago = (s: number) => new Date(now - s * 1000).toISOString();

  it("adds the pending steps' estimates to what is left of the running one", () => {
    const steps = [
      step({ id: 1, idx: 0, status: "done", estimate_s: 30 }),
      // Running 5 s of an estimated 20 s, no progress reported yet: 15 s left.
      step({ id: 2, idx: 1, status: "running", estimate_s: 20, started_at: ago(5) }),
      step({ id: 3, idx: 2, estimate_s: 40 }),
      step({ id: 4, idx: 3, status: "skipped", estimate_s: 99 }),
    ];
    expect(remainingSeconds({ status: "running", steps }, now)).toBeCloseTo(55);
  });

  it("follows the running step's own pace once it reports progress", () => {
    // A quarter done after 10 s: 30 s more, whatever the estimate said.
    const steps = [
      step({ id: 1, idx: 0, status: "running", progress: 0.25, estimate_s: 20, started_at: ago(10) }),
    ];
    expect(remainingSeconds({ status: "running", steps }, now)).toBeCloseTo(30);
  });

  it("never goes below zero when a step overruns its estimate", () => {
    const steps = [step({ id: 1, idx: 0, status: "running", estimate_s: 5, started_at: ago(50) })];
    expect(remainingSeconds({ status: "running", steps }, now)).toBe(0);
  });

  it("has nothing left for a run that ended, and words the ETA by status", () => {
    const steps = [step({ id: 1, idx: 0, estimate_s: 90 })];
    expect(remainingSeconds({ status: "done", steps }, now)).toBeNull();
    expect(etaText({ status: "failed", steps }, now)).toBeNull();
    expect(etaText({ status: "queued", steps }, now)).toBe("about 1m 30s once it starts");
    expect(etaText({ status: "running", steps }, now)).toMatch(/^ends about \d\d:\d\d \(1m 30s left\)$/);
  });

  it("sums the estimates of a plan", () => {
    expect(totalEstimateSeconds([{ estimate_s: 10 }, { estimate_s: 2.5 }, { estimate_s: -1 }])).toBe(12.5);
  });
});
