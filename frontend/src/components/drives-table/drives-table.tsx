import { Link } from "react-router";
import type { Drive, RunSummary } from "../../api/types";
import { formatCapacity } from "../../lib/format-utils";
import { Badge, EmbargoBadge, SimulatedBadge } from "../badge/badge";
import { ProgressBar } from "../progress-bar/progress-bar";
import { statusTone } from "../status-badge/status-badge";
import { TableStateRow } from "../table-states/table-states";
import "./drives-table.css";

const COLUMNS = 6;

export interface QueueActions {
  /** Reviewers reorder and cancel; viewers only see the queue. */
  enabled: boolean;
  busy: boolean;
  move: (runId: number, position: number) => void;
  cancel: (run: { id: number; plan: string | null }) => void;
}

interface DrivesTableProps {
  drives: Drive[] | undefined;
  loading: boolean;
  /** Recent runs by id: the active run's progress and the waiting runs' plans. */
  runs?: ReadonlyMap<number, RunSummary>;
  queue?: QueueActions;
  /** Hide the bench column (a table inside a bench's card). */
  withBench?: boolean;
}

function ActiveRun({ runId, run }: { runId: number; run: RunSummary | undefined }) {
  return (
    <div className="drives-table__active">
      <span className="drives-table__state">
        <Badge tone="info">busy</Badge>
        <Link to={`/runs/${runId}`}>run #{runId}</Link>
        {run && <span className="mono drives-table__plan">{run.plan}</span>}
      </span>
      {run && (
        <ProgressBar
          value={run.progress}
          tone={statusTone(run.status)}
          label={`Run ${runId} progress`}
        />
      )}
    </div>
  );
}

function WaitingList({
  ids,
  runs,
  queue,
}: {
  ids: number[];
  runs: ReadonlyMap<number, RunSummary> | undefined;
  queue: QueueActions | undefined;
}) {
  return (
    <ol className="drives-table__queue" aria-label="Waiting runs, next first">
      {ids.map((id, i) => {
        const plan = runs?.get(id)?.plan ?? null;
        return (
          <li key={id}>
            <Link to={`/runs/${id}`}>#{id}</Link>
            {plan && <span className="mono drives-table__plan">{plan}</span>}
            {queue?.enabled && (
              <span className="drives-table__queue-actions">
                <button
                  type="button"
                  className="icon-button"
                  disabled={i === 0 || queue.busy}
                  aria-label={`Run #${id} earlier`}
                  title="Earlier"
                  onClick={() => queue.move(id, i)}
                >
                  ↑
                </button>
                <button
                  type="button"
                  className="icon-button"
                  disabled={i === ids.length - 1 || queue.busy}
                  aria-label={`Run #${id} later`}
                  title="Later"
                  onClick={() => queue.move(id, i + 2)}
                >
                  ↓
                </button>
                <button
                  type="button"
                  className="icon-button icon-button--danger"
                  disabled={queue.busy}
                  aria-label={`Cancel run #${id}`}
                  title="Cancel"
                  onClick={() => queue.cancel({ id, plan })}
                >
                  ✕
                </button>
              </span>
            )}
          </li>
        );
      })}
    </ol>
  );
}

export function DrivesTable({ drives, loading, runs, queue, withBench = true }: DrivesTableProps) {
  const columns = withBench ? COLUMNS + 1 : COLUMNS;
  return (
    <div className="table-wrap">
      <table className="table drives-table">
        <thead>
          <tr>
            <th className="num">ID</th>
            <th>Model</th>
            <th className="num">Capacity</th>
            <th>Serial</th>
            {withBench && <th>Bench</th>}
            <th className="drives-table__state-col">Run and queue</th>
            <th>
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {loading && !drives && <TableStateRow colSpan={columns}>Loading drives…</TableStateRow>}
          {drives && drives.length === 0 && (
            <TableStateRow colSpan={columns}>No drives registered yet.</TableStateRow>
          )}
          {drives?.map((drive) => {
            const waiting = drive.waiting_run_ids ?? [];
            return (
              <tr key={drive.id}>
                <td className="num mono">{drive.id}</td>
                <td>
                  <span className="drives-table__model">
                    {drive.model.vendor} {drive.model.model}
                    {drive.simulated && <SimulatedBadge emulated={drive.emulated} />}
                    {drive.embargoed && <EmbargoBadge />}
                  </span>
                  <span className="cell-sub">
                    {drive.model.interface ?? "interface unknown"}
                    {" · "}
                    <span className="mono" title="Target path">
                      {drive.target_path}
                    </span>
                  </span>
                </td>
                <td className="num">{formatCapacity(drive.model.capacity_bytes)}</td>
                <td>
                  <span className="mono">{drive.serial}</span>
                  <span className="cell-sub">{drive.firmware ? `fw ${drive.firmware}` : "fw —"}</span>
                </td>
                {withBench && (
                  <td>
                    <span className="drives-table__bench">
                      <span
                        className={`drives-table__dot drives-table__dot--${drive.bench.online ? "on" : "off"}`}
                        aria-hidden="true"
                      />
                      {drive.bench.name}
                    </span>
                    <span className="cell-sub">{drive.bench.online ? "online" : "offline"}</span>
                  </td>
                )}
                <td className="drives-table__state-col">
                  {drive.active_run_id !== null ? (
                    <ActiveRun runId={drive.active_run_id} run={runs?.get(drive.active_run_id)} />
                  ) : (
                    <Badge tone="ok">free</Badge>
                  )}
                  {waiting.length > 0 && <WaitingList ids={waiting} runs={runs} queue={queue} />}
                </td>
                <td className="drives-table__actions">
                  <Link
                    to={`/queue?drive=${drive.id}`}
                    className="button"
                    aria-label={`Queue a test on drive ${drive.id} (${drive.serial})`}
                  >
                    Queue a test
                  </Link>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
