import { useMemo } from "react";
import { Bar, BarChart, CartesianGrid, Cell, LabelList, XAxis, YAxis } from "recharts";
import { useCompareSeries } from "../../api/results/queries";
import type { Comparison, CompareSeries } from "../../api/results/types";
import type { RunDetail } from "../../api/types";
import { csvDocument } from "../../lib/export-utils";
import { colorOf, type DriveStyle } from "../../lib/house-style";
import {
  conditionsLine,
  legendOf,
  provenanceLine,
  seriesSimulated,
  seriesWarnings,
  niceTicks,
  toLines,
} from "../../lib/series-utils";
import { useWidth } from "../../lib/use-width";
import { ChartFrame } from "../chart-frame/chart-frame";
import { AXIS_LINE, AXIS_TICK, CHART_FONT, DRIVE_COLORS, GRID_STROKE } from "../chart-frame/chart-theme";
import { SeriesLines } from "../series-lines/series-lines";
import { overlayText } from "../series-lines/series-lines-utils";
import "../series-lines/series-lines.css";
import "../cdm-table/cdm-table.css";
import {
  averages,
  barsHeight,
  compareHeight,
  mbps,
  PANEL_HEIGHT,
  mixedParts,
  PART_STEP,
  PART_WORDS,
  PARTS,
  partLine,
  pointsRows,
  SHARE_TICKS,
  type Part,
} from "./mixed-utils";

const pct = (v: number) => `${v}%`;

/** The Run page of a mixed run: MB/s against the share of writes, random and sequential,
 * each part's points (read and write parts apart, as fio reports them) and its finding. */
