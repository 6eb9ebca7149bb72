import type { Comparison } from "../../api/results/types";
import { fileCopyCompare } from "./file-copy-utils";
import "../cdm-table/cdm-table.css";

const num = (v: number | null, digits = 0) => (v === null ? "–" : v.toFixed(digits));

/** Compare: each drive's file copy (file-copy plan), before and after the deletions. */
export function FileCopyCompare({ comparison, drives }: { comparison: Comparison | undefined; drives: number[] }) {
  const rows = fileCopyCompare(comparison?.metrics ?? [], drives);
  if (rows.length === 0) return <p className="muted">No drive has a finished file-copy run.</p>;
  return (
    <div data-chart="file-copy-compare">
      <table className="cdm-table">
        <thead>
          <tr>
            <th scope="col">drive</th>
            <th scope="col">first copy (MB/s)</th>
            <th scope="col">standstills</th>
            <th scope="col">after the deletions (MB/s)</th>
            <th scope="col">standstills</th>
            <th scope="col">stood still (s)</th>
            <th scope="col">longest (s)</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((d) => (
            <tr key={d.driveId} data-drive={d.driveId}>
              <th scope="row">{d.name}</th>
              <td>{num(d.firstMbps)}</td>
              <td>{num(d.firstCount)}</td>
              <td>{num(d.repeatedMbps)}</td>
              <td>{num(d.repeatedCount)}</td>
              <td>{num(d.repeatedStillS, 1)}</td>
              <td>{num(d.repeatedLongestS, 1)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">
        The copy's write throughput in 100 ms snapshots; a standstill is 0.3 s or more below 10% of the copy's median
        pace. The repeated copy follows the deletion of the first copy's files (with online discard).
      </p>
    </div>
  );
}
