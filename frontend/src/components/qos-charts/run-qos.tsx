import { useMemo, useState, type ReactNode } from "react";
import { useRunQos, useStepLatency } from "../../api/results/queries";
import type { LatencyDistribution, RunQos, SweepWorkload } from "../../api/results/types";
import { downloadText } from "../../lib/export-dom";
import { csvDocument } from "../../lib/export-utils";
import { linesCsv, type Line } from "../../lib/series-utils";
import { ChartFrame } from "../chart-frame/chart-frame";
import { SERIES_COLORS } from "../chart-frame/chart-theme";
import { LogLines } from "./log-lines";
import { QosTable } from "./qos-table";
import { formatLatency, latencyTick, qdTicks, qosCsv, shareTick, workloadName, type QosRow } from "./qos-utils";
import "./qos-charts.css";

const DIRECTION_COLORS: Record<string, string> = { ...SERIES_COLORS, all: "#4b5563" };
const WORKLOAD_COLORS: Record<string, string> = {
  randread: "#2563eb",
  randwrite: "#ea580c",
};
/** A mix's colour whatever its read share. */
const MIX_COLOR = "#059669";

interface Props {
  runId: number;
  plan: string;
  /** The step picked on the page: its distribution is shown when it has one. */
  selectedId: number | null;
  provenance: string;
  simulated?: string;
}

/** A run's latency QoS: the table of every fio step, the chosen step's histogram and
 * exceedance curve, and for a qd-sweep run IOPS and latency against queue depth. */
export function RunQosSection({ runId, plan, selectedId, provenance, simulated }: Props) {
  const qos = useRunQos(runId, true);
  const steps = qos.data?.steps ?? [];
  const [picked, setPicked] = useState<number | null>(null);
  // The step picked on the page, else the first measured one (not a preconditioning pass).
  const measured = steps.find((s) => !/^(precondition|fill|prewrite)/.test(s.role ?? s.name)) ?? steps[0];
  const stepId =
    picked ?? (steps.some((s) => s.step_id === selectedId) ? selectedId : (measured?.step_id ?? null));
  if (qos.isError) return <p className="muted">Could not load the latency QoS: {qos.error.message}</p>;
  if (!qos.data || steps.length === 0) return null;
  const rows: QosRow[] = steps.flatMap((s) =>
    Object.entries(s.directions).map(([d, q]) => ({ label: s.label, direction: d, qos: q })),
  );
  const about = { title: `Run ${runId}: latency QoS`, conditions: plan, provenance, simulated };
  return (
    <section className="section" aria-labelledby="qos-heading" data-section="qos">
      <div className="section__header">
        <h2 id="qos-heading">Latency QoS</h2>
        <button
          type="button"
          className="button"
          onClick={() =>
            downloadText(qosCsv(rows, about), `run-${runId}-qos.csv`, "text/csv")
          }
        >
          QoS table CSV
        </button>
      </div>
      <div className="section__body">
        <QosTable
          rows={rows}
          caption="Completion latency per step: fio's mean and maximum, percentiles from its histogram"
        />
        {qos.data.sweep && (
          <SweepCharts sweep={qos.data.sweep} runId={runId} provenance={provenance} simulated={simulated} />
        )}
        <div className="qos-controls">
          <label className="chart-control">
            Distribution of{" "}
            <select
              aria-label="Step of the latency distribution"
              value={stepId ?? ""}
              onChange={(e) => setPicked(Number(e.target.value))}
            >
              {steps.map((s) => (
                <option key={s.step_id} value={s.step_id}>
                  {s.label}
                </option>
              ))}
            </select>
          </label>
        </div>
        {stepId !== null && (
          <StepDistribution
            runId={runId}
            stepId={stepId}
            label={steps.find((s) => s.step_id === stepId)?.label ?? ""}
            conditions={`${plan} · ${steps.find((s) => s.step_id === stepId)?.name ?? ""}`}
            provenance={provenance}
            simulated={simulated}
          />
        )}
      </div>
    </section>
  );
}

