import {
  CartesianGrid,
  ComposedChart,
  Line,
  LineChart,
  ReferenceArea,
  ReferenceLine,
  ResponsiveContainer,
  Scatter,
  ScatterChart,
  XAxis,
  YAxis,
} from "recharts";
import type { PtsSection } from "../../api/pts/types";
import { niceAxis, niceTicks, tickFormat, yAxisWidth, zeroAxis } from "../../lib/axis-utils";
import { toCsv } from "../../lib/export-utils";
import {
  convergencePoints,
  verdictText,
  windowGeometry,
} from "../../pages/pts-report/pts-report-utils";
import { ChartFrame } from "../chart-frame/chart-frame";
import { AXIS_LABEL, AXIS_LINE, AXIS_TICK, CHART_FONT, GRID_STROKE, LINE_WIDTH, SERIES_COLORS } from "../chart-frame/chart-theme";
import { decades } from "../qos-charts/qos-utils";
import { formatCompact } from "../run-chart/run-chart-utils";

const MARGIN = { top: 8, right: 18, bottom: 20, left: 8 };
const TRACK_COLOR = SERIES_COLORS.write;

interface Common {
  section: PtsSection;
  provenance: string;
  conditions: string;
  fileBase: string[];
}

/**
 * SNIA PTS steady-state convergence: the tracking variable of every round, the measurement
 * window shaded; grows round by round while the run goes on.
 */
export function ConvergenceChart({ section, provenance, conditions, fileBase }: Common) {
  const points = convergencePoints(section);
  const w = section.convergence.window;
  // The axis runs to the last round (and one more while the step runs), at least 5 rounds:
  // write saturation may run 1,440 rounds and most stop far earlier.
  const running = section.status === "running" || section.status === "pending";
  const maxRound = Math.max(points.length + (running ? 1 : 0), 5);
  const unit = section.track.unit;
  const yAxis = zeroAxis(Math.max(0, ...points.map((p) => p.value ?? 0)), 4);
  const roundTicks = niceTicks(1, maxRound, 6).filter((r) => Number.isInteger(r));
  return (
    <ChartFrame
      title={`Steady-state convergence: ${section.track.label}`}
      subtitle={`${unit} per round · ${verdictText(section)}`}
      height={260}
      chartId={`pts-convergence-${section.name}`}
      overlay={points.length === 0 ? "Waiting for the first round…" : undefined}
      exportAs={{
        fileName: [...fileBase, section.name, "convergence"],
        title: `Steady-state convergence: ${section.track.label} (${unit})`,
        conditions,
        provenance,
        csv: () => toCsv(["round", section.track.metric, "in_window"], points.map((p) => [p.round, p.value, p.inWindow ? 1 : 0])),
      }}
    >
      <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 600, height: 260 }}>
        <LineChart data={points} margin={MARGIN} style={{ fontFamily: CHART_FONT }}>
          <CartesianGrid stroke={GRID_STROKE} vertical={false} />
          {w && (
            <ReferenceArea x1={w[0] - 0.3} x2={w[1] + 0.3} fill={section.convergence.steady ? "#059669" : "#9aa5b1"} fillOpacity={0.12} stroke="none" />
          )}
          <XAxis
            dataKey="round"
            type="number"
            domain={[0.5, maxRound + 0.5]}
            ticks={roundTicks}
            tick={AXIS_TICK}
            stroke={AXIS_LINE}
            label={{ value: "round", position: "insideBottomRight", offset: -12, style: AXIS_LABEL }}
          />
          <YAxis width={yAxisWidth(yAxis.ticks.map(tickFormat(yAxis.ticks)))} tick={AXIS_TICK} stroke={AXIS_LINE} tickFormatter={tickFormat(yAxis.ticks)} domain={yAxis.domain} ticks={yAxis.ticks}
            label={{ value: unit, angle: -90, position: "insideLeft", offset: 8, style: AXIS_LABEL }} />
          <Line dataKey="value" name={section.track.label} stroke={TRACK_COLOR} strokeWidth={LINE_WIDTH} dot={points.length <= 60 ? { r: 3 } : false} isAnimationActive={false} />
        </LineChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
}

/**
 * The measurement window: the window's rounds, their average, the +-10% lines and +-20%
 * band around it, and the least-squares line through them.
 */
