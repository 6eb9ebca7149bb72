import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { Step } from "../../api/types";
import { csvDocument } from "../../lib/export-utils";
import { tickFormat, yAxisWidth, zeroAxis } from "../../lib/axis-utils";
import { ChartFrame } from "../chart-frame/chart-frame";
import { AXIS_LABEL, AXIS_LINE, AXIS_TICK, CHART_FONT, GRID_STROKE } from "../chart-frame/chart-theme";
import { changeText, fullDriveRows, shortWords } from "./full-drive-utils";
import "../cdm-table/cdm-table.css";

const HEIGHT = 240;
export const EMPTY_COLOR = "#2563eb";
export const FULL_COLOR = "#ea580c";

interface Props {
  steps: Step[];
  fileParts: string[];
  conditions: string;
  provenance: string;
  simulated?: string;
}

/** A full-drive run: the four corners empty and full side by side (grouped bars), the change
 * from empty to full of each, and the findings in words. */
export function FullDriveChart({ steps, fileParts, conditions, provenance, simulated }: Props) {
  const { rows, fillPercent, note } = fullDriveRows(steps);
  if (rows.length === 0) return null;
  const full = fillPercent !== null ? `${fillPercent}% full` : "full";
  const data = rows.map((r) => ({ test: shortWords(r.test), empty: r.emptyMbps, full: r.fullMbps }));
  const axis = zeroAxis(Math.max(0, ...rows.flatMap((r) => [r.emptyMbps ?? 0, r.fullMbps ?? 0])), 5);
  const format = tickFormat(axis.ticks);
  const about = {
    title: `The four corners empty and ${full}`,
    metric: "MB/s (10^6 bytes/s) of each test, fio's totals; change from empty to full in %",
    conditions,
    provenance,
    simulated,
  };
  return (
    <section className="section" aria-labelledby="full-drive-heading" data-chart="full-drive">
      <div className="section__header">
        <h2 id="full-drive-heading">Empty against {full}</h2>
      </div>
      <div className="section__body">
        <ChartFrame
          title={`The four corners empty and ${full}`}
          subtitle="MB/s per test, empty (first part of a purged drive) and full"
          height={HEIGHT}
          chartId="full-drive-bars"
          exportAs={{
            fileName: [...fileParts, "full-drive"],
            ...about,
            legend: [
              { label: "empty", color: EMPTY_COLOR },
              { label: full, color: FULL_COLOR },
            ],
            csv: () =>
              csvDocument(
                about,
                ["test", "empty MB/s", `${full} MB/s`, "change from empty %"],
                rows.map((r) => [r.words, r.emptyMbps, r.fullMbps, r.dropPct === null ? null : -r.dropPct]),
              ),
          }}
        >
          <ResponsiveContainer width="100%" height={HEIGHT} initialDimension={{ width: 600, height: HEIGHT }}>
            <BarChart data={data} margin={{ top: 6, right: 16, bottom: 4, left: 8 }} style={{ fontFamily: CHART_FONT }}>
              <CartesianGrid stroke={GRID_STROKE} vertical={false} />
              <XAxis dataKey="test" tick={AXIS_TICK} stroke={AXIS_LINE} />
              <YAxis
                tick={AXIS_TICK}
                stroke={AXIS_LINE}
                domain={axis.domain}
                ticks={axis.ticks}
                tickFormatter={format}
                width={yAxisWidth(axis.ticks.map(format))}
                label={{ value: "MB/s", angle: -90, position: "insideLeft", style: AXIS_LABEL }}
                allowDataOverflow
              />
              <Tooltip isAnimationActive={false} formatter={(v) => `${Number(v).toFixed(1)} MB/s`} />
              <Bar dataKey="empty" name="empty" fill={EMPTY_COLOR} isAnimationActive={false} />
              <Bar dataKey="full" name={full} fill={FULL_COLOR} isAnimationActive={false} />
            </BarChart>
          </ResponsiveContainer>
        </ChartFrame>
        <table className="cdm-table" data-testid="full-drive-table">
          <thead>
            <tr>
              <th scope="col">test</th>
              <th scope="col">empty (MB/s)</th>
              <th scope="col">{full} (MB/s)</th>
              <th scope="col">change</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.test} data-test={r.test}>
                <th scope="row">{r.words}</th>
                <td>{r.emptyMbps !== null ? r.emptyMbps.toFixed(1) : "–"}</td>
                <td>{r.fullMbps !== null ? r.fullMbps.toFixed(1) : "–"}</td>
                <td>{changeText(r.dropPct)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <ul data-testid="full-drive-findings">
          {rows
            .filter((r) => r.said)
            .map((r) => (
              <li key={r.test}>{r.said}.</li>
            ))}
        </ul>
        {note && <p className="muted">{note}</p>}
      </div>
    </section>
  );
}
