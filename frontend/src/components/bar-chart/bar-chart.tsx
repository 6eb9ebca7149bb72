import type { DriveStyle } from "../../lib/house-style";
import { colorOf } from "../../lib/house-style";
import { formatMetric } from "../../lib/format-utils";
import { shortLabel } from "../../lib/series-utils";
import { useWidth } from "../../lib/use-width";
import { ChartFrame } from "../chart-frame/chart-frame";
import { CHART_FONT } from "../chart-frame/chart-theme";
import {
  barLayout,
  barsCsv,
  barsProvenance,
  dropCommonVendor,
  fitText,
  type BarGroup,
} from "./bar-chart-utils";

interface Props {
  group: BarGroup;
  styles: Map<number, DriveStyle>;
  fileBase: string;
}

function Bars({ group, styles }: { group: BarGroup; styles: Map<number, DriveStyle> }) {
  const [ref, width] = useWidth<HTMLDivElement>(500);
  const l = barLayout(group, width);
  const labels = dropCommonVendor(group.rows.map((r) => shortLabel(r.label)));
  return (
    <div ref={ref} style={{ width: "100%" }}>
      <svg
        width={width}
        height={l.height}
        role="img"
        aria-label={`${group.title}, ${group.unit}, best first`}
        style={{ fontFamily: CHART_FONT, display: "block" }}
      >
        {group.rows.map((r, i) => {
          const y = i * l.rowHeight + 3;
          const color = colorOf(styles, r.driveId);
          const bars: [number, number][] = [[r.value, 1]];
          if (group.pairNames) bars.push([r.paired ?? NaN, 0.45]);
          return (
            <g key={r.driveId}>
              <text
                x={l.labelWidth - 8}
                y={y + (l.rowHeight - 10) / 2 + 4}
                textAnchor="end"
                fontSize={12}
                fontWeight={r.underReview ? 700 : 400}
                fill="#1b2530"
              >
                {fitText(labels[i] ?? r.label, l.labelWidth - 10, r.underReview ? 13 : 12)}
              </text>
              {bars.map(([v, opacity], j) => {
                const by = y + j * l.barHeight;
                const w = Number.isFinite(v) ? Math.max(1, v * l.scale) : 0;
                return (
                  <g key={j}>
                    <rect
                      x={l.labelWidth}
                      y={by}
                      width={w}
                      height={l.barHeight - 1}
                      fill={color}
                      fillOpacity={opacity}
                      stroke={r.underReview ? "#1b2530" : "none"}
                      strokeWidth={r.underReview ? 1 : 0}
                    />
                    <text
                      x={l.labelWidth + w + 4}
                      y={by + l.barHeight - 3}
                      fontSize={11}
                      fill="#4a5663"
                    >
                      {Number.isFinite(v) ? formatMetric(v) : "—"}
                    </text>
                  </g>
                );
              })}
            </g>
          );
        })}
      </svg>
    </div>
  );
}

/** One metric as horizontal bars, best first, the drive under review outlined and bold. */
export function MetricBars({ group, styles, fileBase }: Props) {
  const height = barLayout(group, 500).height;
  const better = group.lowerIsBetter ? "lower is better" : "higher is better";
  const pairs = group.pairNames
    ? ` · solid: ${group.pairNames[0]} data, light: ${group.pairNames[1]} data`
    : "";
  const [plan, step] = group.key.split(":");
  return (
    <ChartFrame
      title={group.title}
      subtitle={`${group.unit}, ${better}`}
      height={height}
      chartId={`bars-${group.key.replace(/[^a-z0-9]+/gi, "-")}`}
      exportAs={{
        fileName: [fileBase, "bars", step ?? group.key, group.key.split(":")[2] ?? ""],
        title: `${group.title} (${group.unit}, ${better})`,
        conditions: `${plan} · ${step}${pairs}`,
        provenance: barsProvenance(group),
        csv: () => barsCsv(group),
      }}
    >
      <Bars group={group} styles={styles} />
    </ChartFrame>
  );
}
