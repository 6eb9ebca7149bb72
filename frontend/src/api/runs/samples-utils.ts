import type { RunDetail, RunProgress, Sample, SampleBatch } from "../types";

/** Samples received live, per step id, each list ordered by t without duplicates. */
export type LiveSamples = Readonly<Record<number, readonly Sample[]>>;

/**
 * t is a float computed by the server; compare it at millisecond resolution so the same
 * interval sent twice (stream replay, reconnect, GET + SSE overlap) is one point.
 */
export const sampleTimeKey = (t: number): number => Math.round(t * 1000);

function compareSamples(a: Sample, b: Sample): number {
  return a.step_id - b.step_id || sampleTimeKey(a.t) - sampleTimeKey(b.t);
}

function sortedCopy(samples: readonly Sample[]): Sample[] {
  const copy = samples.slice();
  for (let i = 1; i < copy.length; i++) {
    if (compareSamples(copy[i - 1]!, copy[i]!) > 0) {
      return copy.sort(compareSamples);
    }
  }
  return copy;
}

/**
 * Merge two sample lists into one ordered by (step_id, t) with one sample per key.
 * When both hold a key, the one from `incoming` wins (it is the newer report).
 * Inputs need not be sorted; the common case (both sorted, incoming after base) is linear.
 */
export function mergeSamples(base: readonly Sample[], incoming: readonly Sample[]): Sample[] {
  const a = sortedCopy(base);
  const b = sortedCopy(incoming);
  const out: Sample[] = [];
  const push = (s: Sample, preferNew: boolean) => {
    const last = out[out.length - 1];
    if (last && compareSamples(last, s) === 0) {
      if (preferNew) out[out.length - 1] = s;
      return;
    }
    out.push(s);
  };
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = a[i];
    const y = b[j];
    if (y === undefined || (x !== undefined && compareSamples(x, y) <= 0)) {
      // On a tie take base first, so the incoming one replaces it right after.
      push(x!, false);
      i++;
    } else {
      push(y, true);
      j++;
    }
  }
  return out;
}

/** Add one SSE `samples` batch to the live store (returns a new store; the input is kept). */
export function addSampleBatch(live: LiveSamples, batch: SampleBatch): LiveSamples {
  // A batch names its step; trust that over whatever the samples carry.
  const samples = batch.samples.map((s) =>
    s.step_id === batch.step_id ? s : { ...s, step_id: batch.step_id },
  );
  if (samples.length === 0) return live;
  return { ...live, [batch.step_id]: mergeSamples(live[batch.step_id] ?? [], samples) };
}

/** Everything known for one step: stored samples from GET merged with live ones. */
export function stepSamples(
  stepId: number,
  fetched: readonly Sample[] | undefined,
  live: LiveSamples,
): Sample[] {
  const stored = (fetched ?? []).filter((s) => s.step_id === stepId);
  return mergeSamples(stored, live[stepId] ?? []);
}

/** The run with a `progress` event applied: its progress and its step's, nothing else. */
export function applyProgress(run: RunDetail, p: RunProgress): RunDetail {
  if (run.id !== p.run_id) return run;
  return {
    ...run,
    progress: p.progress,
    steps: run.steps.map((s) => (s.id === p.step_id ? { ...s, progress: p.step_progress } : s)),
  };
}