export function WindowChart({ section, provenance, conditions, fileBase }: Common) {
  const g = windowGeometry(section.values, section.convergence);
  const unit = section.track.unit;
  const data = g ? g.rounds.map((r) => ({ ...r, fit: g.fit[0]!.value + ((g.fit[1]!.value - g.fit[0]!.value) * (r.round - g.first)) / Math.max(1, g.last - g.first) })) : [];
  const yAxis = zeroAxis(g ? Math.max(g.band20[1], ...g.rounds.map((r) => r.value)) : 1, 4);
  return (
    <ChartFrame
      title={`Measurement window: ${section.track.label}`}
      subtitle={g ? `rounds ${g.first}-${g.last} · average ${formatCompact(g.average)} ${unit} · dashed ±10%, band ±20%, grey line least squares` : ""}
      height={260}
      chartId={`pts-window-${section.name}`}
      overlay={g ? undefined : "The window needs 5 rounds."}
      exportAs={{
        fileName: [...fileBase, section.name, "window"],
        title: `Measurement window: ${section.track.label} (${unit})`,
        conditions,
        provenance,
        legend: [
          { label: "round value", color: TRACK_COLOR },
          { label: "average", color: "#1b2530" },
          { label: "±10%", color: "#5d6b7b" },
          { label: "least squares", color: "#9aa5b1" },
        ],
        csv: () => toCsv(["round", section.track.metric, "average", "minus_10pct", "plus_10pct", "minus_20pct", "plus_20pct", "least_squares"],
          data.map((d) => [d.round, d.value, g!.average, g!.band10[0], g!.band10[1], g!.band20[0], g!.band20[1], d.fit])),
      }}
    >
      {g && (
        <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 600, height: 260 }}>
          <ComposedChart data={data} margin={MARGIN} style={{ fontFamily: CHART_FONT }}>
            <CartesianGrid stroke={GRID_STROKE} vertical={false} />
            <ReferenceArea y1={g.band20[0]} y2={g.band20[1]} fill="#059669" fillOpacity={0.08} stroke="none" ifOverflow="extendDomain" />
            <ReferenceLine y={g.band10[0]} stroke="#5d6b7b" strokeDasharray="5 3" />
            <ReferenceLine y={g.band10[1]} stroke="#5d6b7b" strokeDasharray="5 3" />
            <ReferenceLine y={g.average} stroke="#1b2530" strokeWidth={1.5} />
            <XAxis dataKey="round" type="number" domain={[g.first - 0.5, g.last + 0.5]} ticks={g.rounds.map((r) => r.round)} tick={AXIS_TICK} stroke={AXIS_LINE}
              label={{ value: "round", position: "insideBottomRight", offset: -12, style: AXIS_LABEL }} />
            <YAxis width={yAxisWidth(yAxis.ticks.map(tickFormat(yAxis.ticks)))} tick={AXIS_TICK} stroke={AXIS_LINE} tickFormatter={tickFormat(yAxis.ticks)} domain={yAxis.domain} ticks={yAxis.ticks}
              label={{ value: unit, angle: -90, position: "insideLeft", offset: 8, style: AXIS_LABEL }} />
            <Line dataKey="fit" stroke="#9aa5b1" strokeWidth={LINE_WIDTH} dot={false} isAnimationActive={false} />
            <Line dataKey="value" stroke={TRACK_COLOR} strokeWidth={LINE_WIDTH} dot={{ r: 3 }} isAnimationActive={false} />
          </ComposedChart>
        </ResponsiveContainer>
      )}
    </ChartFrame>
  );
}

export interface XYSeries {
  key: string;
  label: string;
  color: string;
  points: [number, number][];
  /** Drawn dashed, without dots (a fitted or derived line over the measured ones). */
  dashed?: boolean;
}

interface XYProps {
  title: string;
  subtitle: string;
  xLabel: string;
  yLabel: string;
  series: XYSeries[];
  chartId: string;
  xLog?: boolean;
  xTicks?: number[];
  xFormat?: (v: number) => string;
  scatter?: boolean;
  /** Shaded spans of x (wait states, recoveries), labelled at the top. */
  areas?: { key: string; x1: number; x2: number; label: string }[];
  height?: number;
  exportAs: Parameters<typeof ChartFrame>[0]["exportAs"];
}

