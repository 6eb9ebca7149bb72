import type { RunDetail, RunStatus, RunSummary, Step } from "../api/types";
import { formatDuration } from "./format-utils";

const ACTIVE: ReadonlySet<RunStatus> = new Set(["queued", "running"]);

/** Queued or running: the run can still change, and can be cancelled. */
export const isActiveStatus = (status: RunStatus): boolean => ACTIVE.has(status);

/** done, failed, cancelled or lost: nothing about the run changes any more. */
export const isFinalStatus = (status: RunStatus): boolean => !ACTIVE.has(status);

export const anyActive = (runs: readonly Pick<RunSummary, "status">[] | undefined): boolean =>
  (runs ?? []).some((r) => isActiveStatus(r.status));

export const canCancel = (run: Pick<RunSummary, "status">): boolean => isActiveStatus(run.status);

function parseTime(iso: string | null): number | null {
  if (!iso) return null;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
}

/**
 * How long something has run, in seconds: started -> finished, or started -> now while it
 * is still going. Null when it never started, or when it ended without a recorded end
 * (a lost run whose last heartbeat we do not know), so no made-up duration is shown.
 */
export function elapsedSeconds(
  item: { started_at: string | null; finished_at: string | null },
  stillRunning: boolean,
  now: number = Date.now(),
): number | null {
  const start = parseTime(item.started_at);
  if (start === null) return null;
  const end = parseTime(item.finished_at) ?? (stillRunning ? now : null);
  if (end === null) return null;
  return Math.max(0, (end - start) / 1000);
}

export const runDurationSeconds = (
  run: Pick<RunSummary, "status" | "started_at" | "finished_at">,
  now: number = Date.now(),
): number | null => elapsedSeconds(run, run.status === "running", now);

export const stepDurationSeconds = (
  step: Pick<Step, "status" | "started_at" | "finished_at">,
  now: number = Date.now(),
): number | null => elapsedSeconds(step, step.status === "running", now);

/**
 * The step to show when the reviewer has not picked one: the running step, else the last
 * step that started (the one that finished or failed most recently), else the first step.
 */
export function currentStepId(steps: readonly Step[]): number | null {
  const ordered = steps.slice().sort((a, b) => a.idx - b.idx);
  const running = ordered.find((s) => s.status === "running");
  if (running) return running.id;
  const started = ordered.filter(
    (s) => s.started_at !== null || (s.status !== "pending" && s.status !== "skipped"),
  );
  const last = started[started.length - 1];
  if (last) return last.id;
  return ordered[0]?.id ?? null;
}

/** A queued run's place among the runs waiting for its drive (1 = next). */
export const waitingText = (position: number): string =>
  position <= 1 ? "next for its drive" : `#${position} in line for its drive`;

/** What is left of one step, in seconds, by its progress or else its estimate. */
function stepRemaining(step: Step, now: number): number {
  switch (step.status) {
    case "pending":
      return Math.max(0, step.estimate_s);
    case "running": {
      const elapsed = stepDurationSeconds(step, now) ?? 0;
      // Once the step reports progress, its own pace is the better guide.
      if (step.progress >= 0.05 && step.progress < 1) {
        return Math.max(0, (elapsed / step.progress) * (1 - step.progress));
      }
      return Math.max(0, step.estimate_s - elapsed);
    }
    default:
      return 0;
  }
}

/**
 * Seconds until the run should end, from each unfinished step's progress or estimate; null
 * once the run has ended. A queued run's figure is its whole duration, from when it starts.
 */
export function remainingSeconds(
  run: Pick<RunDetail, "status" | "steps">,
  now: number = Date.now(),
): number | null {
  if (!isActiveStatus(run.status)) return null;
  return run.steps.reduce((sum, step) => sum + stepRemaining(step, now), 0);
}

/** The sum of the steps' estimates: how long the plan should take on this drive. */
export const totalEstimateSeconds = (steps: readonly Pick<Step, "estimate_s">[]): number =>
  steps.reduce((sum, s) => sum + Math.max(0, s.estimate_s), 0);

/** "ends about 14:05 (2m 10s left)", or the plan's expected length while still queued. */
export function etaText(
  run: Pick<RunDetail, "status" | "steps">,
  now: number = Date.now(),
): string | null {
  const left = remainingSeconds(run, now);
  if (left === null) return null;
  if (run.status === "queued") return `about ${formatDuration(left)} once it starts`;
  const end = new Date(now + left * 1000);
  const hm = `${String(end.getHours()).padStart(2, "0")}:${String(end.getMinutes()).padStart(2, "0")}`;
  return `ends about ${hm} (${formatDuration(left)} left)`;
}

/** A run id from the URL: positive integers only; anything else is a visible error, not a
 * request. */
export function parseRunId(raw: string | undefined): number | null {
  if (!raw || !/^\d+$/.test(raw)) return null;
  const id = Number(raw);
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}
