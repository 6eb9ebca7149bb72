import {
  Bar,
  BarChart,
  CartesianGrid,
  Cell,
  LabelList,
  ReferenceArea,
  Text,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import type { DriveStyle } from "../../lib/house-style";
import { colorOf } from "../../lib/house-style";
import { formatMetric } from "../../lib/format-utils";
import { niceTicks, tickFormat } from "../../lib/series-utils";
import { useWidth } from "../../lib/use-width";
import { ChartFrame } from "../chart-frame/chart-frame";
import { AXIS_LINE, AXIS_TICK, CHART_FONT, GRID_STROKE } from "../chart-frame/chart-theme";
import {
  barLayout,
  barsCsv,
  barsProvenance,
  barsSignificance,
  barsSimulated,
  conditionsText,
  dropCommonVendor,
  LABEL_LINE,
  LABEL_GAP,
  LABEL_SIZE,
  labelText,
  unitAndDirection,
  type BarGroup,
  type BarRow,
} from "./bar-chart-utils";

interface Props {
  group: BarGroup;
  styles: Map<number, DriveStyle>;
  fileBase: string;
}

const LIGHT = 0.45;
const NARROWEST = 360;
const MARGIN = { top: 4, right: 56, bottom: 4, left: 0 };

interface Datum {
  key: string;
  value: number | null;
  paired: number | null;
  row: BarRow;
}

/** A drive's name on the category axis, wrapped by Recharts' Text into the label column
 * (measured in the page's font): whole, never cut; bold for the drive under review, grey and
 * marked for a row set apart. */
function WrappedTick(props: {
  x?: number;
  y?: number;
  payload?: { value: string };
  labels: Map<string, { row: BarRow; label: string }>;
}) {
  const { x = 0, y = 0, payload, labels } = props;
  const found = payload ? labels.get(payload.value) : undefined;
  if (!found) return null;
  const { row, label } = found;
  // Recharts measures the words with these on a span: sizes as CSS text ("12px"; a bare
  // number is not a CSS length there, and the span would keep an earlier text's size).
  const style = {
    fontSize: `${LABEL_SIZE}px`,
    fontWeight: row.underReview ? "700" : "400",
    fontFamily: CHART_FONT,
    fontStyle: "normal",
    letterSpacing: "normal",
  };
  return (
    <g data-label={label}>
      <Text
        x={x - 6}
        y={y}
        // from the chart's left edge to the tick, less a margin on each side
        width={Math.max(LABEL_SIZE * 4, x - 6 - LABEL_GAP)}
        textAnchor="end"
        verticalAnchor="middle"
        lineHeight={LABEL_LINE}
        style={style}
        fill={row.setApart || row.value === null ? "#6b7785" : "#1b2530"}
      >
        {labelText(label, row)}
      </Text>
    </g>
  );
}

function Bars({
  group,
  styles,
  height,
}: {
  group: BarGroup;
  styles: Map<number, DriveStyle>;
  height: number;
}) {
  const [ref, width] = useWidth<HTMLDivElement>(500);
  const labels = dropCommonVendor(group.rows.map((r) => r.name));
  const layout = barLayout(group, labels, width);
  const data: Datum[] = group.rows.map((r) => ({
    key: String(r.driveId),
    value: r.value,
    paired: group.pairNames ? r.paired : null,
    row: r,
  }));
  const byKey = new Map(data.map((d, i) => [d.key, { row: d.row, label: labels[i] ?? d.row.name }]));
  const max = Math.max(1e-12, ...group.rows.flatMap((r) => [r.value ?? 0, r.paired ?? 0]));
  const ticks = niceTicks(0, max, Math.max(2, Math.floor((width - layout.labelWidth) / 80)));
  // The axis ends on a round tick past the longest bar.
  const step = ticks.length > 1 ? ticks[1]! - ticks[0]! : max;
  while ((ticks[ticks.length - 1] ?? 0) < max) ticks.push((ticks[ticks.length - 1] ?? 0) + step);
  const domainMax = ticks[ticks.length - 1] ?? max;
  const format = tickFormat(ticks);
  const apart = data.filter((d) => d.row.setApart);
  const missing = data.filter((d) => d.value === null);
  return (
    <div ref={ref} style={{ width: "100%" }}>
      <BarChart
        width={width}
        height={height}
        layout="vertical"
        data={data}
        margin={MARGIN}
        barCategoryGap={6}
        barGap={1}
        style={{ fontFamily: CHART_FONT }}
        role="img"
        aria-label={`${group.title}, ${group.unit}, best first`}
      >
        <CartesianGrid horizontal={false} stroke={GRID_STROKE} />
        {apart.length > 0 && (
          <ReferenceArea
            y1={apart[0]!.key}
            y2={apart[apart.length - 1]!.key}
            fill="#eef0f3"
            fillOpacity={0.8}
            stroke="none"
            ifOverflow="extendDomain"
          />
        )}
        <XAxis
          type="number"
          domain={[0, domainMax]}
          ticks={ticks}
          tickFormatter={format}
          tick={AXIS_TICK}
          stroke={AXIS_LINE}
          allowDataOverflow
        />
        <YAxis
          type="category"
          dataKey="key"
          width={layout.labelWidth}
          interval={0}
          tickLine={false}
          stroke={AXIS_LINE}
          tick={<WrappedTick labels={byKey} />}
        />
        <Tooltip
          isAnimationActive={false}
          formatter={(v) => (typeof v === "number" ? `${formatMetric(v)} ${group.unit}` : "—")}
          labelFormatter={(key) => byKey.get(String(key))?.row.name ?? String(key)}
        />
        <Bar
          dataKey="value"
          name={group.pairNames?.[0] ?? group.unit}
          isAnimationActive={false}
          minPointSize={1}
        >
          {data.map((d) => (
            <Cell
              key={d.key}
              fill={colorOf(styles, d.row.driveId)}
              fillOpacity={d.row.setApart ? 0.55 : 1}
              stroke={d.row.underReview ? "#1b2530" : "none"}
              strokeWidth={d.row.underReview ? 1 : 0}
            />
          ))}
          <LabelList
            dataKey="value"
            position="right"
            fontSize={11}
            fill="#4a5663"
            formatter={(v: unknown) => (typeof v === "number" ? formatMetric(v) : "")}
          />
        </Bar>
        {group.pairNames && (
          <Bar dataKey="paired" name={group.pairNames[1]} isAnimationActive={false} minPointSize={1}>
            {data.map((d) => (
              <Cell key={d.key} fill={colorOf(styles, d.row.driveId)} fillOpacity={LIGHT} />
            ))}
            <LabelList
              dataKey="paired"
              position="right"
              fontSize={11}
              fill="#4a5663"
              formatter={(v: unknown) => (typeof v === "number" ? formatMetric(v) : "")}
            />
          </Bar>
        )}
        {missing.map((d) => (
          <ReferenceArea
            key={`missing-${d.key}`}
            y1={d.key}
            y2={d.key}
            fill="none"
            stroke="none"
            label={{
              value: "no result for this test",
              position: "insideLeft",
              fontSize: 11,
              fill: "#6b7785",
              fontStyle: "italic",
            }}
          />
        ))}
      </BarChart>
    </div>
  );
}

/** One metric as horizontal bars, best first, the drive under review outlined and bold. */
export function MetricBars({ group, styles, fileBase }: Props) {
  const labels = dropCommonVendor(group.rows.map((r) => r.name));
  // Tall enough for the labels wrapped in the narrowest column a chart gets (a phone, a
  // 560 px article): wider, the rows have room to spare.
  const height = barLayout(group, labels, NARROWEST).height;
  const better = group.lowerIsBetter ? "lower is better" : "higher is better";
  const [, step = group.key, name = ""] = group.key.split(":");
  const legend = group.pairNames
    ? [
        { label: `${group.pairNames[0]} data (solid)`, color: "#5d6b7b" },
        { label: `${group.pairNames[1]} data (light)`, color: "#5d6b7b", opacity: LIGHT },
      ]
    : undefined;
  return (
    <ChartFrame
      title={group.title}
      subtitle={`${group.plan} · ${group.unit}, ${better}`}
      height={height}
      chartId={`bars-${group.key.replace(/[^a-z0-9]+/gi, "-")}`}
      note={barsSignificance(group) ?? undefined}
      exportAs={{
        fileName: [fileBase, "bars", step, name],
        title: `${group.plan}: ${group.title} ${unitAndDirection(group)}`,
        conditions: conditionsText(group.conditions, group.plan),
        provenance: barsProvenance(group),
        simulated: barsSimulated(group),
        warnings: group.warnings,
        legend,
        csv: () => barsCsv(group),
      }}
    >
      <Bars group={group} styles={styles} height={height} />
    </ChartFrame>
  );
}
