import { useState } from "react";
import type { Comparison } from "../../api/results/types";
import { downloadText } from "../../lib/export-dom";
import { csvDocument, exportFileName, simulatedMark } from "../../lib/export-utils";
import { formatAsSsd, formatScore } from "../asssd-table/asssd-utils";
import { CDM_PLAN } from "../cdm-table/cdm-utils";
import {
  desktopCompare,
  desktopConditions,
  desktopCsv,
  type DesktopPlan,
  type DesktopUnit,
} from "./desktop-compare-utils";
import "../cdm-table/cdm-table.css";
import "./desktop-compare.css";

const TITLES: Record<DesktopPlan, string> = {
  "cdm-style": "CrystalDiskMark-style figures",
  "as-ssd-style": "AS-SSD-style figures",
};
const NOTES: Record<DesktopPlan, string> = {
  "cdm-style":
    "Each figure is the test's best pass (highest MB/s), MB/s decimal, as CrystalDiskMark reports; measured by fio on the raw device.",
  "as-ssd-style":
    "Each figure is its test's average (fio's totals), MB/s decimal; Acc.time is the mean time of one 512-byte I/O at QD1 in ms. Scores use the weights Tom's Hardware (2011) and ssd-tester.com publish for AS SSD Benchmark; measured by fio on the raw device, not through a file on NTFS.",
};

/** Compare: the drives' tables of a desktop preset side by side, one block per drive. */
export function DesktopCompare({
  plan,
  comparison,
  drives,
  fileBase,
}: {
  plan: DesktopPlan;
  comparison: Comparison | undefined;
  drives: number[];
  fileBase: string;
}) {
  const [unit, setUnit] = useState<DesktopUnit>("mbps");
  const metrics = comparison?.metrics ?? [];
  const blocks = desktopCompare(plan, metrics, drives, unit);
  const title = TITLES[plan];
  if (blocks.length === 0) return <p className="muted">No drive has a finished {plan} run.</p>;
  const unitLabel = unit === "mbps" ? "MB/s" : "IOPS";
  const exportCsv = () => {
    const { header, rows } = desktopCsv(blocks);
    const csv = csvDocument(
      {
        title: `${title}, drives side by side`,
        metric: `${unitLabel}${unit === "mbps" ? " (10^6 bytes/s)" : ""}${plan === CDM_PLAN ? ", each test's best pass" : "; access time in ms; scores in points"}`,
        conditions: desktopConditions(plan, metrics),
        provenance: blocks.map((b) => `${b.name}: ${b.provenance}`).join("; "),
        simulated: simulatedMark(blocks.filter((b) => b.simulated).map((b) => b.name)),
      },
      header,
      rows,
    );
    downloadText(csv, exportFileName([fileBase, plan, unit], "csv"), "text/csv");
  };
  return (
    <div data-chart={`${plan}-compare`}>
      <div className="section__header">
        <h2>{title}</h2>
        <span className="cdm-table__tools">
          <span role="group" aria-label="Unit" className="cdm-table__units">
            {(["mbps", "iops"] as const).map((u) => (
              <button key={u} type="button" className="button" aria-pressed={unit === u} onClick={() => setUnit(u)}>
                {u === "mbps" ? "MB/s" : "IOPS"}
              </button>
            ))}
          </span>
          <button type="button" className="button" onClick={exportCsv}>
            Export CSV
          </button>
        </span>
      </div>
      <div className="desktop-compare">
        {blocks.map((b) => (
          <table key={b.driveId} className="cdm-table desktop-compare__block" data-drive={b.driveId}>
            <caption>
              {b.name}
              {b.simulated ? " (simulated)" : ""}
            </caption>
            <thead>
              <tr>
                <th scope="col">Test</th>
                <th scope="col">Read</th>
                <th scope="col">Write</th>
              </tr>
            </thead>
            <tbody>
              {b.lines.map((l) => (
                <tr key={l.key}>
                  <th scope="row">{l.label}</th>
                  <td data-cell={`${l.key}-read`}>
                    {formatAsSsd(l.read, l.unit)} <span className="desktop-compare__unit">{l.unit}</span>
                  </td>
                  <td data-cell={`${l.key}-write`}>
                    {formatAsSsd(l.write, l.unit)} <span className="desktop-compare__unit">{l.unit}</span>
                  </td>
                </tr>
              ))}
              {b.scores && (
                <>
                  <tr>
                    <th scope="row">Score</th>
                    <td data-cell="score-read">{formatScore(b.scores.read)}</td>
                    <td data-cell="score-write">{formatScore(b.scores.write)}</td>
                  </tr>
                  <tr>
                    <th scope="row">Total</th>
                    <td colSpan={2} data-cell="score-total">
                      {formatScore(b.scores.total)}
                    </td>
                  </tr>
                </>
              )}
            </tbody>
          </table>
        ))}
      </div>
      <p className="muted cdm-table__note">{NOTES[plan]}</p>
    </div>
  );
}
