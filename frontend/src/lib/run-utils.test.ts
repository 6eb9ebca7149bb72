import { describe, expect, it } from "vitest";
import type { Step } from "../api/types";
import {
  anyActive,
  canCancel,
  currentStepId,
  isActiveStatus,
  isFinalStatus,
  runDurationSeconds,
  stepDurationSeconds,
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
