import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import {
  CartesianGrid,
  Line,
  LineChart,
  ReferenceArea,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { runSamplesQuery } from "../../api/runs/queries";
import type { RunDetail } from "../../api/types";
import { tickFormat, yAxisWidth, zeroAxis } from "../../lib/axis-utils";
import { toCsv } from "../../lib/export-utils";
import { ChartFrame } from "../chart-frame/chart-frame";
import {
  AXIS_LABEL,
  AXIS_LINE,
  AXIS_TICK,
  CHART_FONT,
  GRID_STROKE,
  LINE_WIDTH,
  SERIES_COLORS,
} from "../chart-frame/chart-theme";
import { errorMessage } from "../error-box/error-box";
import "../cdm-table/cdm-table.css";
import { copyCurves, fileCopyFindings, standstillText } from "./file-copy-utils";

const HEIGHT = 260;
const MARGIN = { top: 14, right: 8, bottom: 18, left: 8 };
const STILL_FILL = "#fdecec";
const FIRST = "first copy";
const REPEATED = "repeated copy, after the deletions";

interface Props {
  run: RunDetail;
  conditions: string;
  provenance: string;
}

/**
 * The file copy's run: the copy throughput of the first copy and of the repeated copy after
 * the deletions, overlaid against seconds from each copy's first write, the repeated copy's
 * standstills shaded; under it each copy's standstills and the findings in words.
 */
export function FileCopySection({ run, conditions, provenance }: Props) {
  const hit = fileCopyFindings(run.steps);
  const samples = useQuery({ ...runSamplesQuery(run.id, hit?.step.id ?? 0), enabled: hit !== null });
  const points = useMemo(
    () => (hit && samples.data ? copyCurves(samples.data, hit.found) : []),
    [hit, samples.data],
  );
  if (!hit) return null;
  const { found } = hit;
  const end = Math.max(found.first.seconds, found.repeated.seconds);
  const xAxis = zeroAxis(end, 5);
  const yAxis = zeroAxis(Math.max(0, ...points.map((p) => Math.max(p.first ?? 0, p.repeated ?? 0))), 4);
  const xFormat = tickFormat(xAxis.ticks);
  const yFormat = tickFormat(yAxis.ticks);
  const overlay = samples.isError
    ? `Could not load the samples: ${errorMessage(samples.error)}`
    : points.length === 0
      ? samples.isPending
        ? "Loading samples…"
        : "No samples."
      : undefined;
  return (
    <section className="section" aria-labelledby="file-copy-heading" data-chart="file-copy">
      <div className="section__header">
        <h2 id="file-copy-heading">File copy after deletions</h2>
        <span className="muted">standstills of the repeated copy shaded</span>
      </div>
      <div className="section__body">
        <ul data-testid="file-copy-words">
          {found.words.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
        <ChartFrame
          title="Copy throughput"
          subtitle="write MB/s (10⁶ bytes/s) per 100 ms · t (s) from each copy's first write"
          height={HEIGHT}
          overlay={overlay}
          chartId="file-copy-run"
          exportAs={{
            fileName: ["run", String(run.id), "file-copy"],
            title: `Run ${run.id}: file copy before and after the deletions`,
            conditions,
            provenance,
            simulated: run.simulated ? `Simulated drive: ${run.drive_label}` : undefined,
            legend: [
              { label: FIRST, color: SERIES_COLORS.read },
              { label: REPEATED, color: SERIES_COLORS.write },
            ],
            csv: () =>
              toCsv(
                ["t_s", "first_copy_mbps (MB/s)", "repeated_copy_mbps (MB/s)", "repeated_standstill"],
                points.map((p) => [
                  p.t,
                  p.first,
                  p.repeated,
                  p.repeated !== null &&
                  found.repeated.standstills.some((s) => p.t > s.start_s && p.t <= s.start_s + s.duration_s + 0.1)
                    ? 1
                    : 0,
                ]),
              ),
          }}
        >
          <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 600, height: HEIGHT }}>
            <LineChart data={points} margin={MARGIN} style={{ fontFamily: CHART_FONT }}>
              <CartesianGrid stroke={GRID_STROKE} vertical={false} />
              {found.repeated.standstills.map((s) => (
                <ReferenceArea
                  key={s.start_s}
                  x1={s.start_s}
                  x2={s.start_s + s.duration_s}
                  fill={STILL_FILL}
                  fillOpacity={0.9}
                  stroke="none"
                  ifOverflow="hidden"
                  label={{ value: `${s.duration_s.toFixed(1)} s`, position: "insideTop", style: AXIS_LABEL }}
                />
              ))}
              <XAxis
                dataKey="t"
                type="number"
                domain={xAxis.domain}
                ticks={xAxis.ticks}
                tickFormatter={xFormat}
                allowDataOverflow
                tick={AXIS_TICK}
                stroke={AXIS_LINE}
                label={{ value: "t (s)", position: "insideBottomRight", offset: -8, style: AXIS_LABEL }}
              />
              <YAxis
                tick={AXIS_TICK}
                stroke={AXIS_LINE}
                domain={yAxis.domain}
                ticks={yAxis.ticks}
                tickFormatter={yFormat}
                width={yAxisWidth(yAxis.ticks.map(yFormat), false)}
                allowDataOverflow
              />
              <Tooltip isAnimationActive={false} labelFormatter={(t) => `${Number(t).toFixed(1)} s`} />
              <Line
                dataKey="first"
                name={FIRST}
                stroke={SERIES_COLORS.read}
                strokeWidth={LINE_WIDTH}
                dot={false}
                connectNulls
                isAnimationActive={false}
              />
              <Line
                dataKey="repeated"
                name={REPEATED}
                stroke={SERIES_COLORS.write}
                strokeWidth={LINE_WIDTH}
                dot={false}
                connectNulls
                isAnimationActive={false}
              />
            </LineChart>
          </ResponsiveContainer>
        </ChartFrame>
        <table className="cdm-table" data-testid="file-copy-table">
          <thead>
            <tr>
              <th scope="col">copy</th>
              <th scope="col">MB/s</th>
              <th scope="col">stood still</th>
              <th scope="col">standstills (start s for s)</th>
            </tr>
          </thead>
          <tbody>
            {[
              ["first", found.first],
              ["repeated", found.repeated],
            ].map(([name, copy]) => {
              const c = copy as typeof found.first;
              return (
                <tr key={name as string}>
                  <th scope="row">{name as string}</th>
                  <td>{c.mbps.toFixed(0)}</td>
                  <td>{standstillText(c)}</td>
                  <td className="muted" style={{ textAlign: "left" }}>
                    {c.standstills.map((s) => `${s.start_s.toFixed(1)} for ${s.duration_s.toFixed(1)}`).join(", ") ||
                      "–"}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
