import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { Comparison } from "../../api/results/types";
import type { DriveStyle } from "../../lib/house-style";
import { csvDocument } from "../../lib/export-utils";
import { tickFormat, yAxisWidth, zeroAxis } from "../../lib/axis-utils";
import { ChartFrame } from "../chart-frame/chart-frame";
import { AXIS_LINE, AXIS_TICK, CHART_FONT, GRID_STROKE } from "../chart-frame/chart-theme";
import { changeText, compareBars, compareCsvRows, fullDriveCompare, testWords } from "./full-drive-utils";
import "../cdm-table/cdm-table.css";

const HEIGHT = 260;

interface Props {
  comparison: Comparison | undefined;
  drives: number[];
  styles: Map<number, DriveStyle>;
  fileBase: string;
}

/** Compare: each drive's four corners empty and full side by side (the full bars lighter), and
 * the change from empty to full; each state pools only its own runs. */
export function FullDriveCompare({ comparison, drives, styles, fileBase }: Props) {
  const { drives: rows, tests, fillPercents } = fullDriveCompare(comparison?.metrics ?? [], drives);
  if (rows.length === 0) return <p className="muted">No drive has a finished full-drive run.</p>;
  const full = fillPercents.length === 1 ? `${fillPercents[0]}% full` : "full";
  const data = compareBars(rows, tests);
  const values = data.flatMap((p) => Object.values(p).filter((v): v is number => typeof v === "number"));
  const axis = zeroAxis(Math.max(0, ...values), 5);
  const format = tickFormat(axis.ticks);
  const about = {
    title: `The four corners empty and ${full}`,
    metric: "MB/s (10^6 bytes/s), each state's runs pooled (mean); change from empty to full in %",
    conditions: `full-drive · empty: first part of a purged drive; ${full}: over the filled part`,
    warnings: [
      ...(fillPercents.length > 1 ? [`drives filled to different shares: ${fillPercents.join("%, ")}%`] : []),
      ...(comparison?.metrics ?? [])
        .filter((m) => m.metric.startsWith("full-drive:"))
        .flatMap((m) => m.warnings)
        .filter((w, i, all) => all.indexOf(w) === i),
    ],
  };
  return (
    <div data-chart="full-drive-compare">
      <ChartFrame
        title={`Empty against ${full}`}
        subtitle="MB/s per test: each drive empty (solid) and full (light)"
        height={HEIGHT}
        chartId="full-drive-compare-bars"
        exportAs={{
          fileName: [fileBase, "full-drive"],
          ...about,
          legend: rows.flatMap((d) => [
            { label: `${d.name}, empty`, color: styles.get(d.driveId)?.color ?? "#555" },
            { label: `${d.name}, ${full}`, color: styles.get(d.driveId)?.color ?? "#555", dashed: true },
          ]),
          csv: () =>
            csvDocument(
              about,
              ["drive", "test", "empty MB/s", "empty runs", `${full} MB/s`, `${full} runs`, "drop from empty %"],
              compareCsvRows(rows, tests),
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
              width={yAxisWidth(axis.ticks.map(format), false)}
              allowDataOverflow
            />
            <Tooltip isAnimationActive={false} formatter={(v) => `${Number(v).toFixed(1)} MB/s`} />
            {rows.flatMap((d) => {
              const color = styles.get(d.driveId)?.color ?? "#555";
              return [
                <Bar key={`${d.driveId}e`} dataKey={`d${d.driveId}:empty`} name={`${d.name}, empty`} fill={color} isAnimationActive={false} />,
                <Bar key={`${d.driveId}f`} dataKey={`d${d.driveId}:full`} name={`${d.name}, ${full}`} fill={color} fillOpacity={0.4} stroke={color} isAnimationActive={false} />,
              ];
            })}
          </BarChart>
        </ResponsiveContainer>
      </ChartFrame>
      <table className="cdm-table">
        <thead>
          <tr>
            <th scope="col">drive</th>
            {tests.map((t) => (
              <th key={t} scope="col">
                {testWords(t)}: empty → {full} (MB/s)
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((d) => (
            <tr key={d.driveId} data-drive={d.driveId}>
              <th scope="row">{d.name}</th>
              {tests.map((t) => {
                const c = d.tests.get(t);
                if (!c) return <td key={t}>–</td>;
                const v = (x: number | null) => (x === null ? "–" : x.toFixed(1));
                return (
                  <td key={t} data-test={t}>
                    {`${v(c.empty.mbps)} → ${v(c.full.mbps)} (${changeText(c.dropPct)})`}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">
        Empty: the first part of a purged drive; full: over the filled part, right after the fill. Each state pools only
        its own runs (n per cell in the CSV), never the other state&apos;s nor the four-corners plan&apos;s.
      </p>
    </div>
  );
}
