import {
  CartesianGrid,
  Line as RechartsLine,
  LineChart,
  ReferenceLine,
  ResponsiveContainer,
  usePlotArea,
  useXAxisScale,
  useYAxisScale,
  XAxis,
  YAxis,
} from "recharts";
import { tickFormat, yAxisWidth, zeroAxis } from "../../lib/axis-utils";
import { placeLabels, pointBox, type Box, type LabelRequest } from "../../lib/label-utils";
import type { Line } from "../../lib/series-utils";
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

/** A linear axis from 0 with round ticks covering the highest value, with room for a dot
 * on the highest one (never cut at the plot's edge). */
function linear(hi: number): { domain: [number, number]; ticks: number[] } {
  return zeroAxis((hi > 0 ? hi : 1) * 1.03, 5);
}

const LABEL_FONT = 10;
const labelWidth = (text: string) => text.length * LABEL_FONT * 0.62;

/**
 * The chart's own words, placed by Recharts' scales where they overlap no point and no other
 * label: the reference line's label (left or right, above or below the line) and each point's
 * own label (its queue depth). A point label with no free place is left out.
 */
function PlacedLabels({ lines, yMark }: { lines: Line[]; yMark?: { y: number; label: string } }) {
  const x = useXAxisScale();
  const y = useYAxisScale();
  const area = usePlotArea();
  if (!x || !y || !area) return null;
  const bounds: Box = { x0: area.x, y0: area.y, x1: area.x + area.width, y1: area.y + area.height };
  const dots: Box[] = [];
  const points: { key: string; text: string; px: number; py: number; color: string }[] = [];
  for (const l of lines) {
    l.points.forEach(([vx, vy], i) => {
      const px = Number(x(vx));
      const py = Number(y(vy));
      if (!Number.isFinite(px) || !Number.isFinite(py)) return;
      dots.push(pointBox(px, py));
      const text = l.pointLabels?.[i];
      if (text && !l.dashed) points.push({ key: `${l.key}:${i}`, text, px, py, color: l.color });
    });
  }
  const requests: LabelRequest[] = [];
  if (yMark) {
    const my = Number(y(yMark.y));
    const w = labelWidth(yMark.label);
    if (Number.isFinite(my)) {
      requests.push(
        { key: "mark", x: bounds.x0, y: my, width: w, height: LABEL_FONT + 2, places: ["ne", "se"] },
      );
      // The same label at the right end when the left one has points on it.
      requests.push({ key: "mark-right", x: bounds.x1, y: my, width: w, height: LABEL_FONT + 2, places: ["nw", "sw"] });
    }
  }
  for (const p of points) {
    requests.push({ key: p.key, x: p.px, y: p.py, width: labelWidth(p.text), height: LABEL_FONT + 2 });
  }
  // The reference label is placed first (once: the right one only if the left found no room).
  const first = placeLabels(requests.slice(0, 1), dots, bounds);
  const markPlaced = first.placed.length
    ? first
    : placeLabels(requests.slice(1, 2), dots, bounds);
  const rest = placeLabels(
    requests.slice(yMark ? 2 : 0),
    [...dots, ...markPlaced.placed.map((p) => p.box)],
    bounds,
  );
  const color = new Map(points.map((p) => [p.key, p.color]));
  const text = new Map(points.map((p) => [p.key, p.text]));
  return (
    <g className="log-lines__labels">
      {markPlaced.placed.map((p) => (
        <text key="mark" data-mark-label="" x={p.x} y={p.y} textAnchor={p.anchor} fontSize={LABEL_FONT}
          fontFamily={CHART_FONT} fill="#5d6b7b">
          {yMark?.label}
        </text>
      ))}
      {rest.placed.map((p) => (
        <text key={p.key} data-point-label="" x={p.x} y={p.y} textAnchor={p.anchor} fontSize={LABEL_FONT}
          fontFamily={CHART_FONT} fill={color.get(p.key)} stroke="#ffffff" strokeWidth={3} paintOrder="stroke">
          {text.get(p.key)}
        </text>
      ))}
    </g>
  );
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
  // Given ticks (powers of two on a log QD axis): the domain reaches a little past the first
  // and last so that their dots are drawn whole.
  const pad = xLog ? 1.15 : 0;
  // Only lines drawn with dots need the room (curves of many points end at the edge).
  const dotted = !steps && lines.some((l) => l.points.length <= 40);
  const edge = dotted ? 1.06 : 1;
  const xAxis = xTicks
    ? {
        domain: (xLog
          ? [(xTicks[0] ?? x0) / pad, (xTicks[xTicks.length - 1] ?? x1) * pad]
          : [xTicks[0] ?? x0, xTicks[xTicks.length - 1] ?? x1]) as [number, number],
        ticks: xTicks,
      }
    : xLog
      ? decades(x0 / edge, x1 * edge)
      : linear(x1);
  // Log axes on whole decades, one more where a point would sit on the edge (a dot there is
  // cut in half by the plot's clip).
  const yAxis = yLog ? decades(y0 / edge, y1 * edge) : linear(y1);
  const yTickText = yFormat ?? (yLog ? tickFormat(yAxis.ticks) : tickFormat(yAxis.ticks ?? []));
  const labelled = Boolean(yMark) || lines.some((l) => l.pointLabels?.length);
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
                width={yAxisWidth(yAxis.ticks.map(yTickText))}
                type="number"
                tick={AXIS_TICK}
                stroke={AXIS_LINE}
                domain={yAxis.domain}
                ticks={yAxis.ticks}
                scale={yLog ? "log" : "linear"}
                allowDataOverflow
                tickFormatter={yTickText}
                label={{ value: yLabel, angle: -90, position: "insideLeft", offset: 8, style: AXIS_LABEL }}
              />
              {yMark && (
                <ReferenceLine
                  y={yMark.y}
                  stroke="#5d6b7b"
                  strokeDasharray="3 3"
                  ifOverflow="hidden"
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
                  strokeWidth={l.width ?? LINE_WIDTH}
                  strokeDasharray={l.dashed ? "5 3" : undefined}
                  dot={!steps && l.points.length <= 40 ? { r: 2.5, fill: l.color, stroke: l.color } : false}
                  activeDot={false}
                  isAnimationActive={false}
                />
              ))}
              {labelled && <PlacedLabels lines={lines} yMark={yMark} />}
            </LineChart>
          </ResponsiveContainer>
        )}
      </div>
    </div>
  );
}
