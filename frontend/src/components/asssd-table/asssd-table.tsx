import { useState } from "react";
import type { Step } from "../../api/types";
import { downloadText } from "../../lib/export-dom";
import { csvDocument, exportFileName } from "../../lib/export-utils";
import {
  asSsdCsvRows,
  asSsdRows,
  asSsdScores,
  formatAsSsd,
  formatScore,
  type AsSsdUnit,
} from "./asssd-utils";
import "../cdm-table/cdm-table.css";

interface Props {
  steps: Step[];
  /** For the CSV: the file name's parts, conditions and provenance lines. */
  fileParts: string[];
  conditions: string;
  provenance: string;
  simulated?: string;
}

const UNITS: { key: AsSsdUnit; label: string }[] = [
  { key: "mbps", label: "MB/s" },
  { key: "iops", label: "IOPS" },
];

/** The AS-SSD-style preset's window of one run: Read/Write by test, then the scores. */
export function AsSsdTable({ steps, fileParts, conditions, provenance, simulated }: Props) {
  const [unit, setUnit] = useState<AsSsdUnit>("mbps");
  const rows = asSsdRows(steps, unit);
  const scores = asSsdScores(steps);
  const unitLabel = UNITS.find((u) => u.key === unit)!.label;
  const exportCsv = () => {
    const csv = csvDocument(
      {
        title: "AS-SSD-style preset: Seq, 4K, 4K-64Thrd, access time, score",
        metric: `${unitLabel}${unit === "mbps" ? " (10^6 bytes/s)" : ""}; access time in ms (mean completion latency); scores: ${scores?.source ?? "not yet"}`,
        conditions,
        provenance,
        simulated,
      },
      ["test", "read", "write", "unit"],
      asSsdCsvRows(rows, scores),
    );
    downloadText(csv, exportFileName([...fileParts, "as-ssd-style", unit], "csv"), "text/csv");
  };
  return (
    <section className="section" aria-labelledby="asssd-heading" data-chart="as-ssd-style">
      <div className="section__header">
        <h2 id="asssd-heading">AS-SSD-style figures</h2>
        <span className="cdm-table__tools">
          <span role="group" aria-label="Unit" className="cdm-table__units">
            {UNITS.map((u) => (
              <button
                key={u.key}
                type="button"
                className="button"
                aria-pressed={unit === u.key}
                onClick={() => setUnit(u.key)}
              >
                {u.label}
              </button>
            ))}
          </span>
          <button type="button" className="button" onClick={exportCsv}>
            Export CSV
          </button>
        </span>
      </div>
      <div className="section__body">
        <table className="cdm-table">
          <thead>
            <tr>
              <th scope="col">Test</th>
              <th scope="col">Read</th>
              <th scope="col">Write</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.key}>
                <th scope="row">{r.label}</th>
                <td title={r.read.detail} data-cell={`${r.key}-read`}>
                  {formatAsSsd(r.read.value, r.read.unit)} {r.read.unit}
                </td>
                <td title={r.write.detail} data-cell={`${r.key}-write`}>
                  {formatAsSsd(r.write.value, r.write.unit)} {r.write.unit}
                </td>
              </tr>
            ))}
            <tr>
              <th scope="row">Score</th>
              <td data-cell="score-read">{formatScore(scores?.read ?? null)}</td>
              <td data-cell="score-write">{formatScore(scores?.write ?? null)}</td>
            </tr>
            <tr>
              <th scope="row">Total</th>
              <td colSpan={2} data-cell="score-total">
                {formatScore(scores?.total ?? null)}
              </td>
            </tr>
          </tbody>
        </table>
        <p className="muted cdm-table__note">
          Each figure is its test's average, fio's totals (MB/s decimal); Acc.time is the mean time of one 512-byte I/O
          at QD1 (reads over the whole drive, writes over the test file). Scores: {scores?.source ?? "when the run ends"}.
          Same workloads, measured by fio on the raw device, not through a file on NTFS.
        </p>
      </div>
    </section>
  );
}
