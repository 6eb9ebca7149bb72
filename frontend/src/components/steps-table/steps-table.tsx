import type { Step } from "../../api/types";
import { formatDuration } from "../../lib/format-utils";
import { stepDurationSeconds } from "../../lib/run-utils";
import { useNow } from "../../lib/use-now";
import { ProgressBar } from "../progress-bar/progress-bar";
import { StatusBadge, statusTone } from "../status-badge/status-badge";
import { TableStateRow } from "../table-states/table-states";
import "./steps-table.css";

interface StepsTableProps {
  steps: Step[];
  selectedId: number | null;
  onSelect: (stepId: number) => void;
}

/** The run's steps in order; picking one shows its chart and results below. */
export function StepsTable({ steps, selectedId, onSelect }: StepsTableProps) {
  const now = useNow(steps.some((s) => s.status === "running"));
  const ordered = steps.slice().sort((a, b) => a.idx - b.idx);
  return (
    <div className="table-wrap">
      <table className="table steps-table">
        <thead>
          <tr>
            <th className="num">#</th>
            <th>Step</th>
            <th>Kind</th>
            <th>Status</th>
            <th>Progress</th>
            <th className="num">Results</th>
            <th className="num">Duration</th>
          </tr>
        </thead>
        <tbody>
          {ordered.length === 0 && (
            <TableStateRow colSpan={7}>This run has no steps.</TableStateRow>
          )}
          {ordered.map((step) => {
            const selected = step.id === selectedId;
            return (
              <tr
                key={step.id}
                className={
                  selected ? "steps-table__row steps-table__row--selected" : "steps-table__row"
                }
                onClick={() => onSelect(step.id)}
              >
                <td className="num muted">{step.idx + 1}</td>
                <td>
                  <button
                    type="button"
                    className="steps-table__select"
                    aria-pressed={selected}
                    onClick={(e) => {
                      e.stopPropagation();
                      onSelect(step.id);
                    }}
                  >
                    {step.name}
                  </button>
                  {step.label !== step.name && <span className="cell-sub">{step.label}</span>}
                </td>
                <td className="mono">{step.kind}</td>
                <td>
                  <StatusBadge status={step.status} />
                </td>
                <td className="steps-table__progress">
                  <ProgressBar
                    value={step.status === "done" ? 1 : step.progress}
                    tone={statusTone(step.status)}
                    label={`Step ${step.name} progress`}
                  />
                </td>
                <td className="num">{step.results.length || <span className="muted">—</span>}</td>
                <td className="num">{formatDuration(stepDurationSeconds(step, now))}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