export function MixedRun({ run, conditions, provenance }: { run: RunDetail; conditions: string; provenance: string }) {
  const parts = mixedParts(run.steps);
  if (parts.length === 0) return null;
  const lines = parts.map((p, i) => partLine(p, run.drive_id, DRIVE_COLORS[i % DRIVE_COLORS.length] ?? "#2563eb"));
  const about = {
    title: `Run ${run.id}: mixed random and mixed sequential`,
    conditions,
    provenance,
    simulated: run.simulated ? `Simulated drive: ${run.drive_label}` : undefined,
  };
  return (
    <section className="section" aria-labelledby="mixed-heading" data-chart="mixed-run">
      <div className="section__header">
        <h2 id="mixed-heading">Mixed random and mixed sequential</h2>
      </div>
      <div className="section__body">
        <ChartFrame
          title="MB/s against the share of writes"
          subtitle="reads and writes together; 0% is reads only, 100% writes only"
          height={260}
          chartId="mixed-run-chart"
          exportAs={{
            fileName: ["run", String(run.id), "mixed"],
            ...about,
            legend: lines.map((l) => ({ label: l.label, color: l.color })),
            csv: () =>
              csvDocument(
                { ...about, metric: "mixed: MB/s (reads and writes) against % writes" },
                ["part", "write_pct", "mbps", "read_mbps", "write_mbps", "iops"],
                pointsRows(parts),
              ),
          }}
        >
          <SeriesLines
            title="MB/s"
            lines={lines}
            xLabel="share of writes (%)"
            yLabel="MB/s"
            xDomain={[0, 100]}
            xTicks={SHARE_TICKS}
            xFormat={pct}
          />
        </ChartFrame>
        {parts.map((p) => (
          <div key={p.part} data-testid={`mixed-${p.part}`}>
            <h3>
              {PART_WORDS[p.part]}: {mbps(p.avgMbps)} MB/s average
            </h3>
            <p data-testid={`mixed-${p.part}-note`}>{p.note}</p>
            <table className="cdm-table">
              <thead>
                <tr>
                  <th scope="col">writes</th>
                  <th scope="col">MB/s</th>
                  <th scope="col">read MB/s</th>
                  <th scope="col">write MB/s</th>
                  {p.part === "random" && <th scope="col">IOPS</th>}
                </tr>
              </thead>
              <tbody>
                {p.points.map((pt) => (
                  <tr key={pt.writePct}>
                    <th scope="row">{pt.writePct}%</th>
                    <td>{mbps(pt.mbps)}</td>
                    <td>{mbps(pt.readMbps)}</td>
                    <td>{mbps(pt.writeMbps)}</td>
                    {p.part === "random" && <td>{Math.round(pt.iops)}</td>}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
      </div>
    </section>
  );
}

function onlyPart(data: CompareSeries | undefined, part: Part): CompareSeries | undefined {
  if (!data) return data;
  return {
    ...data,
    drives: data.drives.map((d) => ({ ...d, series: d.series.filter((s) => s.step === PART_STEP[part]) })),
  };
}

interface CompareProps {
  drives: number[];
  styles: Map<number, DriveStyle>;
  fileBase: string;
  comparison: Comparison | undefined;
}

/** Compare: the drives' curves overlaid (random and sequential panels) and each drive's
 * average over the shares as a bar (AnandTech's bar). */
export function MixedCompare({ drives, styles, fileBase, comparison }: CompareProps) {
  const query = useCompareSeries({ drives, plan: "mixed" });
  const byPart = useMemo(
    () =>
      Object.fromEntries(PARTS.map((p) => [p, toLines(onlyPart(query.data, p), styles)])) as Record<
        Part,
        ReturnType<typeof toLines>
      >,
    [query.data, styles],
  );
  const avg = averages(comparison?.metrics ?? [], drives);
  const data = query.data?.drives ?? [];
  const about = {
    title: "Mixed random and mixed sequential: MB/s against the share of writes",
    metric: "mixed: MB/s (reads and writes) against % writes; mixed_avg_mbps",
    conditions: conditionsLine(data),
    provenance: provenanceLine(data),
    simulated: seriesSimulated(data),
    warnings: seriesWarnings(query.data, styles),
  };
  const count = byPart.random.length + byPart.sequential.length;
  return (
    <ChartFrame
      title="Mixed random and mixed sequential"
      subtitle="MB/s against the share of writes; the bars: average over the shares"
      height={compareHeight(avg.length)}
      overlay={overlayText(drives, query, count, "no finished mixed run")}
      chartId="mixed-compare"
      exportAs={{
        fileName: [fileBase, "mixed"],
        ...about,
        legend: legendOf(byPart.random.length ? byPart.random : byPart.sequential, styles),
        csv: () =>
          csvDocument(about, ["series", "part", "write_pct", "mbps"], [
            ...PARTS.flatMap((p) => byPart[p].flatMap((l) => l.points.map(([x, y]) => [l.label, p, x, y]))),
            ...avg.flatMap((a) =>
              PARTS.filter((p) => a[p] !== null).map((p) => [a.name, p, "average", a[p] as number]),
            ),
          ]),
      }}
    >
      <div className="chart-panels" style={{ height: PANEL_HEIGHT }}>
        {PARTS.map((p) => (
          <SeriesLines
            key={p}
            title={PART_WORDS[p]}
            lines={byPart[p]}
            xLabel="share of writes (%)"
            yLabel="MB/s"
            xDomain={[0, 100]}
            xTicks={SHARE_TICKS}
            xFormat={pct}
            empty={`No ${p} part`}
          />
        ))}
      </div>
      <AverageBars rows={avg} styles={styles} />
    </ChartFrame>
  );
}

/** Each drive's average MB/s over the shares, random and sequential side by side. */
function AverageBars({ rows, styles }: { rows: ReturnType<typeof averages>; styles: Map<number, DriveStyle> }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  if (rows.length === 0) return null;
  const top = Math.max(0, ...rows.flatMap((r) => [r.random ?? 0, r.sequential ?? 0]));
  const ticks = niceTicks(0, top || 1, 4);
  const height = barsHeight(rows.length);
  return (
    <div ref={ref} data-testid="mixed-averages" style={{ display: "flex", gap: "1rem", marginTop: 12 }}>
      {PARTS.map((p) => (
        <div key={p} style={{ flex: 1 }}>
          <div style={{ fontSize: 12, lineHeight: "18px", height: 18, color: "#5d6b7b" }}>
            {PART_WORDS[p]}: average MB/s over the shares
          </div>
          <BarChart
            width={Math.max(200, (width || 600) / 2 - 16)}
            height={height}
            layout="vertical"
            data={rows.map((r) => ({ name: r.name, id: r.driveId, value: r[p] }))}
            margin={{ top: 4, right: 48, bottom: 4, left: 4 }}
            style={{ fontFamily: CHART_FONT }}
          >
            <CartesianGrid stroke={GRID_STROKE} horizontal={false} />
            <XAxis
              type="number"
              domain={[0, ticks[ticks.length - 1] ?? 1]}
              ticks={ticks}
              tick={AXIS_TICK}
              stroke={AXIS_LINE}
            />
            <YAxis type="category" dataKey="name" width={150} tick={AXIS_TICK} stroke={AXIS_LINE} />
            <Bar dataKey="value" isAnimationActive={false}>
              {rows.map((r) => (
                <Cell key={r.driveId} fill={colorOf(styles, r.driveId)} />
              ))}
              <LabelList
                dataKey="value"
                position="right"
                formatter={(v: unknown) => (typeof v === "number" ? mbps(v) : "")}
                style={{ fontSize: 11, fill: "#334155" }}
              />
            </Bar>
          </BarChart>
        </div>
      ))}
    </div>
  );
}
