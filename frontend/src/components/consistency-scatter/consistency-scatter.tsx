import { memo, useMemo, useRef, useState } from "react";
import {
  CartesianGrid,
  ComposedChart,
  Label,
  Tooltip,
  useXAxisScale,
  useYAxisScale,
  XAxis,
  YAxis,
} from "recharts";
import { useCompareSeries } from "../../api/results/queries";
import type { DriveStyle } from "../../lib/house-style";
import {
  conditionsLine,
  legendOf,
  linesCsv,
  maxX,
  provenanceLine,
  seriesSimulated,
  seriesWarnings,
  toLines,
  type Line,
} from "../../lib/series-utils";
import { formatAt, tickFormat, yAxisWidth } from "../../lib/axis-utils";
import { useWidth } from "../../lib/use-width";
import { ChartFrame } from "../chart-frame/chart-frame";
import { AXIS_LABEL, AXIS_LINE, AXIS_TICK, CHART_FONT, GRID_STROKE } from "../chart-frame/chart-theme";
import "../series-lines/series-lines.css";
import {
  DEFAULT_LINEAR_TOP,
  defaultZoomStart,
  SCATTER_MARGIN,
  SCATTER_MODES,
  scatterAxes,
  scatterPaths,
  type ScatterAxes,
  type ScatterMode,
} from "./consistency-scatter-utils";

const PANEL_HEIGHT = 260;
/** Points per drive asked of the api: one per second of a 2000 s run, about. */
const POINTS = 2000;
const MARGIN = { top: SCATTER_MARGIN.top, right: SCATTER_MARGIN.right, bottom: 14, left: 8 };

/**
 * The drives' points, drawn as one path per drive by Recharts' own scales (a Scatter of
 * 10,000 points would be 10,000 SVG nodes): the custom layer of the chart.
 */
function ScatterLayer({
  lines,
  axes,
  linearTop,
}: {
  lines: Line[];
  axes: ScatterAxes;
  linearTop: number;
}) {
  const x = useXAxisScale();
  const y = useYAxisScale();
  // The chart hands new scale functions as its state settles: the paths are drawn again only
  // when the scales map the axes' ends elsewhere.
  const where = x && y
    ? [x(axes.x.domain[0]), x(axes.x.domain[1]), y(axes.y.domain[0]), y(axes.y.domain[1])].join()
    : null;
  const scales = useRef({ x, y });
  scales.current = { x, y };
  const drawn = useMemo(() => {
    const { x: sx, y: sy } = scales.current;
    return where !== null && sx && sy
      ? scatterPaths(lines, axes, (t) => Number(sx(t)), (v) => Number(sy(v)), linearTop)
      : null;
  }, [lines, axes, linearTop, where]);
  if (!drawn) return null;
  return (
    <g className="consistency-scatter__points">
      {drawn.paths.map((p) => (
        <path
          key={p.key}
          d={p.d}
          stroke={p.color}
          strokeWidth={p.dot}
          strokeLinecap="round"
          fill="none"
          opacity={0.85}
        />
      ))}
    </g>
  );
}

/** Each drive's value at the time under the pointer (nearest point): the tooltip. */
function nearest(lines: Line[], t: number): { label: string; color: string; value: number }[] {
  return lines.flatMap((l) => {
    let best: [number, number] | null = null;
    for (const p of l.points) if (!best || Math.abs(p[0] - t) < Math.abs(best[0] - t)) best = p;
    return best && Math.abs(best[0] - t) <= 2 ? [{ label: l.label, color: l.color, value: best[1] }] : [];
  });
}

interface PanelProps {
  title: string;
  lines: Line[];
  /** Every line of the compared panels: one time and IOPS range for all of them. */
  shared: Line[];
  mode: ScatterMode;
  zoomStart: number;
  linearTop: number;
  empty: string;
}

/** One panel; drawn again only when its own props change (the two panels' series arrive
 * apart, and the first panel need not be drawn again when the second's arrive). */
