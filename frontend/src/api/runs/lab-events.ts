import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { API_BASE } from "../client";
import { driveKeys } from "../drives/keys";
import { runKeys } from "./keys";
import { IDLE_POLL_MS } from "./queries";
import type { StreamState } from "./events";

/** Runs report progress every second each: re-read the lists at most this often. */
export const LAB_REFRESH_MS = 1_000;

/**
 * The Lab page's one SSE stream: GET /api/runs/events says which run changed (queued,
 * started, progressed, finished, reordered); the runs and drives lists are then re-read, at
 * most once a second however many runs report. While the stream is down, they are polled.
 */
export function useLabEvents(): StreamState {
  const queryClient = useQueryClient();
  const [state, setState] = useState<StreamState>("connecting");
  const pending = useRef<number | null>(null);

  useEffect(() => {
    const refresh = () => {
      pending.current = null;
      void queryClient.invalidateQueries({ queryKey: runKeys.lists() });
      void queryClient.invalidateQueries({ queryKey: driveKeys.all });
    };
    const schedule = () => {
      if (pending.current === null) pending.current = window.setTimeout(refresh, LAB_REFRESH_MS);
    };
    const source = new EventSource(`${API_BASE}/runs/events`);
    // Whatever changed while the stream was closed is read once it is open again.
    source.addEventListener("hello", () => {
      setState("live");
      refresh();
    });
    source.addEventListener("runs", schedule);
    source.onerror = () => {
      setState(source.readyState === EventSource.CLOSED ? "failed" : "reconnecting");
    };
    return () => {
      source.close();
      if (pending.current !== null) window.clearTimeout(pending.current);
      pending.current = null;
    };
  }, [queryClient]);

  const down = state === "reconnecting" || state === "failed";
  useEffect(() => {
    if (!down) return;
    const timer = window.setInterval(() => {
      void queryClient.invalidateQueries({ queryKey: runKeys.lists() });
      void queryClient.invalidateQueries({ queryKey: driveKeys.all });
    }, IDLE_POLL_MS);
    return () => window.clearInterval(timer);
  }, [down, queryClient]);

  return state;
}