function distributionLines(
  dirs: Record<string, LatencyDistribution>,
  pick: (d: LatencyDistribution) => [number, number][],
): Line[] {
  return Object.entries(dirs).map(([d, dist]) => ({
    key: d,
    driveId: 0,
    label: d === "all" ? "all I/O" : d,
    color: DIRECTION_COLORS[d] ?? "#4b5563",
    dashed: d === "all",
    points: pick(dist),
  }));
}

function StepDistribution({
  runId,
  stepId,
  label,
  conditions,
  provenance,
  simulated,
}: {
  runId: number;
  stepId: number;
  label: string;
  conditions: string;
  provenance: string;
  simulated?: string;
}) {
  const query = useStepLatency(runId, stepId);
  const data = query.data;
  const hist = useMemo(() => distributionLines(data?.directions ?? {}, (d) => d.histogram), [data]);
  const exceed = useMemo(
    () => distributionLines(data?.directions ?? {}, (d) => d.exceedance),
    [data],
  );
  const overlay = query.isPending ? "Loading…" : query.isError ? `Could not load: ${query.error.message}` : undefined;
  const legend = hist.map((l) => ({ label: l.label, color: l.color, dashed: l.dashed }));
  const base = { conditions, provenance, simulated, legend };
  return (
    <div className="qos-grid">
      <ChartFrame
        title={`Latency histogram: ${label}`}
        subtitle="% of I/Os against completion latency, log-spaced bins"
        height={260}
        overlay={overlay}
        chartId="qos-histogram"
        exportAs={{
          fileName: ["run", String(runId), "latency-histogram", String(stepId)],
          title: `Latency histogram: ${label}`,
          ...base,
          csv: () => linesCsv(hist, "latency_us", "share_pct", { title: `Latency histogram: ${label}`, ...base }),
        }}
      >
        <LogLines lines={hist} xLabel="latency" yLabel="% of I/Os" xLog steps xFormat={latencyTick} />
      </ChartFrame>
      <ChartFrame
        title={`Latency exceedance: ${label}`}
        subtitle="share of I/Os slower than each latency (1 - CDF), log-log"
        height={260}
        overlay={overlay}
        chartId="qos-exceedance"
        exportAs={{
          fileName: ["run", String(runId), "latency-exceedance", String(stepId)],
          title: `Latency exceedance: ${label}`,
          ...base,
          csv: () => linesCsv(exceed, "latency_us", "share_slower", { title: `Latency exceedance: ${label}`, ...base }),
        }}
      >
        <LogLines
          lines={exceed}
          xLabel="latency"
          yLabel="share slower"
          xLog
          yLog
          xFormat={latencyTick}
          yFormat={shareTick}
        />
      </ChartFrame>
    </div>
  );
}

function workloadLine(w: SweepWorkload, points: [number, number][], suffix = "", dashed = false): Line {
  return {
    key: `${w.workload}${suffix}`,
    driveId: 0,
    label: `${workloadName(w.workload)}${suffix}`,
    color: WORKLOAD_COLORS[w.workload] ?? (w.workload.startsWith("mix") ? MIX_COLOR : "#4b5563"),
    dashed,
    points,
  };
}

