import { useState } from "react";
import type { Step } from "../../api/types";
import { downloadText } from "../../lib/export-dom";
import { csvDocument, exportFileName } from "../../lib/export-utils";
import { CDM_UNITS, cdmCsvRows, cdmRows, formatCdm, type CdmUnit } from "./cdm-utils";
import "./cdm-table.css";

interface Props {
  steps: Step[];
  /** For the CSV: the file name's parts, conditions and provenance lines. */
  fileParts: string[];
  conditions: string;
  provenance: string;
  simulated?: string;
}

/** The CrystalDiskMark-style preset's Read/Write table of one run, filled as tests end. */
export function CdmTable({ steps, fileParts, conditions, provenance, simulated }: Props) {
  const [unit, setUnit] = useState<CdmUnit>("mbps");
  const rows = cdmRows(steps, unit);
  const unitLabel = CDM_UNITS.find((u) => u.key === unit)!.label;
  const exportCsv = () => {
    const csv = csvDocument(
      {
        title: "CrystalDiskMark-style preset: best pass of each test",
        metric: `${unitLabel}${unit === "mbps" ? " (10^6 bytes/s)" : ""}, each test's best pass by MB/s`,
        conditions,
        provenance,
        simulated,
      },
      ["test", `read ${unitLabel}`, `write ${unitLabel}`],
      cdmCsvRows(rows),
    );
    downloadText(csv, exportFileName([...fileParts, "cdm-style", unit], "csv"), "text/csv");
  };
  return (
    <section className="section" aria-labelledby="cdm-heading" data-chart="cdm-style">
      <div className="section__header">
        <h2 id="cdm-heading">CrystalDiskMark-style figures</h2>
        <span className="cdm-table__tools">
          <span role="group" aria-label="Unit" className="cdm-table__units">
            {CDM_UNITS.map((u) => (
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
              <th scope="col">Read [{unitLabel}]</th>
              <th scope="col">Write [{unitLabel}]</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.key}>
                <th scope="row">{r.label}</th>
                <td title={r.read.detail} data-cell={`${r.key}-read`}>
                  {formatCdm(r.read.value, unit)}
                </td>
                <td title={r.write.detail} data-cell={`${r.key}-write`}>
                  {formatCdm(r.write.value, unit)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <p className="muted cdm-table__note">
          Each figure is the test's best pass (highest MB/s; its IOPS and mean latency beside
          it), MB/s decimal, as CrystalDiskMark reports; hover a figure for every pass. Same
          workloads, measured by fio on the raw device.
        </p>
      </div>
    </section>
  );
}
