import { useMemo, useState } from "react";
import { useCompareSeries } from "../../api/results/queries";
import type { DriveStyle } from "../../lib/house-style";
import {
  conditionsLine,
  legendOf,
  linesCsv,
  maxX,
  provenanceLine,
  toLines,
  type Line,
} from "../../lib/series-utils";
import { useWidth } from "../../lib/use-width";
import { ChartFrame } from "../chart-frame/chart-frame";
import { AXIS_LINE, CHART_FONT, GRID_STROKE } from "../chart-frame/chart-theme";
import "../series-lines/series-lines.css";
import {
  DEFAULT_LINEAR_TOP,
  defaultZoomStart,
  formatIops,
  SCATTER_MARGIN,
  SCATTER_MODES,
  scatterGeometry,
  type ScatterMode,
} from "./consistency-scatter-utils";

const PANEL_HEIGHT = 260;
const TICK = { fontSize: 11, fill: "#5d6b7b" };
/** Points per drive asked of the api: one per second of a 2000 s run, about. */
const POINTS = 2000;

interface PanelProps {
  title: string;
  lines: Line[];
  mode: ScatterMode;
  zoomStart: number;
  linearTop: number;
  empty: string;
}

function ScatterPanel({ title, lines, mode, zoomStart, linearTop, empty }: PanelProps) {
  const [ref, width] = useWidth<HTMLDivElement>(400);
  const height = PANEL_HEIGHT;
  const g = useMemo(
    () => scatterGeometry(lines, mode, width, height, { zoomStart, linearTop }),
    [lines, mode, width, height, zoomStart, linearTop],
  );
  const m = SCATTER_MARGIN;
  const bottom = height - m.bottom;
  const zoomNote = mode === "log" ? null : `from t = ${g.x.domain[0]} s`;
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
          <svg
            width={width}
            height={height}
            role="img"
            aria-label={`${title}: IOPS against time, ${mode} scale`}
            style={{ fontFamily: CHART_FONT, display: "block" }}
          >
            {g.y.ticks.map((v) => (
              <g key={`y${v}`}>
                <line x1={m.left} x2={width - m.right} y1={g.y(v)} y2={g.y(v)} stroke={GRID_STROKE} />
                <text x={m.left - 6} y={g.y(v) + 4} textAnchor="end" {...TICK}>
                  {formatIops(v)}
                </text>
              </g>
            ))}
            {g.x.ticks.map((v) => (
              <text key={`x${v}`} x={g.x(v)} y={bottom + 15} textAnchor="middle" {...TICK}>
                {Number(v.toFixed(2))}
              </text>
            ))}
            <line x1={m.left} x2={width - m.right} y1={bottom} y2={bottom} stroke={AXIS_LINE} />
            <line x1={m.left} x2={m.left} y1={m.top} y2={bottom} stroke={AXIS_LINE} />
            <text x={width - m.right} y={height - 4} textAnchor="end" {...TICK}>
              t (s){zoomNote ? `, ${zoomNote}` : ""}
            </text>
            <text
              transform={`translate(12 ${(m.top + bottom) / 2}) rotate(-90)`}
              textAnchor="middle"
              {...TICK}
            >
              IOPS{mode === "linear" ? "" : " (log)"}
            </text>
            {g.paths.map((p) => (
              <path
                key={p.key}
                d={p.d}
                stroke={p.color}
                strokeWidth={3}
                strokeLinecap="round"
                fill="none"
                opacity={0.85}
              />
            ))}
            {mode === "linear" && g.above > 0 && (
              <text x={width - m.right} y={m.top + 10} textAnchor="end" {...TICK}>
                {g.above} points above {formatIops(linearTop)} not shown
              </text>
            )}
          </svg>
        )}
      </div>
    </div>
  );
}

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
  const zoomStart = zoomInput === "" ? defaultZoomStart(duration) : Math.max(0, Number(zoomInput));
  const all = [...baseLines, ...opLines];
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
  const modeLabel = SCATTER_MODES.find((s) => s.value === mode)?.label ?? mode;
  const zoomText = mode === "log" ? "whole run" : `from t = ${zoomStart} s`;
  return (
    <ChartFrame
      title="Performance consistency"
      subtitle={`4K random write IOPS against time, ${modeLabel.toLowerCase()} (${zoomText})`}
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
        title: `Performance consistency: 4K random write IOPS (${modeLabel.toLowerCase()}, ${zoomText})`,
        conditions: conditionsLine(allDrives),
        provenance: provenanceLine(base.data?.drives.length ? base.data.drives : allDrives),
        legend,
        csv: () =>
          linesCsv(
            [
              ...baseLines.map((l) => ({ ...l, label: `${l.label} (OP 0%)` })),
              ...opLines.map((l) => ({ ...l, label: `${l.label} (OP 25%)` })),
            ],
            "t_s",
            "write_iops",
          ),
      }}
    >
      <div className="chart-panels">
        <ScatterPanel
          title="Default (no over-provisioning)"
          lines={baseLines}
          mode={mode}
          zoomStart={zoomStart}
          linearTop={top}
          empty="No finished consistency run without over-provisioning"
        />
        <ScatterPanel
          title="25% over-provisioning"
          lines={opLines}
          mode={mode}
          zoomStart={zoomStart}
          linearTop={top}
          empty="No finished consistency run with 25% over-provisioning"
        />
      </div>
    </ChartFrame>
  );
}