const ScatterPanel = memo(function ScatterPanel({ title, lines, shared, mode, zoomStart, linearTop, empty }: PanelProps) {
  const [ref, width] = useWidth<HTMLDivElement>(400);
  const height = PANEL_HEIGHT;
  const axes = useMemo(
    () =>
      scatterAxes(lines, mode, width - SCATTER_MARGIN.left - SCATTER_MARGIN.right, { zoomStart, linearTop, shared }),
    [lines, shared, mode, width, zoomStart, linearTop],
  );
  const yFormat = tickFormat(axes.y.ticks);
  const xFormat = tickFormat(axes.x.ticks);
  const above = useMemo(
    () =>
      mode === "linear"
        ? lines.reduce(
            (n, l) => n + l.points.filter(([t, v]) => t >= axes.start && v > linearTop).length,
            0,
          )
        : 0,
    [lines, mode, axes.start, linearTop],
  );
  const zoomNote = mode === "log" ? "" : `, from t = ${formatAt(axes.start, axes.x.ticks)} s`;
  // Where the tooltip can stop: 100 times across the panel (the points are in the layer).
  const stops = useMemo(() => {
    const [a, b] = axes.x.domain;
    return Array.from({ length: 101 }, (_, i) => ({ t: a + ((b - a) * i) / 100 }));
  }, [axes.x.domain]);
  return (
    <div className="chart-panel">
      <div className="chart-panel__title" data-export-text={title}>
        {title}
      </div>
      <div className="chart-panel__plot" ref={ref}>
        {lines.length === 0 ? (
          <div className="chart-panel__empty" data-export-text={empty}>
            {empty}
          </div>
        ) : (
          <ComposedChart
            data={stops}
            width={width}
            height={height}
            margin={MARGIN}
            style={{ fontFamily: CHART_FONT }}
            role="img"
            aria-label={`${title}: IOPS against time, ${mode} scale`}
          >
            <CartesianGrid stroke={GRID_STROKE} vertical={false} />
            <XAxis
              type="number"
              dataKey="t"
              domain={axes.x.domain}
              ticks={axes.x.ticks}
              tickFormatter={xFormat}
              allowDataOverflow
              tick={AXIS_TICK}
              stroke={AXIS_LINE}
            >
              <Label value={`t (s)${zoomNote}`} position="insideBottomRight" offset={-10} style={AXIS_LABEL} />
            </XAxis>
            <YAxis
              type="number"
              scale={axes.y.scale}
              domain={axes.y.domain}
              ticks={axes.y.ticks}
              tickFormatter={yFormat}
              allowDataOverflow
              width={yAxisWidth(axes.y.ticks.map(yFormat))}
              tick={AXIS_TICK}
              stroke={AXIS_LINE}
            >
              <Label
                value={`IOPS${mode === "linear" ? "" : " (log)"}`}
                angle={-90}
                position="insideLeft"
                offset={8}
                style={{ ...AXIS_LABEL, textAnchor: "middle" }}
              />
            </YAxis>
            <Tooltip
              cursor={{ stroke: AXIS_LINE }}
              isAnimationActive={false}
              content={({ label, active }) =>
                active && typeof label === "number" ? (
                  <div className="chart-tooltip">
                    <div>t = {Math.round(label)} s</div>
                    {nearest(lines, label).map((n) => (
                      <div key={n.label} style={{ color: n.color }}>
                        {n.label}: {yFormat(n.value)} IOPS
                      </div>
                    ))}
                  </div>
                ) : null
              }
            />
            <ScatterLayer lines={lines} axes={axes} linearTop={linearTop} />
            {above > 0 && (
              <text
                x={width - SCATTER_MARGIN.right}
                y={SCATTER_MARGIN.top + 10}
                textAnchor="end"
                fontSize={11}
                fill="#5d6b7b"
              >
                {above} points above {yFormat(linearTop)} not shown
              </text>
            )}
          </ComposedChart>
        )}
      </div>
    </div>
  );
});

interface ConsistencyScatterProps {
  drives: number[];
  styles: Map<number, DriveStyle>;
  fileBase: string;
}

/** The drive under review last, so it is drawn on top. */
function underReviewLast(lines: Line[], styles: ConsistencyScatterProps["styles"]): Line[] {
  return [...lines].sort(
    (a, b) => Number(styles.get(a.driveId)?.underReview) - Number(styles.get(b.driveId)?.underReview),
  );
}

