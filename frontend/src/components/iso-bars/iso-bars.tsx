import { formatMetric } from "../../lib/format-utils";
import { useWidth } from "../../lib/use-width";
import { ChartFrame, type ChartExportSpec } from "../chart-frame/chart-frame";
import { CHART_FONT } from "../chart-frame/chart-theme";
import { isoLayout } from "./iso-bars-utils";

interface Props {
  title: string;
  subtitle: string;
  cells: (number | null)[][];
  rowLabels: string[];
  colLabels: string[];
  /** One colour per column. */
  colors: string[];
  height?: number;
  exportAs: ChartExportSpec;
}

/** Shade a #rrggbb colour towards black by `amount` (0..1): the bars' side faces. */
function shade(hex: string, amount: number): string {
  const n = parseInt(hex.slice(1), 16);
  const f = (v: number) => Math.round(v * (1 - amount));
  const r = f((n >> 16) & 255);
  const g = f((n >> 8) & 255);
  const b = f(n & 255);
  return `#${((1 << 24) | (r << 16) | (g << 8) | b).toString(16).slice(1)}`;
}

function Plot({ cells, rowLabels, colLabels, colors, height }: Required<Omit<Props, "title" | "subtitle" | "exportAs">>) {
  const [ref, width] = useWidth<HTMLDivElement>(600);
  const l = isoLayout(cells, rowLabels, colLabels, width, height);
  return (
    <div ref={ref} style={{ width: "100%", height }}>
      <svg width={l.width} height={l.height} role="img" style={{ fontFamily: CHART_FONT, display: "block" }}>
        {l.floor.map((f, i) => (
          <line key={i} x1={f.x1} y1={f.y1} x2={f.x2} y2={f.y2} stroke="#d7dce2" strokeWidth={1} />
        ))}
        <line x1={l.axis.x1} y1={l.axis.y1} x2={l.axis.x2} y2={l.axis.y2} stroke="#9aa5b1" />
        {l.ticks.map((t) => (
          <g key={t.label}>
            <line x1={t.x - 4} y1={t.y} x2={t.x} y2={t.y} stroke="#9aa5b1" />
            <text x={t.x - 6} y={t.y + 4} textAnchor="end" fontSize={11} fill="#5d6b7b">
              {formatMetric(t.label)}
            </text>
          </g>
        ))}
        {l.bars.map((b) => {
          const color = colors[b.col] ?? "#2563eb";
          return (
            <g key={`${b.row}-${b.col}`}>
              <polygon points={b.left} fill={shade(color, 0.25)} stroke="#fff" strokeWidth={0.5} />
              <polygon points={b.right} fill={shade(color, 0.45)} stroke="#fff" strokeWidth={0.5} />
              <polygon points={b.top} fill={color} stroke="#fff" strokeWidth={0.5} />
            </g>
          );
        })}
        {l.rowLabels.map((r) => (
          <text key={r.text} x={r.x} y={r.y} textAnchor="end" fontSize={11} fill="#1b2530">
            {r.text}
          </text>
        ))}
        {l.colLabels.map((c) => (
          <text key={c.text} x={c.x} y={c.y} fontSize={11} fill="#1b2530">
            {c.text}
          </text>
        ))}
      </svg>
    </div>
  );
}

/**
 * A 3D bar plot (the SNIA PTS IOPS surface) drawn as isometric SVG polygons: plain SVG, so
 * the chart frame exports it as SVG and PNG like any other chart, and no 3D library (WebGL
 * canvases do not export as SVG) is needed.
 */
export function IsoBars({ title, subtitle, cells, rowLabels, colLabels, colors, height = 380, exportAs }: Props) {
  return (
    <ChartFrame title={title} subtitle={subtitle} height={height} chartId="pts-iops-3d" exportAs={exportAs}>
      <Plot cells={cells} rowLabels={rowLabels} colLabels={colLabels} colors={colors} height={height} />
    </ChartFrame>
  );
}
