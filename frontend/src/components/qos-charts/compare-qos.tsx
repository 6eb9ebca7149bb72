import { useMemo, useState } from "react";
import { useCompareLatency, useLatencySteps } from "../../api/results/queries";
import type { DriveSeries, LatencyDistribution } from "../../api/results/types";
import type { DriveStyle } from "../../lib/house-style";
import { colorOf, widthOf } from "../../lib/house-style";
import { downloadText } from "../../lib/export-dom";
import { conditionsLine, driveName, linesCsv, provenanceLine, seriesSimulated, type Line } from "../../lib/series-utils";
import { ChartFrame } from "../chart-frame/chart-frame";
import { SweepCompare } from "./compare-sweep";
import { LogLines } from "./log-lines";
import { QosTable } from "./qos-table";
import { latencyTick, qosCsv, shareTick, type QosRow, type TestWords } from "./qos-utils";
import "./qos-charts.css";

/** Plans whose steps keep a latency histogram, in the order offered, with their names (the
 * comparison's own names of them win, backend/results/names.py). */
const QOS_PLANS: [string, string][] = [
  ["qd-sweep", "Queue-depth sweep"],
  ["four-corners", "Four corners"],
  ["transfer-size", "Transfer size"],
  ["consistency", "Performance consistency"],
  ["torture", "Torture"],
  ["write-hitching", "Write hitching"],
];
const DIRECTIONS = ["all", "read", "write"] as const;

interface Props {
  drives: number[];
  styles: Map<number, DriveStyle>;
  fileBase: string;
  underReview: number | null;
  /** Plans and tests in words (from the comparison's metric names), by key. */
  words?: TestWords;
}

/** Latency QoS across drives for one test: the QoS table (the drive under review marked),
 * each drive's histogram and exceedance curve overlaid, with conditions, warnings and
 * provenance; then the drives' queue-depth sweeps, when they have one. */