function SweepCharts({
  sweep,
  runId,
  provenance,
  simulated,
}: {
  sweep: NonNullable<RunQos["sweep"]>;
  runId: number;
  provenance: string;
  simulated?: string;
}) {
  const ws = sweep.workloads;
  const iops = ws.map((w) => workloadLine(w, w.points.map((p) => [p.total_qd, p.iops])));
  const mbps = ws.map((w) => workloadLine(w, w.points.map((p) => [p.total_qd, p.mbps])));
  const lat = ws.flatMap((w) => [
    {
      ...workloadLine(w, w.points.filter((p) => p.p99_us !== null).map((p) => [p.iops, p.p99_us!]), " p99"),
      // Each point says its queue depth on the chart.
      pointLabels: w.points.filter((p) => p.p99_us !== null).map((p) => `QD${p.total_qd}`),
    },
    workloadLine(
      w,
      w.points.filter((p) => p.p99_99_us !== null).map((p) => [p.iops, p.p99_99_us!]),
      " p99.99",
      true,
    ),
  ]).filter((l) => l.points.length > 0);
  const ticks = qdTicks(ws.flatMap((w) => w.points.map((p) => p.total_qd)));
  const target = sweep.latency_target_us;
  const conditions = "qd-sweep · 4K random · QD = iodepth x numjobs";
  const legendOf = (lines: Line[]) => lines.map((l) => ({ label: l.label, color: l.color, dashed: l.dashed }));
  const frame = (
    id: string,
    title: string,
    subtitle: string,
    lines: Line[],
    xName: string,
    yName: string,
    chart: ReactNode,
  ) => (
    <ChartFrame
      title={title}
      subtitle={subtitle}
      height={260}
      chartId={id}
      exportAs={{
        fileName: ["run", String(runId), id],
        title,
        conditions,
        provenance,
        simulated,
        legend: legendOf(lines),
        csv: () => linesCsv(lines, xName, yName, { title, conditions, provenance, simulated }),
      }}
    >
      {chart}
    </ChartFrame>
  );
  return (
    <>
      <h3>Queue-depth sweep</h3>
      <ul className="qos-figures" data-testid="qd-sweep-figures">
        {ws.map((w) => {
          const f = w.figures;
          const next = f.next_over_target;
          return (
            <li key={w.workload}>
              <strong>{workloadName(w.workload)}</strong>: peak{" "}
              {Math.round(f.peak_iops ?? 0).toLocaleString("en-US")} IOPS at QD{f.peak_qd}; 95% of
              it from QD{f.qd_at_share_of_peak}; p99 under {formatLatency(target)}:{" "}
              {f.iops_under_target !== null && f.iops_under_target !== undefined
                ? `up to ${Math.round(f.iops_under_target).toLocaleString("en-US")} IOPS (QD${f.qd_under_target}, p99 ${formatLatency(f.p99_under_target_us)})` +
                  (next ? `; QD${next.qd} misses it (p99 ${formatLatency(next.p99_us)})` : "")
                : "no point met the target"}
              {f.low_qd_iops !== null && f.low_qd_iops !== undefined
                ? `; low-QD score ${Math.round(f.low_qd_iops).toLocaleString("en-US")} IOPS (mean of QD1, 2 and 4)`
                : ""}
            </li>
          );
        })}
      </ul>
      <div className="qos-grid">
        {frame(
          "qd-sweep-iops",
          "IOPS against queue depth",
          "IOPS against outstanding I/Os",
          iops,
          "qd",
          "iops",
          <LogLines lines={iops} xLabel="QD" yLabel="IOPS" xLog xTicks={ticks} />,
        )}
        {frame(
          "qd-sweep-mbps",
          "MB/s against queue depth",
          "MB/s (10^6 B/s) against outstanding I/Os",
          mbps,
          "qd",
          "mbps",
          <LogLines lines={mbps} xLabel="QD" yLabel="MB/s" xLog xTicks={ticks} />,
        )}
        {frame(
          "qd-sweep-latency",
          "Tail latency against IOPS",
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
            yMark={{ y: target, label: `target ${formatLatency(target)}` }}
          />,
        )}
      </div>
      <p className="muted">
        Sweep points as CSV:{" "}
        <button
          type="button"
          className="button"
          onClick={() =>
            downloadText(
              csvDocument(
                { title: `Run ${runId}: queue-depth sweep`, conditions, provenance, simulated },
                ["workload", "qd", "total_qd", "iops", "mbps", "mean_us", "p50_us", "p99_us", "p99_9_us", "p99_99_us", "max_us"],
                ws.flatMap((w) =>
                  w.points.map((p) => [w.workload, p.qd, p.total_qd, p.iops, p.mbps, p.mean_us, p.p50_us, p.p99_us, p.p99_9_us, p.p99_99_us, p.max_us]),
                ),
              ),
              `run-${runId}-qd-sweep.csv`,
              "text/csv",
            )
          }
        >
          CSV
        </button>
      </p>
    </>
  );
}
