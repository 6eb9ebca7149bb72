import {
  CartesianGrid,
  Line as RechartsLine,
  LineChart,
  ReferenceArea,
  ReferenceLine,
  ResponsiveContainer,
  usePlotArea,
  useXAxisScale,
  XAxis,
  YAxis,
} from "recharts";
import { textWidth } from "../../lib/export-utils";
import { niceTicks, tickFormat, yAxisWidth, zeroAxis } from "../../lib/axis-utils";
import type { Line } from "../../lib/series-utils";
import { markerLanes } from "./series-lines-utils";
import { AXIS_LABEL, AXIS_LINE, AXIS_TICK, CHART_FONT, GRID_STROKE, LINE_WIDTH } from "../chart-frame/chart-theme";
import "./series-lines.css";

export interface Area {
  key: string;
  x1: number;
  x2: number;
  color: string;
}

/** A vertical mark at x (a step-down), labelled, in its drive's colour. */
export interface Marker {
  key: string;
  x: number;
  color: string;
  label: string;
}

interface SeriesLinesProps {
  title: string;
  lines: Line[];
  xLabel: string;
  yLabel: string;
  xDomain: [number, number];
  xTicks?: number[];
  xLog?: boolean;
  xFormat?: (v: number) => string;
  /** Shaded x ranges (stalls), in their drive's colour. */
  areas?: Area[];
  /** Vertical marks (step-downs), in their drive's colour. */
  markers?: Marker[];
  /** Shown instead of the plot when there is nothing to draw. */
  empty?: string;
  /** The top of the value axis shared by panels that are compared (small multiples). */
  yTop?: number;
}

const MARGIN = { top: 6, right: 14, bottom: 20, left: 4 };
const MARKER_FONT = 10;
const MARKER_ROW = 12;

/** The marks' labels at the top of the plot, by Recharts' x scale, on as many rows as keep
 * them from overlapping (two step-downs a few percent apart). */
export function MarkerLabels({ markers }: { markers: Marker[] }) {
  const x = useXAxisScale();
  const area = usePlotArea();
  if (!x || !area) return null;
  const at = new Map(markers.map((m) => [m.key, m]));
  const placed = markerLanes(
    markers.map((m) => ({ key: m.key, px: Number(x(m.x)), width: textWidth(m.label, MARKER_FONT) })),
    area.x,
    area.x + area.width,
  );
  return (
    <g className="series-lines__marker-labels">
      {placed.map((p) => {
        const m = at.get(p.key)!;
        return (
          <text
            key={p.key}
            x={p.x}
            y={area.y + MARKER_ROW * (p.lane + 1) - 2}
            textAnchor={p.anchor}
            fontSize={MARKER_FONT}
            fontFamily={CHART_FONT}
            fill={m.color}
            stroke="#ffffff"
            strokeWidth={3}
            paintOrder="stroke"
          >
            {m.label}
          </text>
        );
      })}
    </g>
  );
}

/** One panel of a line chart of several drives (HD Tach passes, transfer curves, stalls). */
export function SeriesLines({
  title,
  lines,
  xLabel,
  yLabel,
  xDomain,
  xTicks,
  xLog,
  xFormat,
  areas = [],
  markers = [],
  empty,
  yTop,
}: SeriesLinesProps) {
  // One number format for every tick of the y axis: ticks of our own, round, covering the
  // highest point.
  let top = 0;
  for (const l of lines) for (const [, y] of l.points) if (y > top) top = y;
  if (yTop !== undefined && yTop > top) top = yTop;
  const yTicks = zeroAxis(top, 5).ticks;
  const yFormat = tickFormat(yTicks);
  // Wide enough that the axis title never touches a tick label ("MB/s" beside "1,000").
  const yWidth = yAxisWidth(yTicks.map(yFormat));
  // The x axis likewise, unless the chart gives its ticks (positions, transfer sizes): round
  // ticks inside the domain, never the last point's own time (0, 3, 6, 9, 10.181).
  const ownX = xTicks ?? (xLog ? undefined : niceTicks(xDomain[0], xDomain[1], 5));
  const xTickFormat = xFormat ?? (ownX ? tickFormat(ownX) : undefined);
  // The drive under review is drawn last, on top: lines keep their order otherwise.
  return (
    <div className="chart-panel">
      <div className="chart-panel__title" data-export-text={title}>
        {title}
      </div>
      <div className="chart-panel__plot">
        {lines.length === 0 ? (
          <div className="chart-panel__empty" data-export-text={empty ?? "No data"}>
            {empty ?? "No data"}
          </div>
        ) : (
          <ResponsiveContainer
            width="100%"
            height="100%"
            initialDimension={{ width: 400, height: 220 }}
          >
            <LineChart margin={MARGIN} style={{ fontFamily: CHART_FONT }}>
              <CartesianGrid stroke={GRID_STROKE} vertical={false} />
              <XAxis
                dataKey="x"
                type="number"
                domain={xDomain}
                ticks={ownX}
                scale={xLog ? "log" : "auto"}
                allowDataOverflow
                tick={AXIS_TICK}
                stroke={AXIS_LINE}
                tickFormatter={xTickFormat}
                label={{ value: xLabel, position: "insideBottomRight", offset: -12, style: AXIS_LABEL }}
              />
              <YAxis
                width={yWidth}
                tick={AXIS_TICK}
                stroke={AXIS_LINE}
                domain={[0, yTicks[yTicks.length - 1] ?? 1]}
                ticks={yTicks}
                tickFormatter={yFormat}
                label={{ value: yLabel, angle: -90, position: "insideLeft", offset: 8, style: AXIS_LABEL }}
              />
              {areas.map((a) => (
                <ReferenceArea
                  key={a.key}
                  x1={a.x1}
                  x2={a.x2}
                  fill={a.color}
                  fillOpacity={0.18}
                  stroke="none"
                  ifOverflow="hidden"
                />
              ))}
              {markers.map((m) => (
                <ReferenceLine
                  key={m.key}
                  x={m.x}
                  stroke={m.color}
                  strokeDasharray="3 3"
                  strokeWidth={1}
                  ifOverflow="hidden"
                />
              ))}
              {lines.map((l) => (
                <RechartsLine
                  key={l.key}
                  data={l.points.map(([x, y]) => ({ x, y }))}
                  dataKey="y"
                  name={l.label}
                  type="linear"
                  stroke={l.color}
                  strokeWidth={l.width ?? LINE_WIDTH}
                  strokeDasharray={l.dashed ? "5 3" : undefined}
                  dot={false}
                  activeDot={false}
                  isAnimationActive={false}
                />
              ))}
              {markers.length > 0 && <MarkerLabels markers={markers} />}
            </LineChart>
          </ResponsiveContainer>
        )}
      </div>
    </div>
  );
}
