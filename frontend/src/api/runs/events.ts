import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { isFinalStatus } from "../../lib/run-utils";
import { API_BASE } from "../client";
import type { RunDetail, RunProgress, SampleBatch } from "../types";
import { ptsKeys } from "../pts/keys";
import { runKeys } from "./keys";
import { ACTIVE_POLL_MS } from "./queries";
import { addSampleBatch, applyProgress, type LiveSamples } from "./samples-utils";

export type StreamState = "idle" | "connecting" | "live" | "reconnecting" | "ended" | "failed";

export interface RunEvents {
  /** Samples received on the stream since the page opened, per step. */
  live: LiveSamples;
  state: StreamState;
}

const EMPTY: LiveSamples = {};

/** The cache only takes a `run` event that is this run with its steps; else it refetches. */
function isRunOf(runId: number, value: unknown): value is RunDetail {
  if (typeof value !== "object" || value === null) return false;
  const run = value as Partial<RunDetail>;
  return run.id === runId && typeof run.status === "string" && Array.isArray(run.steps);
}

function parse(event: Event): unknown {
  try {
    return JSON.parse((event as MessageEvent<string>).data);
  } catch {
    return undefined;
  }
}

function isProgress(runId: number, value: unknown): value is RunProgress {
  if (typeof value !== "object" || value === null) return false;
  const p = value as Partial<RunProgress>;
  return (
    p.run_id === runId &&
    typeof p.progress === "number" &&
    typeof p.step_id === "number" &&
    typeof p.step_progress === "number"
  );
}

function isBatch(value: unknown): value is SampleBatch {
  if (typeof value !== "object" || value === null) return false;
  const batch = value as Partial<SampleBatch>;
  return typeof batch.step_id === "number" && Array.isArray(batch.samples);
}

/**
 * Whether the page must poll: the run is active as the cache has it, and no stream is open or
 * opening. "ended" counts: the stream closes on a final `run` event, and a response read
 * before that (the cancel's answer, a refetch the api served just before the run ended) can
 * land after it and put the run back to running in the cache, in the same render as the
 * close. The page then showed a running run with no stream, for good; polling reads the run
 * as it is now.
 */
export function streamDown(enabled: boolean, state: StreamState): boolean {
  return enabled && (state === "reconnecting" || state === "failed" || state === "ended");
}

/**
 * One SSE stream per run page: GET /api/runs/{id}/events.
 *
 * - `run` events replace the run in the query cache, so every component reading useRun sees
 *   the new status and progress without polling.
 * - `progress` events (every sample batch) update the cached run's progress and its step's.
 * - `samples` events are merged into a live store that the chart merges with the stored
 *   samples from GET .../samples (see stepSamples).
 * The server ends the stream after a final status; the browser would reconnect on its own,
 * so the stream is closed as soon as a final `run` arrives. Each time the stream opens the
 * stored samples are refetched (nothing falls between GET and subscription, or is lost while
 * the connection was down), and while it is down the run and its samples are polled instead
 * (streamDown).
 */
export function useRunEvents(runId: number, enabled: boolean): RunEvents {
  const queryClient = useQueryClient();
  const [live, setLive] = useState<{ runId: number; samples: LiveSamples }>({
    runId,
    samples: EMPTY,
  });
  const [state, setState] = useState<StreamState>("idle");

  useEffect(() => {
    if (!enabled) {
      setState((s) => (s === "idle" ? s : "ended"));
      return;
    }
    const source = new EventSource(`${API_BASE}/runs/${runId}/events`);
    setState("connecting");

    // The stream carries only what is published after it opens. Refetching the stored samples
    // once it is open (first time and after every reconnect) closes the window between the
    // page's first GET and the subscription; duplicates are dropped by the merge.
    source.onopen = () => {
      void queryClient.invalidateQueries({ queryKey: runKeys.samplesAll(runId) });
      setState("live");
    };
    source.onerror = () => {
      setState(source.readyState === EventSource.CLOSED ? "failed" : "reconnecting");
    };
    source.addEventListener("run", (event) => {
      const run = parse(event);
      if (!isRunOf(runId, run)) {
        void queryClient.invalidateQueries({ queryKey: runKeys.detail(runId), exact: true });
        return;
      }
      queryClient.setQueryData(runKeys.detail(runId), run);
      void queryClient.invalidateQueries({ queryKey: ptsKeys.report(runId) });
      if (isFinalStatus(run.status)) {
        source.close();
        setState("ended");
        void queryClient.invalidateQueries({ queryKey: runKeys.lists() });
      }
    });
    source.addEventListener("progress", (event) => {
      const progress = parse(event);
      if (!isProgress(runId, progress)) return;
      queryClient.setQueryData<RunDetail>(runKeys.detail(runId), (run) =>
        run ? applyProgress(run, progress) : run,
      );
    });
    // A PTS round ended (its fio output is stored) or a step changed: the report reads both.
    source.addEventListener("round", () => {
      void queryClient.invalidateQueries({ queryKey: ptsKeys.report(runId) });
    });
    source.addEventListener("samples", (event) => {
      const batch = parse(event);
      if (!isBatch(batch)) return;
      setLive((prev) => ({
        runId,
        samples: addSampleBatch(prev.runId === runId ? prev.samples : EMPTY, batch),
      }));
    });

    return () => source.close();
  }, [runId, enabled, queryClient]);

  const down = streamDown(enabled, state);
  useEffect(() => {
    if (!down) return;
    const timer = window.setInterval(() => {
      void queryClient.invalidateQueries({ queryKey: runKeys.detail(runId), exact: true });
      void queryClient.invalidateQueries({ queryKey: runKeys.samplesAll(runId) });
    }, ACTIVE_POLL_MS);
    return () => window.clearInterval(timer);
  }, [down, runId, queryClient]);

  return { live: live.runId === runId ? live.samples : EMPTY, state };
}