/** Write IOPS against time for every drive: default and 25% over-provisioning side by side. */
export function ConsistencyScatter({ drives, styles, fileBase }: ConsistencyScatterProps) {
  const [mode, setMode] = useState<ScatterMode>("log");
  const [zoomInput, setZoomInput] = useState<string>("");
  const [top, setTop] = useState<number>(DEFAULT_LINEAR_TOP);
  const base = useCompareSeries({ drives, plan: "consistency", opPercent: 0, points: POINTS });
  const op = useCompareSeries({ drives, plan: "consistency", opPercent: 25, points: POINTS });
  const baseLines = useMemo(() => underReviewLast(toLines(base.data, styles), styles), [base.data, styles]);
  const opLines = useMemo(() => underReviewLast(toLines(op.data, styles), styles), [op.data, styles]);
  const duration = Math.max(maxX(baseLines), maxX(opLines));
  const asked = zoomInput === "" ? NaN : Math.max(0, Number(zoomInput));
  // A start at or past the end of the runs is no zoom: the default start is taken instead.
  const zoomStart = Number.isFinite(asked) && asked < duration ? asked : defaultZoomStart(duration);
  const all = useMemo(() => [...baseLines, ...opLines], [baseLines, opLines]);
  // Both panels on one scale; a panel without a run is left out, and said so in a line.
  const panels = [
    {
      key: "op0",
      title: "Default (no over-provisioning)",
      lines: baseLines,
      empty: "No finished consistency run without over-provisioning",
    },
    {
      key: "op25",
      title: "25% over-provisioning",
      lines: opLines,
      empty: "No finished consistency run with 25% over-provisioning",
    },
  ].filter((p, _i, list) => p.lines.length > 0 || list.every((q) => q.lines.length === 0));
  const leftOut = all.length > 0
    ? [
        ...(baseLines.length === 0 ? ["No drive has a finished consistency run without over-provisioning: that panel is left out."] : []),
        ...(opLines.length === 0 ? ["No drive has a finished consistency run with 25% over-provisioning: that panel is left out."] : []),
      ]
    : [];
  const legend = legendOf(
    baseLines.length ? baseLines : opLines,
    styles,
  );
  const allDrives = [...(base.data?.drives ?? []), ...(op.data?.drives ?? [])];
  const loading = base.isPending || op.isPending;
  const error = base.error ?? op.error;
  const overlay = drives.length === 0
    ? "Choose drives to compare."
    : loading
      ? "Loading consistency runs…"
      : error
        ? `Could not load: ${error.message}`
        : all.length === 0
          ? "None of these drives has a finished consistency run."
          : undefined;
  const zoomText = mode === "log" ? "whole run" : `from t = ${formatAt(zoomStart, [0, 1])} s`;
  const scaleText = mode === "linear" ? "linear scale" : "log scale";
  const title = `Performance consistency: 4K random write IOPS (${scaleText}, ${zoomText})`;
  const warnings = [
    ...seriesWarnings(base.data, styles).map((w) => `No over-provisioning: ${w}`),
    ...seriesWarnings(op.data, styles).map((w) => `25% over-provisioning: ${w}`),
    ...leftOut,
  ];
  const conditions = conditionsLine(allDrives);
  const provenance = provenanceLine(base.data?.drives.length ? base.data.drives : allDrives);
  const simulated = seriesSimulated(allDrives);
  return (
    <ChartFrame
      title="Performance consistency"
      subtitle={`4K random write IOPS against time, ${scaleText}, ${zoomText}`}
      height={PANEL_HEIGHT + 18}
      overlay={overlay}
      chartId="consistency"
      controls={
        <>
          <label className="chart-control">
            Scale{" "}
            <select
              aria-label="Scale"
              value={mode}
              onChange={(e) => setMode(e.target.value as ScatterMode)}
            >
              {SCATTER_MODES.map((s) => (
                <option key={s.value} value={s.value}>
                  {s.label}
                </option>
              ))}
            </select>
          </label>
          {mode !== "log" && (
            <label className="chart-control">
              Zoom from (s){" "}
              <input
                type="number"
                min={0}
                step={1}
                value={zoomInput === "" ? zoomStart : zoomInput}
                onChange={(e) => setZoomInput(e.target.value)}
                style={{ width: "5.5em" }}
              />
            </label>
          )}
          {mode === "linear" && (
            <label className="chart-control">
              Top (IOPS){" "}
              <input
                type="number"
                min={1}
                step={1000}
                value={top}
                onChange={(e) => setTop(Math.max(1, Number(e.target.value) || DEFAULT_LINEAR_TOP))}
                style={{ width: "6.5em" }}
              />
            </label>
          )}
        </>
      }
      exportAs={{
        fileName: [fileBase, "consistency", mode],
        title,
        conditions,
        provenance,
        simulated,
        warnings,
        legend,
        csv: () =>
          linesCsv(
            [
              ...baseLines.map((l) => ({ ...l, label: `${l.label} (OP 0%)` })),
              ...opLines.map((l) => ({ ...l, label: `${l.label} (OP 25%)` })),
            ],
            "t_s",
            "write_iops",
            {
              title,
              metric: "consistency: write IOPS per second (IOPS)",
              conditions,
              simulated,
              warnings,
              provenance,
            },
          ),
      }}
    >
      <div className="chart-panels">
        {panels.map((p) => (
          <ScatterPanel
            key={p.key}
            title={p.title}
            lines={p.lines}
            shared={all}
            mode={mode}
            zoomStart={zoomStart}
            linearTop={top}
            empty={p.empty}
          />
        ))}
      </div>
    </ChartFrame>
  );
}
