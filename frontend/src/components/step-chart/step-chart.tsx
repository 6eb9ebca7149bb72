import { useQueries } from "@tanstack/react-query";
import {
  CartesianGrid,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { runSeriesQuery } from "../../api/runs/queries";
import type { Step } from "../../api/types";
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
import { formatCompact } from "../run-chart/run-chart-utils";
import { axisTicks, chartLines, linesCsv, maxX, type StepChartSpec } from "./step-chart-utils";

const HEIGHT = 200;
const MARGIN = { top: 6, right: 16, bottom: 18, left: 8 };
const POSITION_TICKS = [0, 25, 50, 75, 100];

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
  const lines = loaded ? chartLines(data.filter((d) => d !== undefined)) : [];
  // The time axis ends where the job ended (a 15.03 s job: at 15.03 s, not at the next round
  // tick); the series' short last interval is folded into the one before by the api.
  const end = spec.x === "position" ? 100 : maxX(lines) || 1;
  const ticks = spec.x === "position" ? POSITION_TICKS : axisTicks(end);
  const overlay = failed
    ? `Could not load the series: ${errorMessage(failed.error)}`
    : !loaded
      ? "Loading…"
      : lines.length === 0
        ? "No samples were recorded for this step."
        : undefined;
  const legend = lines.map((l) => ({ label: l.name, color: SERIES_COLORS[l.direction] }));
  const downsampled = data.some((d) => d?.downsampled);

  return (
    <ChartFrame
      title={`${step.idx + 1}. ${step.label}`}
      subtitle={`${spec.yLabel} against ${spec.xLabel}${downsampled ? " · min/max per pixel" : ""}`}
      height={HEIGHT}
      overlay={overlay}
      chartId={`step-${step.id}`}
      exportAs={{
        fileName: ["run", String(runId), step.name],
        title: step.label,
        conditions,
        provenance,
        legend,
        csv: () => linesCsv(lines, spec.x),
      }}
    >
      <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 500, height: HEIGHT }}>
        <LineChart margin={MARGIN} style={{ fontFamily: CHART_FONT }}>
          <CartesianGrid stroke={GRID_STROKE} vertical={false} />
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
            width={56}
            tick={AXIS_TICK}
            stroke={AXIS_LINE}
            tickFormatter={spec.unit === "IOPS" ? formatCompact : formatMetric}
          />
          {lines.length === 1 && (
            <Tooltip
              isAnimationActive={false}
              labelFormatter={(label) =>
                spec.x === "position" ? `${formatMetric(Number(label))} % of span` : `t = ${String(label)} s`
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
        </LineChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
}
