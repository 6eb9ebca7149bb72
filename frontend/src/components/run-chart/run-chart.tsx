import { useMemo } from "react";
import {
  CartesianGrid,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import type { Sample } from "../../api/types";
import { tickFormat, yAxisWidth, zeroAxis } from "../../lib/axis-utils";
import { toCsv } from "../../lib/export-utils";
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
import "./run-chart.css";
import {
  activeDirections,
  hasTemperature,
  temperatureAxis,
  timeAxis,
  toChartPoints,
  type ChartPoint,
} from "./run-chart-utils";

const PLOT_HEIGHT = 240;
const MARGIN = { top: 6, right: 16, bottom: 18, left: 8 };

interface SeriesDef {
  key: keyof Omit<ChartPoint, "t" | "temp_c">;
  name: string;
  color: string;
  direction: "read" | "write";
}

const MBPS: SeriesDef[] = [
  { key: "read_mbps", name: "Read", color: SERIES_COLORS.read, direction: "read" },
  { key: "write_mbps", name: "Write", color: SERIES_COLORS.write, direction: "write" },
];
const IOPS: SeriesDef[] = [
  { key: "read_iops", name: "Read", color: SERIES_COLORS.read, direction: "read" },
  { key: "write_iops", name: "Write", color: SERIES_COLORS.write, direction: "write" },
];

interface PanelProps {
  points: ChartPoint[];
  series: SeriesDef[];
  yLabel: string;
  unit: string;
  xTicks: number[];
  xEnd: number;
  /** The drive's temperature on a right-hand °C axis (the throughput panel, with a sensor). */
  temperature?: boolean;
}

const TEMPERATURE_NAME = "Temperature";

function Panel({ points, series, yLabel, unit, xTicks, xEnd, temperature = false }: PanelProps) {
  // The one tick rule: 0 to a round top at round steps, one label format for the axis.
  const yAxis = useMemo(() => {
    let top = 0;
    for (const p of points) for (const s of series) top = Math.max(top, p[s.key] ?? 0);
    return zeroAxis(top, 4);
  }, [points, series]);
  const yFormat = tickFormat(yAxis.ticks);
  const tAxis = useMemo(
    () => (temperature ? temperatureAxis(points) : null),
    [points, temperature],
  );
  const tFormat = tickFormat(tAxis?.ticks ?? [0]);
  return (
    <ResponsiveContainer
      width="100%"
      height="100%"
      initialDimension={{ width: 600, height: PLOT_HEIGHT }}
    >
      <LineChart
        data={points}
        margin={tAxis ? { ...MARGIN, right: 4 } : MARGIN}
        syncId="run-step"
        style={{ fontFamily: CHART_FONT }}
      >
        <CartesianGrid stroke={GRID_STROKE} vertical={false} />
        <XAxis
          dataKey="t"
          type="number"
          domain={[0, xEnd]}
          ticks={xTicks}
          allowDataOverflow
          tick={AXIS_TICK}
          stroke={AXIS_LINE}
          label={{ value: "t (s)", position: "insideBottomRight", offset: -8, style: AXIS_LABEL }}
        />
        <YAxis
          width={yAxisWidth(yAxis.ticks.map(yFormat))}
          tick={AXIS_TICK}
          stroke={AXIS_LINE}
          domain={yAxis.domain}
          ticks={yAxis.ticks}
          allowDataOverflow
          tickFormatter={yFormat}
          label={{
            value: yLabel,
            angle: -90,
            position: "insideLeft",
            offset: 8,
            style: AXIS_LABEL,
          }}
        />
        {tAxis && (
          <YAxis
            yAxisId="temp"
            orientation="right"
            width={yAxisWidth(tAxis.ticks.map(tFormat))}
            tick={AXIS_TICK}
            stroke={AXIS_LINE}
            domain={tAxis.domain}
            ticks={tAxis.ticks}
            allowDataOverflow
            tickFormatter={tFormat}
            label={{
              value: "°C",
              angle: 90,
              position: "insideRight",
              offset: 8,
              style: AXIS_LABEL,
            }}
          />
        )}
        <Tooltip
          isAnimationActive={false}
          labelFormatter={(label) => `t = ${String(label)} s`}
          formatter={(value, name) => [
            value === null || value === undefined
              ? name === TEMPERATURE_NAME
                ? "no reading"
                : "no data"
              : name === TEMPERATURE_NAME
                ? `${Number(value).toFixed(1)} °C`
                : `${formatMetric(Number(value))} ${unit}`,
            name,
          ]}
        />
        {series.map((s) => (
          <Line
            key={s.key}
            dataKey={s.key}
            name={s.name}
            type="linear"
            stroke={s.color}
            strokeWidth={LINE_WIDTH}
            dot={false}
            activeDot={{ r: 3 }}
            isAnimationActive={false}
            connectNulls={false}
          />
        ))}
        {tAxis && (
          <Line
            yAxisId="temp"
            dataKey="temp_c"
            name={TEMPERATURE_NAME}
            type="linear"
            stroke={SERIES_COLORS.temperature}
            strokeWidth={LINE_WIDTH}
            strokeDasharray="5 3"
            dot={false}
            activeDot={{ r: 3 }}
            isAnimationActive={false}
            connectNulls={false}
          />
        )}
      </LineChart>
    </ResponsiveContainer>
  );
}

interface RunChartProps {
  /** The step's samples, merged and ordered (stepSamples). */
  samples: Sample[];
  /** Download names and the captions written into exported charts. */
  exportAs?: { fileName: string[]; title: string; conditions?: string; provenance?: string };
  /** Why there is nothing to draw, when `samples` is empty. */
  emptyText: string;
  loading: boolean;
  /** The step has ended: the time axis ends with it. */
  ended?: boolean;
}

/** Live throughput and IOPS of one step against time since the step started. */
export function RunChart({ samples, emptyText, loading, exportAs, ended = false }: RunChartProps) {
  const points = useMemo(() => toChartPoints(samples), [samples]);
  const directions = useMemo(() => activeDirections(points), [points]);
  const axis = useMemo(
    () => timeAxis(points[points.length - 1]?.t ?? 0, ended),
    [points, ended],
  );
  const pick = (defs: SeriesDef[]) => defs.filter((d) => directions[d.direction]);
  // The drive's temperature, where it has a sensor the worker read: on the throughput chart's
  // right axis, and in its CSV.
  const withTemp = useMemo(() => hasTemperature(points), [points]);
  const overlay = points.length === 0 ? (loading ? "Loading samples…" : emptyText) : undefined;
  const exportSpec = (defs: SeriesDef[], kind: string, unit: string, temp = false) =>
    exportAs && {
      ...exportAs,
      fileName: [...exportAs.fileName, kind],
      title: `${exportAs.title}: ${kind}`,
      legend: [
        ...pick(defs).map((d) => ({ label: d.name, color: d.color })),
        ...(temp
          ? [{ label: `${TEMPERATURE_NAME} (°C)`, color: SERIES_COLORS.temperature, dashed: true }]
          : []),
      ],
      csv: () =>
        toCsv(
          [
            "t_s",
            ...pick(defs).map((d) => `${d.key} (${unit})`),
            ...(temp ? ["temp_c (°C)"] : []),
          ],
          points.map((p) => [
            p.t,
            ...pick(defs).map((d) => p[d.key]),
            ...(temp ? [p.temp_c] : []),
          ]),
        ),
    };

  return (
    <div className="run-chart">
      <ChartFrame
        title="Throughput"
        subtitle={
          withTemp
            ? "MB/s (10⁶ bytes/s) per second · drive temperature, °C (right axis, dashed)"
            : points.length > 0
              ? "MB/s (10⁶ bytes/s) per second · temperature: no sensor"
              : "MB/s (10⁶ bytes/s) per second"
        }
        height={PLOT_HEIGHT}
        overlay={overlay}
        chartId="live-throughput"
        exportAs={exportSpec(MBPS, "throughput", "MB/s", withTemp)}
      >
        <Panel
          temperature={withTemp}
          points={points}
          series={pick(MBPS)}
          yLabel="MB/s"
          unit="MB/s"
          xTicks={axis.ticks}
          xEnd={axis.end}
        />
      </ChartFrame>
      <ChartFrame
        title="IOPS"
        subtitle="I/O operations per second"
        height={PLOT_HEIGHT}
        overlay={overlay}
        chartId="live-iops"
        exportAs={exportSpec(IOPS, "iops", "IOPS")}
      >
        <Panel
          points={points}
          series={pick(IOPS)}
          yLabel="IOPS"
          unit="IOPS"
          xTicks={axis.ticks}
          xEnd={axis.end}
        />
      </ChartFrame>
    </div>
  );
}
