import type { StepResult } from "../../api/types";
import { formatMetric } from "../../lib/format-utils";
import { TableStateRow } from "../table-states/table-states";

interface ResultsTableProps {
  results: StepResult[];
  /** Shown when there are no results (depends on the step's state). */
  emptyText: string;
}

/** A step's derived result metrics, in the order the api reports them. */
export function ResultsTable({ results, emptyText }: ResultsTableProps) {
  return (
    <div className="table-wrap">
      <table className="table">
        <thead>
          <tr>
            <th>Metric</th>
            <th className="num">Value</th>
            <th>Unit</th>
          </tr>
        </thead>
        <tbody>
          {results.length === 0 && <TableStateRow colSpan={3}>{emptyText}</TableStateRow>}
          {results.map((r) => (
            <tr key={r.metric}>
              <td>
                {r.name || r.metric}
                <span className="cell-sub mono">{r.metric}</span>
              </td>
              <td className="num" title={String(r.value)}>
                {formatMetric(r.value)}
              </td>
              <td className="muted">{r.unit}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
