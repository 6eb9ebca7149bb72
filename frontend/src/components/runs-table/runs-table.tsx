import { Link } from "react-router";
import type { RunSummary } from "../../api/types";
import { formatDuration } from "../../lib/format-utils";
import { anyActive, runDurationSeconds, waitingText } from "../../lib/run-utils";
import { useNow } from "../../lib/use-now";
import { EmbargoBadge, SimulatedBadge } from "../badge/badge";
import { ProgressBar } from "../progress-bar/progress-bar";
import { StatusBadge, statusTone } from "../status-badge/status-badge";
import { TableStateRow } from "../table-states/table-states";
import { TimeText } from "../time-text/time-text";
import "./runs-table.css";

const COLUMNS = 8;

interface RunsTableProps {
  runs: RunSummary[] | undefined;
  loading: boolean;
}

export function RunsTable({ runs, loading }: RunsTableProps) {
  const now = useNow(anyActive(runs));
  return (
    <div className="table-wrap">
      <table className="table runs-table">
        <thead>
          <tr>
            <th className="num">Run</th>
            <th>Plan</th>
            <th>Drive</th>
            <th>Status</th>
            <th>Progress</th>
            <th>Created</th>
            <th>Finished</th>
            <th className="num">Duration</th>
          </tr>
        </thead>
        <tbody>
          {loading && !runs && <TableStateRow colSpan={COLUMNS}>Loading runs…</TableStateRow>}
          {runs && runs.length === 0 && (
            <TableStateRow colSpan={COLUMNS}>
              No runs yet. <Link to="/queue">Queue a test</Link> to start one.
            </TableStateRow>
          )}
          {runs?.map((run) => (
            <tr key={run.id}>
              <td className="num">
                <Link to={`/runs/${run.id}`} className="mono">
                  #{run.id}
                </Link>
              </td>
              <td className="mono">{run.plan}</td>
              <td>
                <span className="runs-table__drive">
                  <span className="runs-table__drive-label" title={run.drive_label}>
                    {run.drive_label}
                  </span>
                  {run.simulated && <SimulatedBadge emulated={run.emulated} />}
                  {run.embargoed && <EmbargoBadge />}
                </span>
              </td>
              <td>
                <StatusBadge status={run.status} />
                {run.status === "queued" && run.waiting_position != null && (
                  <span className="cell-sub">{waitingText(run.waiting_position)}</span>
                )}
              </td>
              <td className="runs-table__progress">
                <ProgressBar
                  value={run.status === "done" ? 1 : run.progress}
                  tone={statusTone(run.status)}
                  label={`Run ${run.id} progress`}
                />
              </td>
              <td>
                <TimeText iso={run.created_at} />
              </td>
              <td>
                <TimeText iso={run.finished_at} />
              </td>
              <td className="num">{formatDuration(runDurationSeconds(run, now))}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