export function QosCompare({ drives, styles, fileBase, underReview, words }: Props) {
  const [picked, setPlan] = useState<string | null>(null);
  const [step, setStep] = useState<string | null>(null);
  const [direction, setDirection] = useState<(typeof DIRECTIONS)[number]>("all");
  // qd-sweep when the drives have one, else four corners (every review has that).
  const sweeps = useLatencySteps(drives, "qd-sweep", picked === null);
  const plan = picked ?? (sweeps.data && sweeps.data.length === 0 ? "four-corners" : "qd-sweep");
  const names = useLatencySteps(drives, plan, true);
  // The first measured test by default, not a pre-write or preconditioning pass.
  const measured = names.data?.find((n) => !/^(prewrite|fill|precondition)/.test(n));
  const chosen = step && names.data?.includes(step) ? step : (measured ?? names.data?.[0] ?? null);
  const query = useCompareLatency(drives, plan, chosen, underReview);
  const data = query.data;
  const withDir = useMemo(
    () =>
      (data?.drives ?? []).map((d) => ({
        drive: d,
        dist: d.directions[direction] ?? (direction === "all" ? Object.values(d.directions)[0] : undefined),
      })),
    [data, direction],
  );
  const drawn = (pick: (d: LatencyDistribution) => [number, number][]): Line[] =>
    withDir
      .filter((x) => x.dist)
      .map(({ drive, dist }) => ({
        key: String(drive.drive_id),
        driveId: drive.drive_id,
        label: driveName(drive),
        color: colorOf(styles, drive.drive_id),
        width: widthOf(styles, drive.drive_id),
        dashed: false,
        points: pick(dist!).map(([x, y]) => [x, y] as [number, number]),
      }))
      // The drive under review drawn last, on top.
      .sort((a, b) => Number(styles.get(a.driveId)?.underReview ?? false) - Number(styles.get(b.driveId)?.underReview ?? false));
  const lines = drawn((d) => d.exceedance);
  const histogram = drawn((d) => d.histogram);
  const rows: QosRow[] = withDir
    .filter((x) => x.dist)
    .map(({ drive, dist }) => ({
      label: driveName(drive),
      direction,
      qos: dist!.qos,
      highlight: drive.under_review,
    }));
  const asSeries = (data?.drives ?? []) as unknown as DriveSeries[];
  const warnings = [
    ...(data?.warnings ?? []),
    ...(data?.missing ?? [])
      .filter((m) => styles.get(m.drive_id)?.underReview)
      .map((m) => `The drive under review, ${driveName(m)}, is not in this chart: ${m.reason}.`),
  ];
  const stepLabel = data?.drives[0]?.step_label ?? chosen ?? "";
  const title = `Latency exceedance: ${stepLabel}`;
  const histogramTitle = `Latency histogram: ${stepLabel}`;
  const about = {
    title,
    metric: `${plan}:${chosen ?? ""} completion latency (${direction === "all" ? "all I/O" : direction})`,
    conditions: conditionsLine(asSeries),
    provenance: provenanceLine(data?.drives ?? []),
    simulated: seriesSimulated(asSeries),
    warnings,
  };
  const overlay =
    drives.length === 0
      ? "Choose drives to compare."
      : names.isPending || query.isPending
        ? names.data?.length === 0
          ? `None of these drives has a finished ${plan} run with latency histograms.`
          : "Loading…"
        : query.error
          ? `Could not load: ${query.error.message}`
          : lines.length === 0
            ? `None of these drives has latency data for ${chosen ?? plan}.`
            : undefined;
  return (
    <div data-section="qos">
      <div className="compare-toolbar">
        <h2>Latency QoS</h2>
        <span className="compare-toolbar__spacer" />
        <label className="chart-control">
          Plan{" "}
          <select aria-label="QoS plan" value={plan} onChange={(e) => { setPlan(e.target.value); setStep(null); }}>
            {QOS_PLANS.map(([p, name]) => (
              <option key={p} value={p}>
                {words?.plans.get(p) ?? name}
              </option>
            ))}
          </select>
        </label>
        <label className="chart-control">
          Test{" "}
          <select aria-label="QoS test" value={chosen ?? ""} onChange={(e) => setStep(e.target.value)}>
            {(names.data ?? []).map((n) => (
              <option key={n} value={n}>
                {words?.tests.get(`${plan}:${n}`) ?? n}
              </option>
            ))}
          </select>
        </label>
        <label className="chart-control">
          I/O{" "}
          <select aria-label="QoS direction" value={direction} onChange={(e) => setDirection(e.target.value as (typeof DIRECTIONS)[number])}>
            {DIRECTIONS.map((d) => (
              <option key={d} value={d}>
                {d === "all" ? "all I/O" : d}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          className="button"
          disabled={rows.length === 0}
          onClick={() => downloadText(qosCsv(rows, { ...about, title: `QoS: ${stepLabel}` }), `${fileBase}-qos-${chosen ?? "table"}.csv`, "text/csv")}
        >
          QoS table CSV
        </button>
      </div>
      {rows.length > 0 && <QosTable rows={rows} caption={`QoS: ${stepLabel}, ${direction === "all" ? "all I/O" : direction}`} />}
      <div className="qos-grid">
        <ChartFrame
          title={histogramTitle}
          subtitle="% of I/Os against completion latency, log-spaced bins (20 a decade)"
          height={300}
          overlay={overlay}
          chartId="compare-qos-histogram"
          exportAs={
            overlay === undefined
              ? {
                  fileName: [fileBase, "latency-histogram", chosen ?? ""],
                  ...about,
                  title: histogramTitle,
                  legend: histogram.map((l) => ({ label: l.label, color: l.color, highlight: styles.get(l.driveId)?.underReview ?? false })),
                  csv: () => linesCsv(histogram, "latency_us", "share_pct", { ...about, title: histogramTitle }),
                }
              : undefined
          }
        >
          <LogLines lines={histogram} xLabel="latency" yLabel="% of I/Os" xLog steps xFormat={latencyTick} />
        </ChartFrame>
        <ChartFrame
          title={title}
          subtitle="share of I/Os slower than each latency (1 - CDF), log-log"
          height={300}
          overlay={overlay}
          chartId="compare-qos-exceedance"
          exportAs={
            // Only a chart with data goes into exports and the chart pack.
            overlay === undefined
              ? {
                  fileName: [fileBase, "latency-exceedance", chosen ?? ""],
                  ...about,
                  legend: lines.map((l) => ({ label: l.label, color: l.color, highlight: styles.get(l.driveId)?.underReview ?? false })),
                  csv: () => linesCsv(lines, "latency_us", "share_slower", about),
                }
              : undefined
          }
        >
          <LogLines lines={lines} xLabel="latency" yLabel="share slower" xLog yLog xFormat={latencyTick} yFormat={shareTick} />
        </ChartFrame>
      </div>
      <SweepCompare drives={drives} styles={styles} fileBase={fileBase} underReview={underReview} enabled />
    </div>
  );
}
