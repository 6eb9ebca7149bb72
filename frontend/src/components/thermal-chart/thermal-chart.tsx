import { useQueries } from "@tanstack/react-query";
import { useMemo } from "react";
import {
  CartesianGrid,
  Line,
  LineChart,
  ReferenceArea,
  ResponsiveContainer,
  Tooltip,
} from "recharts";
import { runSamplesQuery } from "../../api/runs/queries";
import type { RunDetail, Sample } from "../../api/types";
import { zeroAxis } from "../../lib/axis-utils";
import { toCsv } from "../../lib/export-utils";
import { formatMetric } from "../../lib/format-utils";
import { ChartFrame } from "../chart-frame/chart-frame";
import {
  CHART_FONT,
  GRID_STROKE,
  LINE_WIDTH,
  SERIES_COLORS,
} from "../chart-frame/chart-theme";
import { errorMessage } from "../error-box/error-box";
import { temperatureRange, timeAxis } from "../run-chart/run-chart-utils";
import { thermalAxes } from "./thermal-axes";
import "./thermal-chart.css";
import { thermalRows, thermalSteps, thermalTimeline } from "./thermal-utils";

const HEIGHT = 280;
const MARGIN = { top: 14, right: 4, bottom: 18, left: 8 };
// The house's danger and info backgrounds: heat red, cool blue, under the lines.
const HEAT_FILL = "#fdecec";
const COOL_FILL = "#e8effd";
const TEMPERATURE = "Temperature";

interface Props {
  run: RunDetail;
  conditions: string;
  provenance: string;
}

/**
 * The thermal plan's run: MB/s (left axis) and the drive's °C (right axis, dashed) against
 * time over the whole run, the heat and cool phases one after the other, shaded and labelled;
 * under it the findings of every phase.
 */
export function ThermalRunSection({ run, conditions, provenance }: Props) {
  const steps = useMemo(() => thermalSteps(run.steps), [run.steps]);
  const results = useQueries({ queries: steps.map((s) => runSamplesQuery(run.id, s.id)) });
  const failed = results.find((r) => r.isError);
  const data = results.map((r) => r.data);
  const samples = useMemo(() => {
    const out = new Map<number, Sample[]>();
    steps.forEach((s, i) => out.set(s.id, data[i] ?? []));
    return out;
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the data arrays are the key
  }, [steps, ...data]);
  const { points, phases } = useMemo(() => thermalTimeline(run.steps, samples), [run.steps, samples]);
  const rows = useMemo(() => thermalRows(run.steps), [run.steps]);
  const direction = run.params.rw === "read" ? "read" : "write";
  const end = phases.length ? phases[phases.length - 1]!.end : 0;
  const xAxis = timeAxis(end, true);
  const yAxis = useMemo(() => {
    let top = 0;
    for (const p of points) top = Math.max(top, p.mbps ?? 0);
    return zeroAxis(top, 4);
  }, [points]);
  // The run chart's °C axis rule (at least 10 °C tall, round ticks around what was seen).
  const tAxis = useMemo(() => temperatureRange(points.map((p) => p.temp_c)), [points]);
  const loading = results.some((r) => r.isPending);
  const overlay = failed
    ? `Could not load the samples: ${errorMessage(failed.error)}`
    : points.length === 0
      ? loading
        ? "Loading samples…"
        : "No phase has samples yet."
      : undefined;

  return (
    <section className="section" aria-labelledby="thermal-heading" data-chart="thermal-section">
      <div className="section__header">
        <h2 id="thermal-heading">Thermal</h2>
        <span className="muted">
          {phases.length} phase{phases.length === 1 ? "" : "s"}: heat shaded red, cool blue
        </span>
      </div>
      <div className="section__body">
        <ChartFrame
          title="Throughput and temperature"
          subtitle={`${direction} MB/s (10⁶ bytes/s) per second · drive temperature, °C (right axis, dashed) · t (s) since the first phase`}
          height={HEIGHT}
          overlay={overlay}
          chartId="thermal-run"
          exportAs={{
            fileName: ["run", String(run.id), "thermal"],
            title: `Run ${run.id}: throughput and temperature`,
            conditions,
            provenance,
            legend: [
              { label: `${direction} MB/s`, color: SERIES_COLORS[direction] },
              { label: `${TEMPERATURE} (°C)`, color: SERIES_COLORS.temperature, dashed: true },
            ],
            csv: () =>
              toCsv(
                ["t_s", `${direction}_mbps (MB/s)`, "temp_c (°C)", "phase"],
                points
                  .filter((p) => p.mbps !== null || p.temp_c !== null)
                  .map((p) => [
                    p.t,
                    p.mbps,
                    p.temp_c,
                    phases.find((ph) => p.t > ph.start && p.t <= ph.end + 1e-6)?.label ?? "",
                  ]),
              ),
          }}
        >
          <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 600, height: HEIGHT }}>
            <LineChart data={points} margin={MARGIN} style={{ fontFamily: CHART_FONT }}>
              <CartesianGrid stroke={GRID_STROKE} vertical={false} />
              {phases.map((ph) => (
                <ReferenceArea
                  key={ph.step.id}
                  x1={ph.start}
                  x2={ph.end}
                  fill={ph.kind === "heat" ? HEAT_FILL : COOL_FILL}
                  fillOpacity={0.8}
                  stroke="none"
                  ifOverflow="hidden"
                  label={{ value: ph.label, position: "insideTop", fontSize: 11, fill: "#4b5563" }}
                />
              ))}
              {thermalAxes("t", xAxis, yAxis, tAxis)}
              <Tooltip
                isAnimationActive={false}
                labelFormatter={(label) => `t = ${Number(label).toFixed(1)} s`}
                formatter={(value, name) => [
                  value === null || value === undefined
                    ? "no data"
                    : name === TEMPERATURE
                      ? `${Number(value).toFixed(1)} °C`
                      : `${formatMetric(Number(value))} MB/s`,
                  name,
                ]}
              />
              <Line
                dataKey="mbps"
                name={`${direction} MB/s`}
                type="linear"
                stroke={SERIES_COLORS[direction]}
                strokeWidth={LINE_WIDTH}
                dot={false}
                isAnimationActive={false}
                connectNulls={false}
              />
              {tAxis && (
                <Line
                  yAxisId="temp"
                  dataKey="temp_c"
                  name={TEMPERATURE}
                  type="linear"
                  stroke={SERIES_COLORS.temperature}
                  strokeWidth={LINE_WIDTH}
                  strokeDasharray="5 3"
                  dot={false}
                  isAnimationActive={false}
                  connectNulls={false}
                />
              )}
            </LineChart>
          </ResponsiveContainer>
        </ChartFrame>
        {rows.length > 0 && (
          <table className="thermal-findings" aria-label="Thermal findings">
            <thead>
              <tr>
                <th scope="col">Phase</th>
                <th scope="col">Findings</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.phase}>
                  <th scope="row">{r.phase}</th>
                  <td>
                    {r.figures.map((f) => (
                      <span key={f.label} className="thermal-findings__figure">
                        <span className="muted">{f.label}</span> <span className="num">{f.value}</span>
                      </span>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </section>
  );
}