/** Lines (or dots) of a few series against a shared x axis, in the house style. */
export function XYChart({ title, subtitle, xLabel, yLabel, series, chartId, xLog, xTicks, xFormat, scatter, areas = [], height = 280, exportAs }: XYProps) {
  const empty = series.every((s) => s.points.length === 0);
  // The shaded spans belong on the axis too: a wait state that begins before its first write
  // period's middle would be cut off (and recharts drops an area that leaves the domain).
  const xs = [...series.flatMap((s) => s.points.map((p) => p[0])), ...areas.flatMap((a) => [a.x1, a.x2])];
  // A linear axis from and to whole units (a clock that begins 0.866 s in reads as 0.866,
  // 5.866, ... otherwise); a log axis spans whole decades, a tick at each.
  const lo = xs.length ? Math.min(...xs) : 0;
  const hi = xs.length ? Math.max(...xs) : 1;
  const logAxis = xLog && !xTicks ? decades(lo, hi) : null;
  const domain: [number, number] = logAxis
    ? logAxis.domain
    : xLog || hi - lo < 2
      ? [lo, hi]
      : [Math.floor(lo), Math.ceil(hi)];
  // Linear axes by the one tick rule: round steps, one label format per axis.
  const ticks = xTicks ?? logAxis?.ticks ?? niceTicks(domain[0], domain[1], 6);
  const ys = series.flatMap((s) => s.points.map((p) => p[1]));
  const yAxis = niceAxis(Math.min(0, ...ys), Math.max(0, ...ys) || 1, 4);
  const yFormat = tickFormat(yAxis.ticks);
  const xFormatOf = xFormat ?? (logAxis ? formatCompact : tickFormat(ticks));
  const legend = series.map((s) => ({ label: s.label, color: s.color }));
  return (
    <ChartFrame title={title} subtitle={subtitle} height={height} chartId={chartId} overlay={empty ? "No data yet." : undefined}
      exportAs={exportAs ? { ...exportAs, legend: exportAs.legend ?? legend } : undefined}>
      <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 600, height }}>
        {scatter ? (
          <ScatterChart margin={MARGIN} style={{ fontFamily: CHART_FONT }}>
            <CartesianGrid stroke={GRID_STROKE} vertical={false} />
            {areas.map((a) => (
              <ReferenceArea key={a.key} x1={a.x1} x2={a.x2} fill="#9aa5b1" fillOpacity={0.14} stroke="none"
                label={{ value: a.label, position: "insideTop", fontSize: 11, fill: "#4a5663" }} />
            ))}
            <XAxis dataKey="x" type="number" domain={domain} ticks={ticks} tick={AXIS_TICK} stroke={AXIS_LINE} tickFormatter={xFormatOf}
              label={{ value: xLabel, position: "insideBottomRight", offset: -12, style: AXIS_LABEL }} />
            <YAxis dataKey="y" width={yAxisWidth(yAxis.ticks.map(yFormat))} tick={AXIS_TICK} stroke={AXIS_LINE} tickFormatter={yFormat} domain={yAxis.domain} ticks={yAxis.ticks}
              label={{ value: yLabel, angle: -90, position: "insideLeft", offset: 8, style: AXIS_LABEL }} />
            {series.map((s) => (
              <Scatter key={s.key} name={s.label} data={s.points.map(([x, y]) => ({ x, y }))} fill={s.color} isAnimationActive={false} />
            ))}
          </ScatterChart>
        ) : (
          <LineChart margin={MARGIN} style={{ fontFamily: CHART_FONT }}>
            <CartesianGrid stroke={GRID_STROKE} vertical={false} />
            {areas.map((a) => (
              <ReferenceArea key={a.key} x1={a.x1} x2={a.x2} fill="#9aa5b1" fillOpacity={0.14} stroke="none"
                label={{ value: a.label, position: "insideTop", fontSize: 11, fill: "#4a5663" }} />
            ))}
            <XAxis dataKey="x" type="number" domain={domain} scale={xLog ? "log" : "auto"} ticks={ticks} tick={AXIS_TICK} stroke={AXIS_LINE} tickFormatter={xFormatOf} allowDataOverflow
              label={{ value: xLabel, position: "insideBottomRight", offset: -12, style: AXIS_LABEL }} />
            <YAxis width={yAxisWidth(yAxis.ticks.map(yFormat))} tick={AXIS_TICK} stroke={AXIS_LINE} tickFormatter={yFormat} domain={yAxis.domain} ticks={yAxis.ticks}
              label={{ value: yLabel, angle: -90, position: "insideLeft", offset: 8, style: AXIS_LABEL }} />
            {series.map((s) => (
              <Line key={s.key} data={s.points.map(([x, y]) => ({ x, y }))} dataKey="y" name={s.label} stroke={s.color} strokeWidth={LINE_WIDTH} strokeDasharray={s.dashed ? "6 3" : undefined} dot={s.points.length <= 12 && !s.dashed ? { r: 3 } : false} isAnimationActive={false} />
            ))}
          </LineChart>
        )}
      </ResponsiveContainer>
    </ChartFrame>
  );
}
