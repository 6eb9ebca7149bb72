import { useQueries } from "@tanstack/react-query";
import {
  CartesianGrid,
  Line,
  LineChart,
  ReferenceArea,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { runSeriesQuery } from "../../api/runs/queries";
import type { Step } from "../../api/types";
import { tickFormat, yAxisWidth, zeroAxis } from "../../lib/axis-utils";
import { formatMetric } from "../../lib/format-utils";
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
import { MarkerLabels, type Marker } from "../series-lines/series-lines";
import { axisTicks, chartLines, linesCsv, maxX, stepDownLines, type StepChartSpec } from "./step-chart-utils";

const HEIGHT = 200;
const MARGIN = { top: 6, right: 16, bottom: 18, left: 8 };
const POSITION_TICKS = [0, 25, 50, 75, 100];
const STALL_COLOR = "#dc2626";
const MARK_COLOR = "#1b2530";

const mbps = (v: number) => (v >= 100 ? v.toFixed(0) : String(Number(v.toFixed(1))));

/** The step-downs drivelab found in an HD Tach pass, as marks: "↓ 400→200 MB/s". */
function stepDownMarks(step: Step, spec: StepChartSpec): Marker[] {
  if (spec.x !== "position") return [];
  return (step.findings?.hdtach?.step_downs ?? []).map((sd, i) => ({
    key: `sd-${i}`,
    x: spec.gbPerPct ? sd.at_gb : sd.at_pct,
    color: MARK_COLOR,
    label: `↓ ${mbps(sd.from_mbps)}→${mbps(sd.to_mbps)} MB/s`,
  }));
}

/** "3 stalls shaded, longest 0.4 s" */
function stallWords(step: Step): string {
  const f = step.findings?.stalls;
  if (!f) return "";
  return `${f.count} stall${f.count === 1 ? "" : "s"} shaded, longest ${Number(f.longest_s.toFixed(2))} s`;
}

interface StepChartProps {
  runId: number;
  step: Step;
  spec: StepChartSpec;
  /** Test conditions and provenance written into the exported chart. */
  conditions: string;
  provenance: string;
}

/** A finished step's chart from its downsampled series (GET /api/runs/{id}/series). */
export function StepChart({ runId, step, spec, conditions, provenance }: StepChartProps) {
  const results = useQueries({
    queries: spec.metrics.map((m) => runSeriesQuery(runId, step.id, m, spec.x)),
  });
  const failed = results.find((r) => r.isError);
  const loaded = results.every((r) => r.data !== undefined);
  const data = results.map((r) => r.data);
  // About 650 points per line: cheap enough to build on every render.
  const gb = spec.gbPerPct;
  const lines = loaded ? chartLines(data.filter((d) => d !== undefined), gb ?? 1) : [];
  // The time axis ends where the job ended (a 15.03 s job: at 15.03 s, not at the next round
  // tick); the series' short last interval is folded into the one before by the api.
  const end = gb ? 100 * gb : spec.x === "position" ? 100 : maxX(lines) || 1;
  const ticks = gb
    ? POSITION_TICKS.map((t) => Number((t * gb).toPrecision(3)))
    : spec.x === "position"
      ? POSITION_TICKS
      : axisTicks(end);
  // The one tick rule on the value axis too: 0 to a round top at round steps.
  let top = 0;
  for (const l of lines) for (const p of l.points) top = Math.max(top, p.y ?? 0);
  const yAxis = zeroAxis(top, 4);
  const yFormat = tickFormat(yAxis.ticks);
  const overlay = failed
    ? `Could not load the series: ${errorMessage(failed.error)}`
    : !loaded
      ? "Loading…"
      : lines.length === 0
        ? "No samples were recorded for this step."
        : undefined;
  // What drivelab found in the step, marked as on Compare: HD Tach step-downs as labelled
  // lines at their position, write-hitching stalls shaded over their time.
  const markers = stepDownMarks(step, spec);
  const stalls = spec.x === "time" ? (step.findings?.stalls?.stalls ?? []) : [];
  const legend = [
    ...lines.map((l) => ({ label: l.name, color: SERIES_COLORS[l.direction] })),
    ...(stalls.length
      ? [{ label: stallWords(step), color: STALL_COLOR, opacity: 0.3 }]
      : []),
    ...(markers.length ? [{ label: `steps down at ${markers.map((m) => (gb ? `${Number(m.x.toPrecision(3))} GB` : `${Number(m.x.toFixed(1))}%`)).join(", ")}`, color: MARK_COLOR, dashed: true }] : []),
  ];
  const downsampled = data.some((d) => d?.downsampled);
  // Each step-down in words with whether heat explains it (backend.analysis.thermal).
  const stepDowns = stepDownLines(step);

  return (
    <ChartFrame
      title={`${step.idx + 1}. ${step.label}`}
      subtitle={`${spec.yLabel} against ${spec.xLabel}${downsampled ? " · min/max per pixel" : ""}${
        stalls.length ? " · stalls shaded" : ""}${markers.length ? " · step-downs marked" : ""}`}
      height={HEIGHT}
      overlay={overlay}
      note={stepDowns.length ? stepDowns.join("; ") : undefined}
      chartId={`step-${step.id}`}
      exportAs={{
        fileName: ["run", String(runId), step.name],
        title: step.label,
        conditions,
        provenance,
        legend,
        csv: () => linesCsv(lines, spec.x, Boolean(gb)),
      }}
    >
      <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 500, height: HEIGHT }}>
        <LineChart margin={MARGIN} style={{ fontFamily: CHART_FONT }}>
          <CartesianGrid stroke={GRID_STROKE} vertical={false} />
          {stalls.map((st, i) => (
            <ReferenceArea
              key={`stall-${i}`}
              x1={st.start_s}
              x2={st.start_s + st.duration_s}
              fill={STALL_COLOR}
              fillOpacity={0.3}
              stroke="none"
              ifOverflow="hidden"
            />
          ))}
          {markers.map((m) => (
            <ReferenceLine key={m.key} x={m.x} stroke={m.color} strokeDasharray="3 3" ifOverflow="hidden" />
          ))}
          <XAxis
            dataKey="x"
            type="number"
            domain={[0, end]}
            ticks={ticks}
            allowDataOverflow
            tick={AXIS_TICK}
            stroke={AXIS_LINE}
            label={{ value: spec.xLabel, position: "insideBottomRight", offset: -8, style: AXIS_LABEL }}
          />
          <YAxis
            width={yAxisWidth(yAxis.ticks.map(yFormat), false)}
            tick={AXIS_TICK}
            stroke={AXIS_LINE}
            domain={yAxis.domain}
            ticks={yAxis.ticks}
            allowDataOverflow
            tickFormatter={yFormat}
          />
          {lines.length === 1 && (
            <Tooltip
              isAnimationActive={false}
              labelFormatter={(label) =>
                gb
                  ? `${formatMetric(Number(label))} GB written`
                  : spec.x === "position"
                    ? `${formatMetric(Number(label))} % of span`
                    : `t = ${String(label)} s`
              }
              formatter={(value, name) => [`${formatMetric(Number(value))} ${spec.unit}`, name]}
            />
          )}
          {lines.map((l) => (
            <Line
              key={l.metric}
              data={l.points}
              dataKey="y"
              name={l.name}
              type="linear"
              stroke={SERIES_COLORS[l.direction]}
              strokeWidth={LINE_WIDTH}
              dot={false}
              activeDot={{ r: 3 }}
              isAnimationActive={false}
            />
          ))}
          {markers.length > 0 && <MarkerLabels markers={markers} />}
        </LineChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
}
