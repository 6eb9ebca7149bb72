import {
  CartesianGrid,
  Line,
  LineChart,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import type { Step } from "../../api/types";
import {
  AXIS_LABEL,
  AXIS_LINE,
  AXIS_TICK,
  CHART_FONT,
  GRID_STROKE,
  LINE_WIDTH,
  SERIES_COLORS,
} from "../chart-frame/chart-theme";
import { tickFormat, yAxisWidth, zeroAxis } from "../../lib/axis-utils";
import { toCsv } from "../../lib/export-utils";
import { ChartFrame } from "../chart-frame/chart-frame";
import { gb, recoveredText, slcFindings } from "./slc-utils";
import "../cdm-table/cdm-table.css";

const HEIGHT = 200;

/** An SLC cache run: the cache the fill found, and what each idle gap gave back of it. */
export function SlcRecovery({
  runId,
  steps,
  conditions,
  provenance,
}: {
  runId: number;
  steps: Step[];
  conditions: string;
  provenance: string;
}) {
  const { fill, refills } = slcFindings(steps);
  if (!fill && refills.length === 0) return null;
  const points = refills
    .filter((r) => r.recoveredGb !== null)
    .map((r) => ({ x: r.idleMeasuredS ?? r.idleS, y: r.recoveredGb as number }));
  const measured = refills.some((r) => r.idleMeasuredS !== null);
  // The house axes (one tick rule): from 0 to a nice end past the data and the cache line.
  const xAxis = zeroAxis(Math.max(0, ...points.map((p) => p.x)), 4);
  const yAxis = zeroAxis(Math.max(0, fill?.cacheGb ?? 0, ...points.map((p) => p.y)), 4);
  const xFormat = tickFormat(xAxis.ticks);
  const yFormat = tickFormat(yAxis.ticks);
  return (
    <section className="section" aria-labelledby="slc-heading" data-chart="slc-recovery">
      <div className="section__header">
        <h2 id="slc-heading">SLC cache and its recovery</h2>
      </div>
      <div className="section__body">
        {fill && (
          <p data-testid="slc-fill">
            {fill.cacheGb !== null
              ? `Cache: ${gb(fill.cacheGb)} GB written at ${gb(fill.cacheMbps ?? 0)} MB/s before the speed stepped down to ${gb(fill.afterMbps ?? 0)} MB/s.`
              : `No cache seen: ${fill.note}.`}{" "}
            <span className="muted">
              A cache smaller than {gb(fill.resolutionGb)} GB (2% of the fill) cannot be seen.
            </span>
          </p>
        )}
        {refills.length > 0 && (
          <table className="cdm-table" data-testid="slc-recovery-table">
            <thead>
              <tr>
                <th scope="col">idle (s)</th>
                <th scope="col">cache recovered (GB)</th>
                <th scope="col">idle measured (s)</th>
                <th scope="col">finding</th>
              </tr>
            </thead>
            <tbody>
              {refills.map((r) => (
                <tr key={r.step}>
                  <th scope="row">{r.idleS}</th>
                  <td>{recoveredText(r)}</td>
                  <td>{r.idleMeasuredS !== null ? r.idleMeasuredS.toFixed(1) : "–"}</td>
                  <td className="muted" style={{ fontSize: "0.85rem", fontWeight: 400, textAlign: "left" }}>
                    {r.note}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {points.length > 1 && (
          <ChartFrame
            title="Cache recovered against idle"
            subtitle={`GB written at the cache's speed in each refill · against the ${measured ? "idle measured on fio's clock" : "idle asked"} (s) · dashed: the cache the fill found`}
            height={HEIGHT}
            chartId="slc-recovered"
            exportAs={{
              fileName: ["run", String(runId), "slc-recovery"],
              title: `Run ${runId}: SLC cache recovered against idle`,
              conditions,
              provenance,
              legend: [{ label: "cache recovered (GB)", color: SERIES_COLORS.write }],
              csv: () =>
                toCsv(
                  ["idle_s", "idle_measured_s", "recovered_gb (GB)", "at_least", "fill_cache_gb (GB)"],
                  refills.map((r) => [
                    r.idleS,
                    r.idleMeasuredS,
                    r.recoveredGb,
                    r.atLeast ? 1 : 0,
                    fill?.cacheGb ?? null,
                  ]),
                ),
            }}
          >
            <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 500, height: HEIGHT }}>
              <LineChart data={points} margin={{ top: 6, right: 16, bottom: 18, left: 8 }} style={{ fontFamily: CHART_FONT }}>
                <CartesianGrid stroke={GRID_STROKE} vertical={false} />
                <XAxis
                  dataKey="x"
                  type="number"
                  domain={xAxis.domain}
                  ticks={xAxis.ticks}
                  tickFormatter={xFormat}
                  allowDataOverflow
                  tick={AXIS_TICK}
                  stroke={AXIS_LINE}
                  label={{ value: measured ? "idle measured (s)" : "idle (s)", position: "insideBottomRight", offset: -8, style: AXIS_LABEL }}
                />
                <YAxis
                  tick={AXIS_TICK}
                  stroke={AXIS_LINE}
                  domain={yAxis.domain}
                  ticks={yAxis.ticks}
                  tickFormatter={yFormat}
                  width={yAxisWidth(yAxis.ticks.map(yFormat))}
                  allowDataOverflow
                  label={{ value: "GB", angle: -90, position: "insideLeft", offset: 8, style: AXIS_LABEL }}
                />
                {fill?.cacheGb != null && (
                  <ReferenceLine y={fill.cacheGb} stroke={AXIS_LINE} strokeDasharray="3 3" label="cache" />
                )}
                <Tooltip
                  isAnimationActive={false}
                  labelFormatter={(label) => `after ${Number(label).toFixed(1)} s idle`}
                  formatter={(value) => [`${gb(Number(value))} GB`, "recovered"]}
                />
                <Line
                  dataKey="y"
                  name="recovered"
                  stroke={SERIES_COLORS.write}
                  strokeWidth={LINE_WIDTH}
                  isAnimationActive={false}
                />
              </LineChart>
            </ResponsiveContainer>
          </ChartFrame>
        )}
      </div>
    </section>
  );
}
