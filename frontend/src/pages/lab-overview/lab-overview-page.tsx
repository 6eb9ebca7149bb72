import { useDrives } from "../../api/drives/queries";
import { ACTIVE_POLL_MS, IDLE_POLL_MS, useRuns } from "../../api/runs/queries";
import { DrivesTable } from "../../components/drives-table/drives-table";
import { ErrorBox } from "../../components/error-box/error-box";
import { RunsTable } from "../../components/runs-table/runs-table";
import { anyActive } from "../../lib/run-utils";

const RECENT_RUNS = 50;

export function LabOverviewPage() {
  const runs = useRuns(RECENT_RUNS);
  const active = anyActive(runs.data);
  // A drive turns busy or free with its run, so drives follow the runs' polling pace.
  const drives = useDrives({ refetchInterval: active ? ACTIVE_POLL_MS : IDLE_POLL_MS });
  const activeCount =
    runs.data?.filter((r) => r.status === "queued" || r.status === "running").length ?? 0;

  return (
    <div className="page">
      <div className="page-header">
        <h1>Lab overview</h1>
        <span className="muted" aria-live="polite">
          {activeCount > 0
            ? `${activeCount} active run${activeCount > 1 ? "s" : ""}, refreshing every 2 s`
            : ""}
        </span>
      </div>

      <section className="section" aria-labelledby="drives-heading">
        <div className="section__header">
          <h2 id="drives-heading">Drives</h2>
          {drives.data && <span className="muted">{drives.data.length} registered</span>}
        </div>
        {drives.isError && (
          <div className="section__body">
            <ErrorBox error={drives.error} title="Could not load the drives" />
          </div>
        )}
        <div className="section__body section__body--flush">
          <DrivesTable drives={drives.data} loading={drives.isPending} />
        </div>
      </section>

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
