import { useMemo } from "react";
import { Link } from "react-router";
import { canWrite, useMe } from "../../api/auth/queries";
import { useBenches } from "../../api/benches/queries";
import { useDrives } from "../../api/drives/queries";
import { useLabEvents } from "../../api/runs/lab-events";
import { IDLE_POLL_MS, useCancelAnyRun, useMoveRun, useRuns } from "../../api/runs/queries";
import type { Drive, RunSummary } from "../../api/types";
import { Badge } from "../../components/badge/badge";
import { BenchCard } from "../../components/bench-card/bench-card";
import type { QueueActions } from "../../components/drives-table/drives-table";
import { ErrorBox } from "../../components/error-box/error-box";
import { RunsTable } from "../../components/runs-table/runs-table";
import "../../components/form-field/form-field.css";
import "./lab-overview-page.css";

const RECENT_RUNS = 50;

export function LabOverviewPage() {
  const stream = useLabEvents();
  const live = stream === "live";
  const runs = useRuns(RECENT_RUNS, { live });
  const drives = useDrives({ refetchInterval: live ? false : IDLE_POLL_MS });
  const benches = useBenches();
  const me = useMe();
  const move = useMoveRun();
  const cancel = useCancelAnyRun();

  const runsById = useMemo(
    () => new Map<number, RunSummary>((runs.data ?? []).map((r) => [r.id, r])),
    [runs.data],
  );
  const drivesByBench = useMemo(() => {
    const map = new Map<number, Drive[]>();
    for (const d of drives.data ?? []) map.set(d.bench.id, [...(map.get(d.bench.id) ?? []), d]);
    return map;
  }, [drives.data]);
  const activeCount = runs.data?.filter((r) => r.status === "running").length ?? 0;
  const queuedCount = runs.data?.filter((r) => r.status === "queued").length ?? 0;

  const queue: QueueActions = {
    enabled: canWrite(me.data),
    busy: move.isPending || cancel.isPending,
    move: (id, position) => move.mutate({ id, position }),
    cancel: ({ id, plan }) => {
      if (window.confirm(`Cancel waiting run #${id}${plan ? ` (${plan})` : ""}?`)) cancel.mutate(id);
    },
  };

  return (
    <div className="page">
      <div className="page-header">
        <div className="page-header__title">
          <h1>Lab</h1>
          <Badge
            tone={live ? "info" : stream === "connecting" ? "neutral" : "warn"}
            title={live ? "Updates arrive over one SSE stream" : "Refreshing every 10 s until the stream is back"}
          >
            {live ? "live" : stream === "connecting" ? "connecting…" : "polling"}
          </Badge>
        </div>
        <span className="lab-page__summary" aria-live="polite">
          <span className="muted">
            {activeCount} running · {queuedCount} queued
          </span>
          <Link to="/queue" className="button button--primary lab-page__queue">
            Queue a test
          </Link>
        </span>
      </div>

      {move.isError && <ErrorBox error={move.error} title="Could not reorder the queue" />}
      {cancel.isError && <ErrorBox error={cancel.error} title="Could not cancel the run" />}
      {benches.isError && <ErrorBox error={benches.error} title="Could not load the benches" />}
      {drives.isError && <ErrorBox error={drives.error} title="Could not load the drives" />}

      {benches.isPending || drives.isPending ? (
        <div className="section lab-page__placeholder" aria-busy="true">
          <p className="muted">Loading benches and drives…</p>
        </div>
      ) : (
        (benches.data ?? []).map((bench) => (
          <BenchCard
            key={bench.id}
            bench={bench}
            drives={drivesByBench.get(bench.id) ?? []}
            runs={runsById}
            queue={queue}
          />
        ))
      )}
      {benches.data?.length === 0 && (
        <p className="muted">No bench has registered yet: start a worker with `drivelab worker`.</p>
      )}

      <section className="section" aria-labelledby="runs-heading">
        <div className="section__header">
          <h2 id="runs-heading">Recent runs</h2>
          {runs.data && <span className="muted">last {RECENT_RUNS}</span>}
        </div>
        {runs.isError && (
          <div className="section__body">
            <ErrorBox error={runs.error} title="Could not load the runs" />
          </div>
        )}
        <div className="section__body section__body--flush">
          <RunsTable runs={runs.data} loading={runs.isPending} />
        </div>
      </section>
    </div>
  );
}
