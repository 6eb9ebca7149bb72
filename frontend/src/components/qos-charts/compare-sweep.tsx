import { useState } from "react";
import { useCompareSweeps } from "../../api/results/queries";
import type { CompareSweeps } from "../../api/results/types";
import { downloadText } from "../../lib/export-dom";
import type { DriveStyle } from "../../lib/house-style";
import { driveName, legendOf, linesCsv, provenanceLine, seriesSimulated, type Line } from "../../lib/series-utils";
import { ChartFrame } from "../chart-frame/chart-frame";
import { LogLines } from "./log-lines";
import {
  formatLatency,
  latencyTick,
  qdTicks,
  sweepConditions,
  sweepFigureRows,
  sweepFiguresCsv,
  sweepLines,
  sweepWorkloads,
  workloadName,
} from "./qos-utils";
import "./qos-charts.css";

interface Props {
  drives: number[];
  styles: Map<number, DriveStyle>;
  fileBase: string;
  underReview: number | null;
  enabled: boolean;
}

const count = (v: number | null) => (v === null ? "—" : Math.round(v).toLocaleString("en-US"));

/** Queue-depth sweeps across drives: the figures a review quotes (peak IOPS, the QD reaching
 * 95% of it, the highest IOPS whose p99 meets the target), IOPS against queue depth and the
 * hockey stick (p99 and p99.99 against IOPS), one workload at a time, the drive under review
 * marked. Nothing is drawn when none of the drives has a finished sweep. */
export function SweepCompare({ drives, styles, fileBase, underReview, enabled }: Props) {
  const query = useCompareSweeps(drives, underReview, enabled);
  const data: CompareSweeps | undefined = query.data;
  const [picked, setPicked] = useState<string | null>(null);
  if (!enabled || !data || data.drives.length === 0) return null;
  const workloads = sweepWorkloads(data.drives);
  const workload = picked && workloads.includes(picked) ? picked : (workloads[0] ?? "");
  const rows = sweepFigureRows(data.drives, workload);
  const iops = sweepLines(data.drives, workload, "iops", styles);
  const lat = sweepLines(data.drives, workload, "latency", styles);
  const ticks = qdTicks(data.drives.flatMap((d) => d.workloads.flatMap((w) => w.points.map((p) => p.total_qd))));
  const targets = Array.from(new Set(data.drives.map((d) => d.latency_target_us)));
  const name = workloadName(workload);
  const warnings = [
    ...data.warnings,
    ...data.missing
      .filter((m) => styles.get(m.drive_id)?.underReview)
      .map((m) => `The drive under review, ${driveName(m)}, is not in this chart: ${m.reason}.`),
  ];
  const about = (title: string) => ({
    title,
    metric: `qd-sweep ${workload}`,
    conditions: sweepConditions(data.drives, workload),
    provenance: provenanceLine(data.drives),
    simulated: seriesSimulated(data.drives),
    warnings,
  });
  const frame = (id: string, title: string, subtitle: string, lines: Line[], xName: string, yName: string, chart: React.ReactNode) => (
    <ChartFrame
      title={title}
      subtitle={subtitle}
      height={280}
      chartId={id}
      exportAs={{
        fileName: [fileBase, id, workload],
        ...about(title),
        legend: legendOf(lines, styles),
        csv: () => linesCsv(lines, xName, yName, about(title)),
      }}
    >
      {chart}
    </ChartFrame>
  );
  return (
    <div className="qos-sweep-compare" data-section="qd-sweep">
      <div className="compare-toolbar">
        <h3>Queue-depth sweep</h3>
        <span className="compare-toolbar__spacer" />
        <label className="chart-control">
          Workload{" "}
          <select aria-label="Sweep workload" value={workload} onChange={(e) => setPicked(e.target.value)}>
            {workloads.map((w) => (
              <option key={w} value={w}>
                {workloadName(w)}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          className="button"
          onClick={() =>
            downloadText(
              sweepFiguresCsv(rows, about(`Queue-depth sweep figures: ${name}`)),
              `${fileBase}-qd-sweep-${workload}.csv`,
              "text/csv",
            )
          }
        >
          Sweep figures CSV
        </button>
      </div>
      <div className="qos-table-wrap">
        <table className="table qos-table" data-testid="qd-sweep-compare">
          <caption className="qos-table__caption">
            {name}: the figures a review quotes, from the measured points (nothing interpolated)
          </caption>
          <thead>
            <tr>
              <th scope="col">Drive</th>
              <th scope="col" className="num">peak IOPS</th>
              <th scope="col" className="num">at QD</th>
              <th scope="col" className="num">95% of peak from QD</th>
              <th scope="col" className="num">low-QD score (mean IOPS, QD1-4)</th>
              <th scope="col" className="num">highest IOPS with p99 under target</th>
              <th scope="col">target, and the next deeper point</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.driveId} className={r.highlight ? "qos-table__row--review" : undefined}>
                <td>{r.label}{r.numjobs > 1 ? ` (${r.numjobs} jobs)` : ""}</td>
                <td className="num">{count(r.peakIops)}</td>
                <td className="num">{r.peakQd ?? "—"}</td>
                <td className="num">{r.qdAt95 ?? "—"}</td>
                <td className="num">{count(r.lowQdIops)}</td>
                <td className="num">
                  {r.iopsUnderTarget === null
                    ? "none met it"
                    : `${count(r.iopsUnderTarget)} (QD${r.qdUnderTarget}, p99 ${formatLatency(r.p99UnderTargetUs)})`}
                </td>
                <td>
                  p99 ≤ {formatLatency(r.targetUs)}
                  {r.nextOver ? `; QD${r.nextOver.qd} misses it (p99 ${formatLatency(r.nextOver.p99_us)})` : ""}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="qos-grid">
        {frame(
          "compare-qd-sweep-iops",
          `IOPS against queue depth: ${name}`,
          "IOPS against outstanding I/Os (iodepth x numjobs)",
          iops,
          "qd",
          "iops",
          <LogLines lines={iops} xLabel="QD" yLabel="IOPS" xLog xTicks={ticks} />,
        )}
        {frame(
          "compare-qd-sweep-latency",
          `Tail latency against IOPS: ${name}`,
          "p99 (solid) and p99.99 (dashed) completion latency against IOPS, one point per QD",
          lat,
          "iops",
          "latency_us",
          <LogLines
            lines={lat}
            xLabel="IOPS"
            yLabel="latency"
            yLog
            yFormat={latencyTick}
            yMark={targets.length === 1 ? { y: targets[0]!, label: `target ${formatLatency(targets[0]!)}` } : undefined}
            empty="No point ran enough I/Os for a p99"
          />,
        )}
      </div>
    </div>
  );
}
