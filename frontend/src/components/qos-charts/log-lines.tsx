import {
  CartesianGrid,
  Line as RechartsLine,
  LineChart,
  ReferenceLine,
  ResponsiveContainer,
  XAxis,
  YAxis,
} from "recharts";
import { niceTicks, tickFormat, type Line } from "../../lib/series-utils";
import { AXIS_LABEL, AXIS_LINE, AXIS_TICK, CHART_FONT, GRID_STROKE, LINE_WIDTH } from "../chart-frame/chart-theme";
import { decades } from "./qos-utils";
import "../series-lines/series-lines.css";

interface LogLinesProps {
  title?: string;
  lines: Line[];
  xLabel: string;
  yLabel: string;
  xLog?: boolean;
  yLog?: boolean;
  /** Fixed x ticks (powers of two for queue depths); decades on a log axis otherwise. */
  xTicks?: number[];
  xFormat?: (v: number) => string;
  yFormat?: (v: number) => string;
  /** Draw each line as steps (a histogram). */
  steps?: boolean;
  /** A horizontal mark (a latency target), labelled. */
  yMark?: { y: number; label: string };
  empty?: string;
}

const MARGIN = { top: 6, right: 14, bottom: 20, left: 4 };

function extent(values: number[], log: boolean): [number, number] {
  const v = values.filter((x) => Number.isFinite(x) && (!log || x > 0));
  if (v.length === 0) return [log ? 1 : 0, 10];
  return [Math.min(...v), Math.max(...v)];
}

/** A linear axis from 0 with round ticks covering the highest value. */
function linear(hi: number): { domain: [number, number]; ticks: number[] } {
  const ticks = niceTicks(0, hi > 0 ? hi : 1, 5);
  const step = ticks.length > 1 ? ticks[1]! - ticks[0]! : 1;
  while ((ticks[ticks.length - 1] ?? 0) < hi) ticks.push((ticks[ticks.length - 1] ?? 0) + step);
  return { domain: [0, ticks[ticks.length - 1] ?? 1], ticks };
}

/** A line chart whose axes may be logarithmic on both sides: exceedance curves (log-log),
 * latency histograms on log-spaced bins, latency against IOPS. House style as SeriesLines. */
export function LogLines({
  title,
  lines,
  xLabel,
  yLabel,
  xLog,
  yLog,
  xTicks,
  xFormat,
  yFormat,
  steps,
  yMark,
  empty,
}: LogLinesProps) {
  const xs = lines.flatMap((l) => l.points.map(([x]) => x));
  const ys = lines.flatMap((l) => l.points.map(([, y]) => y));
  if (yMark) ys.push(yMark.y);
  const [x0, x1] = extent(xs, Boolean(xLog));
  const [y0, y1] = extent(ys, Boolean(yLog));
  const xAxis = xTicks
    ? { domain: [xTicks[0] ?? x0, xTicks[xTicks.length - 1] ?? x1] as [number, number], ticks: xTicks }
    : xLog
      ? decades(x0, x1)
      : linear(x1);
  const yAxis = yLog ? decades(y0, y1) : linear(y1);
  return (
    <div className="chart-panel">
      {title && (
        <div className="chart-panel__title" data-export-text={title}>
          {title}
        </div>
      )}
      <div className="chart-panel__plot">
        {lines.length === 0 ? (
          <div className="chart-panel__empty" data-export-text={empty ?? "No data"}>
            {empty ?? "No data"}
          </div>
        ) : (
          <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 400, height: 220 }}>
            <LineChart margin={MARGIN} style={{ fontFamily: CHART_FONT }}>
              <CartesianGrid stroke={GRID_STROKE} vertical={false} />
              <XAxis
                dataKey="x"
                type="number"
                domain={xAxis.domain}
                ticks={xAxis.ticks}
                scale={xLog ? "log" : "linear"}
                allowDataOverflow
                tick={AXIS_TICK}
                stroke={AXIS_LINE}
                tickFormatter={xFormat ?? (xLog ? undefined : tickFormat(xAxis.ticks ?? []))}
                label={{ value: xLabel, position: "insideBottomRight", offset: -12, style: AXIS_LABEL }}
              />
              <YAxis
                width={62}
                type="number"
                tick={AXIS_TICK}
                stroke={AXIS_LINE}
                domain={yAxis.domain}
                ticks={yAxis.ticks}
                scale={yLog ? "log" : "linear"}
                allowDataOverflow
                tickFormatter={yFormat ?? (yLog ? undefined : tickFormat(yAxis.ticks ?? []))}
                label={{ value: yLabel, angle: -90, position: "insideLeft", offset: 8, style: AXIS_LABEL }}
              />
              {yMark && (
                <ReferenceLine
                  y={yMark.y}
                  stroke="#5d6b7b"
                  strokeDasharray="3 3"
                  ifOverflow="hidden"
                  label={{ value: yMark.label, position: "insideTopLeft", fill: "#5d6b7b", fontSize: 10, fontFamily: CHART_FONT }}
                />
              )}
              {lines.map((l) => (
                <RechartsLine
                  key={l.key}
                  data={l.points.map(([x, y]) => ({ x, y }))}
                  dataKey="y"
                  name={l.label}
                  type={steps ? "stepBefore" : "linear"}
                  stroke={l.color}
                  strokeWidth={LINE_WIDTH}
                  strokeDasharray={l.dashed ? "5 3" : undefined}
                  dot={!steps && l.points.length <= 40 ? { r: 2.5, fill: l.color, stroke: l.color } : false}
                  activeDot={false}
                  isAnimationActive={false}
                />
              ))}
            </LineChart>
          </ResponsiveContainer>
        )}
      </div>
    </div>
  );
}
