import { Link, useParams } from "react-router";
import { usePtsReport } from "../../api/pts/queries";
import type { PtsHeader, PtsReport, PtsSection } from "../../api/pts/types";
import { useRun } from "../../api/runs/queries";
import { useRunEvents } from "../../api/runs/events";
import { SimulatedBadge } from "../../components/badge/badge";
import { ErrorBox } from "../../components/error-box/error-box";
import { IsoBars } from "../../components/iso-bars/iso-bars";
import { ConvergenceChart, WindowChart, XYChart } from "../../components/pts-charts/pts-charts";
import { StatusBadge } from "../../components/status-badge/status-badge";
import { downloadText } from "../../lib/export-dom";
import { exportFileName, toCsv } from "../../lib/export-utils";
import { formatDecimalBytes, formatFullDateTime, formatMetric } from "../../lib/format-utils";
import { isActiveStatus, parseRunId } from "../../lib/run-utils";
import { formatBinaryBytes } from "../../lib/series-utils";
import { latencyTick } from "../../components/qos-charts/qos-utils";
import {
  blockSizeLabel,
  hirSeries,
  diHistogramsSubtitle,
  histogramLine,
  latencyRows,
  linesByMix,
  MIX_COLORS,
  pivot,
  pivotCsv,
  wsatSeries,
  formatSeconds,
  diCsv,
  diLines,
  latencyRoundLines,
  latencyRoundsCsv,
  xsrCsv,
  xsrLevelLine,
  xsrRecoveryAreas,
  type PivotTable,
} from "./pts-report-utils";
import "./pts-report-page.css";

/** /runs/:id/report: a SNIA PTS run's report in the specification's layout, printable. */
export function PtsReportPage() {
  const { id } = useParams();
  const runId = parseRunId(id);
  if (runId === null) {
    return (
      <div className="page">
        <ErrorBox error={`"${id ?? ""}" is not a run id.`} title="No such run" />
      </div>
    );
  }
  return <ReportView key={runId} runId={runId} />;
}

function ReportView({ runId }: { runId: number }) {
  const run = useRun(runId);
  const active = run.data ? isActiveStatus(run.data.status) : false;
  // One stream per page: its `round` and `run` events refetch the report.
  useRunEvents(runId, active);
  const report = usePtsReport(runId);
  if (report.isError) {
    return (
      <div className="page">
        <ErrorBox error={report.error} title="No PTS report" />
      </div>
    );
  }
  if (!report.data) {
    return (
      <div className="page" aria-busy="true">
        <p className="muted">Loading the report…</p>
      </div>
    );
  }
  return <Report report={report.data} />;
}

function provenanceOf(h: PtsHeader, simulated: boolean): string {
  return [
    h.drive,
    h.firmware ? `fw ${h.firmware}` : null,
    h.fio_version,
    (h.finished_at ?? h.started_at ?? "").slice(0, 10),
    simulated ? "simulated drive" : null,
  ]
    .filter(Boolean)
    .join(" · ");
}

function Report({ report }: { report: PtsReport }) {
  const h = report.header;
  const provenance = provenanceOf(h, report.simulated);
  const fileBase = ["pts", String(report.run_id)];
  return (
    <div className="page pts-report print-page">
      <div className="page-header">
        <div className="page-header__title">
          <h1>SNIA PTS report: {report.title}</h1>
          <StatusBadge status={report.status as never} />
          {report.simulated && <SimulatedBadge />}
        </div>
        <div className="pts-report__actions no-print">
          <Link to={`/runs/${report.run_id}`}>Run #{report.run_id}</Link>
          <button type="button" className="button" onClick={() => window.print()}>
            Print / save as PDF
          </button>
        </div>
      </div>
      <HeaderTable report={report} />
      {report.sections.map((section) => {
        const conditions = `${report.plan} · ${section.label}`;
        return (
          <section key={section.step_id} className="section print-section" aria-label={section.label}>
            <div className="section__header">
              <h2>{section.label}</h2>
              <StatusBadge status={section.status as never} />
            </div>
            <div className="section__body pts-report__charts">
              <ConvergenceChart section={section} provenance={provenance} conditions={conditions} fileBase={fileBase} />
              <WindowChart section={section} provenance={provenance} conditions={conditions} fileBase={fileBase} />
              <TestOutput report={report} section={section} provenance={provenance} conditions={conditions} fileBase={fileBase} />
            </div>
          </section>
        );
      })}
      {report.plan === "pts-throughput" && <ThroughputTable sections={report.sections} />}
      {report.hir && <Hir report={report} provenance={provenance} fileBase={fileBase} />}
      {report.xsr && <Xsr report={report} provenance={provenance} fileBase={fileBase} />}
    </div>
  );
}

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <tr>
      <th scope="row">{label}</th>
      <td>{children ?? "—"}</td>
    </tr>
  );
}

function cacheText(h: PtsHeader): string {
  const c = h.write_cache;
  if (!c) return "not recorded";
  const state = (v: boolean | null) => (v === null ? "unknown" : v ? "enabled" : "disabled");
  if (!c.supported) return `unchanged (${c.detail})`;
  return `${state(c.after)} (was ${state(c.before)}; ${c.method}, not saved: put back at the end)`;
}

/** The specification's header: who, what drive, how it was prepared, and with what. */
function HeaderTable({ report }: { report: PtsReport }) {
  const h = report.header;
  const host = h.host ?? {};
  return (
    <section className="section print-section" aria-label="Test and drive">
      <div className="section__header">
        <h2>Test and drive</h2>
      </div>
      <div className="section__body">
        <table className="table pts-report__header" data-testid="pts-header">
          <tbody>
            <Fact label="Test sponsor">{h.sponsor}</Fact>
            <Fact label="Test">{`${report.title} (${report.plan})`}</Fact>
            <Fact label="Drive">{h.drive}</Fact>
            <Fact label="Firmware">{h.firmware}</Fact>
            <Fact label="Capacity">
              {formatDecimalBytes(h.capacity_bytes)}
              {h.tested_bytes ? ` (tested: ${formatBinaryBytes(h.tested_bytes)})` : ""}
            </Fact>
            <Fact label="Interface">{h.interface}</Fact>
            <Fact label="Profile">
              {h.profile ? `${h.profile[0]!.toUpperCase()}${h.profile.slice(1)}` : null}
              {h.active_range_pct ? ` · ActiveRange ${h.active_range_pct}%` : ""}
              {h.threads ? ` · TC ${h.threads}, QD ${h.iodepth}` : ""}
              {h.demand ? ` · ${h.demand}` : ""}
            </Fact>
            <Fact label="Write cache">{cacheText(h)}</Fact>
            <Fact label="Purge">{h.purge ? `${h.purge.method} (${h.purge.detail})` : "not yet"}</Fact>
            <Fact label="Preconditioning">{h.preconditioning.join("; ")}</Fact>
            <Fact label="Steady-state convergence">{h.convergence}</Fact>
            <Fact label="Host">
              {[host.hostname, host.cpu, host.os, host.kernel].filter(Boolean).join(" · ")}
            </Fact>
            <Fact label="fio">{[h.fio_version, h.ioengine, h.randseed != null ? `randseed ${h.randseed}` : null].filter(Boolean).join(" · ")}</Fact>
            <Fact label="Run">{`#${report.run_id}, ${formatFullDateTime(h.started_at)} to ${formatFullDateTime(h.finished_at)}`}</Fact>
          </tbody>
        </table>
      </div>
    </section>
  );
}

interface OutputProps {
  report: PtsReport;
  section: PtsSection;
  provenance: string;
  conditions: string;
  fileBase: string[];
}

function windowNote(section: PtsSection): string {
  if (!section.window) return "";
  const [a, b] = section.window;
  return section.convergence.steady ? `measurement window: rounds ${a}-${b}` : `rounds ${a}-${b}, NOT steady`;
}

function TestOutput(props: OutputProps) {
  const { section } = props;
  if (!section.table) {
    return <p className="muted pts-report__wide">The window's table appears when steady state is reached or the step ends.</p>;
  }
  switch (section.test) {
    case "pts-iops":
      return <IopsOutput {...props} />;
    case "pts-latency":
      return <LatencyOutput {...props} />;
    case "pts-wsat":
      return <WsatOutput {...props} />;
    case "pts-dirth":
    case "pts-ecw":
      return section.di ? <DemandIntensityOutput {...props} /> : null;
    case "pts-cbw":
      return <CbwOutput {...props} />;
    default:
      return null;
  }
}

function PivotView({ table, caption, unit }: { table: PivotTable; caption: string; unit: string }) {
  return (
    <div className="table-wrap pts-report__wide">
      <table className="table pts-report__pivot" data-testid="pts-pivot">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Block size</th>
            {table.mixes.map((m) => (
              <th key={m} scope="col" className="num">
                R/W {m}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.sizes.map((s, i) => (
            <tr key={s.bs}>
              <th scope="row">{s.label}</th>
              {(table.cells[i] ?? []).map((v, j) => (
                <td key={j} className="num" title={v === null ? undefined : `${v.toFixed(0)} ${unit}`}>
                  {v === null ? "—" : formatMetric(v)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function IopsOutput({ section, provenance, conditions, fileBase }: OutputProps) {
  const table = pivot(section, "iops");
  const lines = linesByMix(table);
  const note = windowNote(section);
  const kib = table.sizes.map((s) => s.bytes / 1024).sort((a, b) => a - b);
  return (
    <>
      <PivotView table={table} caption={`Average IOPS (reads and writes) by block size and read/write mix, ${note}`} unit="IOPS" />
      <XYChart
        title="IOPS against block size"
        subtitle={`one line per read/write mix · ${note}`}
        xLabel="block size (KiB)"
        yLabel="IOPS"
        chartId="pts-iops-2d"
        xLog
        xTicks={kib}
        xFormat={(v) => (v < 1 ? String(v) : String(Math.round(v)))}
        series={lines}
        exportAs={{
          fileName: [...fileBase, "iops-by-block-size"],
          title: "IOPS against block size, per read/write mix",
          conditions,
          provenance,
          csv: () => pivotCsv(table, "block_size"),
        }}
      />
      <IsoBars
        title="IOPS: block size x read/write mix"
        subtitle={`3D bar plot · ${note}`}
        cells={table.cells}
        rowLabels={table.sizes.map((s) => s.label)}
        colLabels={table.mixes}
        colors={table.mixes.map((m) => MIX_COLORS[m] ?? "#2563eb")}
        exportAs={{
          fileName: [...fileBase, "iops-3d"],
          title: "IOPS by block size and read/write mix",
          conditions,
          provenance,
          csv: () => pivotCsv(table, "block_size"),
        }}
      />
    </>
  );
}

function LatencyOutput({ section, provenance, conditions, fileBase }: OutputProps) {
  const rows = latencyRows(section);
  const notes = rows.filter((r) => r.p99999 === null && r.p99999Note);
  // Too few I/Os is the usual reason: said once for all, the counts are in the table.
  const few = notes.filter((r) => r.p99999Note!.startsWith("not enough I/Os"));
  const other = notes.filter((r) => !few.includes(r));
  const colors = ["#1d4ed8", "#0891b2", "#059669", "#ca8a04", "#ea580c", "#c2410c", "#9333ea", "#db2777", "#475569"];
  const series = section.elements.map((e, i) => ({
    key: e.name,
    label: e.label,
    color: colors[i % colors.length]!,
    points: histogramLine(section, e.name, "all"),
  }));
  return (
    <>
      <div className="table-wrap pts-report__wide">
        <table className="table" data-testid="pts-latency">
          <caption>Response times (fio completion latency, µs), {windowNote(section)}</caption>
          <thead>
            <tr>
              <th scope="col">Element</th>
              <th scope="col" className="num">Average</th>
              <th scope="col" className="num">Maximum</th>
              <th scope="col" className="num">p99.999</th>
              <th scope="col" className="num">I/Os</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.name}>
                <th scope="row">{r.label}</th>
                <td className="num">{formatMetric(r.mean)}</td>
                <td className="num">{formatMetric(r.max)}</td>
                <td className="num" title={r.p99999Note ?? undefined}>
                  {r.p99999 === null ? "n/a" : formatMetric(r.p99999)}
                </td>
                <td className="num">{r.ios === null ? "—" : r.ios.toLocaleString("en-US")}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {notes.length > 0 && (
          <p className="muted" data-testid="pts-latency-notes">
            {few.length > 0 &&
              `p99.999 n/a for ${few.length === rows.length ? "every element" : few.map((r) => r.label).join(", ")}: ` +
                "the window holds fewer than the 100,000 I/Os five nines need (the I/Os column; each cell's tooltip says so). " +
                "Longer rounds, or more of them, give them. "}
            {other.map((r) => `p99.999 n/a for ${r.label}: ${r.p99999Note}. `).join("")}
          </p>
        )}
      </div>
      {(["mean", "max"] as const).map((field) => (
        <XYChart
          key={field}
          title={field === "mean" ? "Average response time per round" : "Maximum response time per round"}
          subtitle={`µs, fio completion latency of each element${field === "max" ? ", its slowest I/O" : ""} · ${windowNote(section)}`}
          xLabel="round"
          yLabel="µs"
          chartId={`pts-latency-rounds-${field}`}
          series={latencyRoundLines(section, field).map((l, i) => ({ ...l, color: colors[i % colors.length]! }))}
          exportAs={{
            fileName: [...fileBase, `latency-${field}-per-round`],
            title: `${field === "mean" ? "Average" : "Maximum"} response time per round`,
            conditions,
            provenance,
            csv: () => latencyRoundsCsv(section),
          }}
        />
      ))}
      <XYChart
        title="Response-time histograms"
        subtitle={`share of I/Os per latency bucket (20 per decade) · ${windowNote(section)}`}
        xLabel="latency"
        yLabel="% of I/Os"
        xFormat={latencyTick}
        chartId="pts-latency-histograms"
        xLog
        series={series}
        exportAs={{
          fileName: [...fileBase, "latency-histograms"],
          title: "Response-time histograms of the measurement window",
          conditions,
          provenance,
          csv: () => toCsv(["element", "upper_edge_us", "share_pct"], series.flatMap((s) => s.points.map(([x, y]) => [s.key, x, y]))),
        }}
      />
    </>
  );
}

const DI_POINTS = [
  ["max", "Maximum IOPS point", "#c2410c"],
  ["mid", "Middle IOPS point", "#1d4ed8"],
  ["min", "Minimum IOPS point", "#059669"],
] as const;

/** DIRTH and ECW: the demand-intensity curve, IOPS against response time, the three IOPS
 * points with their histograms, and the finding in words. */
function DemandIntensityOutput({ section, provenance, conditions, fileBase }: OutputProps) {
  const di = section.di!;
  const lines = diLines(di);
  const note = windowNote(section);
  const ceilingMs = di.art_ceiling_us / 1000;
  const stimulus = section.stimulus ?? "";
  const hist = DI_POINTS.flatMap(([key, label, color]) => {
    const p = di[key];
    if (!p) return [];
    return [{ key, label: `${label}: TC${p.tc}/QD${p.qd}`, color, points: histogramLine(section, p.name, "all") }];
  });
  const tocs = [...new Set(di.points.map((p) => p.toc))].sort((a, b) => a - b);
  return (
    <>
      {di.finding && (
        <p className="pts-report__wide" data-testid="pts-di-finding">
          {di.finding}.
        </p>
      )}
      {section.histograms_source && (
        <p className="pts-report__wide muted" data-testid="pts-di-histograms-source">
          Histograms at the three points: {section.histograms_source}.
        </p>
      )}
      <div className="table-wrap pts-report__wide">
        <table className="table" data-testid="pts-di-points">
          <caption>
            The IOPS points ({stimulus}; ART ceiling {ceilingMs} ms) · {note}
          </caption>
          <thead>
            <tr>
              <th scope="col">Point</th>
              <th scope="col">TC / QD</th>
              <th scope="col" className="num">TOC</th>
              <th scope="col" className="num">IOPS</th>
              <th scope="col" className="num">ART (ms)</th>
              <th scope="col" className="num">MRT (ms)</th>
            </tr>
          </thead>
          <tbody>
            {DI_POINTS.map(([key, label]) => {
              const p = di[key];
              return (
                <tr key={key} data-testid={`pts-di-${key}`}>
                  <th scope="row">{label}</th>
                  <td>{p ? `TC ${p.tc} / QD ${p.qd}` : "none within the ceiling"}</td>
                  <td className="num">{p ? p.toc : "—"}</td>
                  <td className="num">{p ? formatMetric(p.iops) : "—"}</td>
                  <td className="num">{p?.art_us != null ? (p.art_us / 1000).toFixed(2) : "—"}</td>
                  <td className="num">{p?.mrt_us != null ? (p.mrt_us / 1000).toFixed(2) : "—"}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <XYChart
        title="Demand intensity: IOPS against total outstanding I/O"
        subtitle={`one line per thread count, TOC = TC x QD · ${stimulus} · ${note}`}
        xLabel="TOC"
        yLabel="IOPS"
        chartId="pts-di-curve"
        xLog
        xTicks={tocs}
        xFormat={(v) => String(Math.round(v))}
        series={lines.byToc}
        exportAs={{ fileName: [...fileBase, "demand-intensity"], title: "Demand intensity: IOPS against TOC", conditions, provenance,
          csv: () => diCsv(di) }}
      />
      <XYChart
        title="IOPS against average response time"
        subtitle={`ART in ms, one line per thread count from QD 1 up; ceiling for the maximum IOPS point ${ceilingMs} ms · ${note}`}
        xLabel="IOPS"
        yLabel="ART (ms)"
        chartId="pts-di-hockey"
        series={lines.byIops}
        exportAs={{ fileName: [...fileBase, "iops-vs-response-time"], title: "IOPS against average response time", conditions, provenance,
          csv: () => diCsv(di) }}
      />
      <XYChart
        title="Response-time histograms at the maximum, middle and minimum IOPS points"
        subtitle={diHistogramsSubtitle(section, note)}
        xLabel="latency"
        yLabel="% of I/Os"
        xFormat={latencyTick}
        chartId="pts-di-histograms"
        xLog
        series={hist}
        exportAs={{ fileName: [...fileBase, "di-histograms"], title: "Response-time histograms at the IOPS points", conditions, provenance,
          csv: () => toCsv(["point", "upper_edge_us", "share_pct"], hist.flatMap((s) => s.points.map(([x, y]) => [s.key, x, y]))) }}
      />
    </>
  );
}

/** CBW: the composite workload's figures over the window and its histogram. */
function CbwOutput({ section, provenance, conditions, fileBase }: OutputProps) {
  const row = section.table?.["cbw"] ?? {};
  const pct = section.percentiles?.["cbw"]?.["all"];
  const hist = histogramLine(section, "cbw", "all");
  return (
    <>
      <div className="table-wrap pts-report__wide">
        <table className="table" data-testid="pts-cbw">
          <caption>{section.stimulus ?? "composite workload"} · {windowNote(section)}</caption>
          <thead>
            <tr>
              <th scope="col" className="num">IOPS</th>
              <th scope="col" className="num">MB/s</th>
              <th scope="col" className="num">ART (µs)</th>
              <th scope="col" className="num">MRT (µs)</th>
              <th scope="col" className="num">p99.99 (µs)</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <td className="num">{formatMetric(row["iops"] ?? null)}</td>
              <td className="num">{formatMetric(row["mbps"] ?? null)}</td>
              <td className="num">{formatMetric(row["lat_mean_us"] ?? null)}</td>
              <td className="num">{formatMetric(row["lat_max_us"] ?? null)}</td>
              <td className="num" title={pct?.unsupported?.["99.99"]}>{pct?.["99.99"] == null ? "n/a" : formatMetric(pct["99.99"])}</td>
            </tr>
          </tbody>
        </table>
      </div>
      <XYChart
        title="Response-time histogram"
        subtitle={`all I/Os of the window's rounds · ${windowNote(section)}`}
        xLabel="latency"
        yLabel="% of I/Os"
        xFormat={latencyTick}
        chartId="pts-cbw-histogram"
        xLog
        series={[{ key: "cbw", label: "composite workload", color: "#1d4ed8", points: hist }]}
        exportAs={{ fileName: [...fileBase, "cbw-histogram"], title: "Composite workload: response-time histogram", conditions, provenance,
          csv: () => toCsv(["upper_edge_us", "share_pct"], hist) }}
      />
    </>
  );
}

function WsatOutput({ section, provenance, conditions, fileBase }: OutputProps) {
  const s = wsatSeries(section);
  const color = "#c2410c";
  const hist = histogramLine(section, section.track.element, "write");
  const capacity = section.capacity_bytes ?? 0;
  return (
    <>
      <XYChart
        title="IOPS against time"
        subtitle={`4 KiB random write, one point per round · stopped: ${section.stop ?? "running"}`}
        xLabel="minutes"
        yLabel="IOPS"
        chartId="pts-wsat-time"
        series={[{ key: "iops", label: "IOPS", color, points: s.byTime }]}
        exportAs={{ fileName: [...fileBase, "wsat-time"], title: "Write saturation: IOPS against time", conditions, provenance,
          csv: () => toCsv(["minutes", "iops"], s.byTime) }}
      />
      <XYChart
        title="IOPS against total data written"
        subtitle={`TGBW in GB (10^9 B); tested capacity ${formatBinaryBytes(capacity)} = 1 drive fill`}
        xLabel="GB written"
        yLabel="IOPS"
        chartId="pts-wsat-tgbw"
        series={[{ key: "iops", label: "IOPS", color, points: s.byGb }]}
        exportAs={{ fileName: [...fileBase, "wsat-tgbw"], title: "Write saturation: IOPS against total GB written", conditions, provenance,
          csv: () => toCsv(["gb_written", "drive_fills", "iops"], s.byGb.map(([gb, v], i) => [gb, s.byFills[i]?.[0] ?? "", v])) }}
      />
      <XYChart
        title="Response-time histogram of the last part"
        subtitle={`${windowNote(section)}`}
        xLabel="latency"
        yLabel="% of I/Os"
        xFormat={latencyTick}
        chartId="pts-wsat-histogram"
        xLog
        series={[{ key: "write", label: "4 KiB random write", color, points: hist }]}
        exportAs={{ fileName: [...fileBase, "wsat-histogram"], title: "Write saturation: response times of the last rounds", conditions, provenance,
          csv: () => toCsv(["upper_edge_us", "share_pct"], hist) }}
      />
    </>
  );
}

function ThroughputTable({ sections }: { sections: PtsSection[] }) {
  return (
    <section className="section print-section" aria-label="Throughput">
      <div className="section__header">
        <h2>Throughput</h2>
        <span className="muted">MB/s (10^6 bytes/s), average of each measurement window</span>
      </div>
      <div className="section__body table-wrap">
        <table className="table" data-testid="pts-throughput">
          <thead>
            <tr>
              <th scope="col">Block size</th>
              <th scope="col" className="num">Sequential read</th>
              <th scope="col" className="num">Sequential write</th>
              <th scope="col">Window</th>
            </tr>
          </thead>
          <tbody>
            {sections.map((s) => {
              const bs = s.elements[0]?.bs ?? "";
              const read = s.table?.[`seq-read-${bs}`]?.read_mbps;
              const write = s.table?.[`seq-write-${bs}`]?.write_mbps;
              return (
                <tr key={s.step_id}>
                  <th scope="row">{blockSizeLabel(bs)}</th>
                  <td className="num">{formatMetric(read ?? null)}</td>
                  <td className="num">{formatMetric(write ?? null)}</td>
                  <td>{windowNote(s) || "—"}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function Hir({ report, provenance, fileBase }: { report: PtsReport; provenance: string; fileBase: string[] }) {
  const hir = report.hir!;
  const s = hirSeries(hir.sets);
  const colors = ["#1d4ed8", "#059669", "#ca8a04", "#ea580c", "#9333ea"];
  const series = hir.sets.map((set, i) => ({
    key: `wait-${set.wait_s}`,
    label: `${set.wait_s} s wait`,
    color: colors[i % colors.length]!,
    points: s.points.filter((p) => p.wait === set.wait_s).map((p): [number, number] => [p.t, p.iops]),
  }));
  series.push({
    key: "baseline",
    label: "return to baseline",
    color: "#475569",
    points: s.baselines.flatMap((b) => [[(b.x1 + b.x2) / 2, b.iops] as [number, number]]),
  });
  return (
    <section className="section print-section" aria-label="Host idle recovery">
      <div className="section__header">
        <h2>Host idle recovery</h2>
        <span className="muted">baseline (steady state) {formatMetric(hir.baseline_iops)} IOPS</span>
      </div>
      <div className="section__body pts-report__charts">
        <XYChart
          title="IOPS against time, wait states marked"
          subtitle="each dot: one write period's IOPS; shaded: a set of write periods with its wait"
          xLabel="seconds since the first wait state"
          yLabel="IOPS"
          chartId="pts-hir"
          scatter
          areas={s.areas}
          series={series}
          exportAs={{ fileName: [...fileBase, "hir"], title: "Host idle recovery: IOPS against time", conditions: `${report.plan}`, provenance,
            csv: () => toCsv(["t_s", "iops", "wait_s"], s.points.map((p) => [p.t, p.iops, p.wait])) }}
        />
        <div className="table-wrap pts-report__wide">
          <table className="table" data-testid="pts-hir">
            <thead>
              <tr>
                <th scope="col">Wait state</th>
                <th scope="col" className="num">Cycles</th>
                <th scope="col" className="num">Write-period IOPS</th>
                <th scope="col" className="num">vs baseline</th>
                <th scope="col" className="num">Return to baseline IOPS</th>
              </tr>
            </thead>
            <tbody>
              {hir.sets.map((set) => (
                <tr key={set.wait_s}>
                  <th scope="row">{set.wait_s} s</th>
                  <td className="num">{`${set.cycles} of ${set.planned_cycles}`}</td>
                  <td className="num">{formatMetric(set.burst_iops)}</td>
                  <td className="num">
                    {set.burst_iops !== null && hir.baseline_iops ? `${((set.burst_iops / hir.baseline_iops) * 100).toFixed(0)}%` : "—"}
                  </td>
                  <td className="num">{formatMetric(set.baseline?.iops ?? null)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
    </section>
  );
}

const LEVEL_COLOR = "#1b2530";

function Xsr({ report, provenance, fileBase }: { report: PtsReport; provenance: string; fileBase: string[] }) {
  const { stimuli, transitions } = report.xsr!;
  const colors = ["#1d4ed8", "#c2410c", "#059669"];
  const levels = xsrLevelLine(stimuli);
  const line = (key: "mbps_series" | "lat_series" | "lat_max_series") =>
    stimuli.map((s, i) => ({ key: s.name, label: s.label, color: colors[i % colors.length]!, points: s[key] }));
  const csv = (key: "mbps_series" | "lat_series" | "lat_max_series", column: string) => () =>
    toCsv(["stimulus", "t_s", column], stimuli.flatMap((s) => s[key].map(([t, v]) => [s.name, t, v])));
  const rule = stimuli.find((s) => s.min_time_s !== null);
  const ruleText = rule
    ? `levels differ by ${Math.round((rule.min_rel_change ?? 0) * 100)}% or more and last ${formatSeconds(rule.min_time_s)} or longer`
    : "levels appear as each stimulus ends";
  return (
    <section className="section print-section" aria-label="Cross-stimulus recovery">
      <div className="section__header">
        <h2>Cross-stimulus recovery</h2>
        <span className="muted">per-second samples, downsampled keeping every minimum and maximum</span>
        <button type="button" className="button no-print" onClick={() => downloadText(xsrCsv(stimuli), exportFileName([...fileBase, "xsr"], "csv"), "text/csv")}>
          XSR table CSV
        </button>
      </div>
      <div className="section__body pts-report__charts">
        <div className="table-wrap pts-report__wide">
          <table className="table" data-testid="pts-xsr-transitions">
            <caption>
              Recovery time after each transition: from the new stimulus's start to the start of the level its throughput settled at
              and held (change-point levels of its per-second MB/s: {ruleText})
            </caption>
            <thead>
              <tr>
                <th scope="col">Transition</th>
                <th scope="col" className="num">Recovery time</th>
                <th scope="col" className="num">Settled before (MB/s)</th>
                <th scope="col" className="num">Settled after (MB/s)</th>
                <th scope="col" className="num">After / before</th>
              </tr>
            </thead>
            <tbody>
              {transitions.map((t) => (
                <tr key={t.to}>
                  <th scope="row">{t.label}</th>
                  <td className="num" data-testid={`pts-xsr-recovery-${t.to}`}>{formatSeconds(t.recovery_s)}</td>
                  <td className="num">{formatMetric(t.before_mbps)}</td>
                  <td className="num">{formatMetric(t.settled_mbps)}</td>
                  <td className="num">{t.ratio === null ? "—" : `${(t.ratio * 100).toFixed(0)}%`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <XYChart
          title="Throughput against time"
          subtitle="MB/s (10^6 B/s) of each stimulus · dashed: the levels found · shaded: recovery after each transition"
          xLabel="seconds since the first stimulus began"
          yLabel="MB/s"
          chartId="pts-xsr-mbps"
          areas={xsrRecoveryAreas(transitions)}
          series={[
            ...line("mbps_series"),
            // One dashed line per stimulus: the levels of one do not run on into the next.
            ...stimuli.map((s) => ({ key: `levels-${s.name}`, label: "levels found", color: LEVEL_COLOR, points: xsrLevelLine([s]), dashed: true })),
          ]}
          exportAs={{ fileName: [...fileBase, "xsr-mbps"], title: "Cross-stimulus recovery: throughput against time", conditions: report.plan, provenance,
            legend: [
              ...stimuli.map((s, i) => ({ label: s.label, color: colors[i % colors.length]! })),
              ...(levels.length ? [{ label: "levels found (dashed)", color: LEVEL_COLOR }] : []),
            ],
            csv: () => toCsv(["stimulus", "t_s", "mbps", "level_mbps"], [
              ...stimuli.flatMap((s) => s.mbps_series.map(([t, v]) => [s.name, t, v, ""])),
              ...levels.map(([t, v]) => ["levels", t, "", v]),
            ]) }}
        />
        <XYChart
          title="Average response time against time"
          subtitle="µs, fio completion latency, mean of each second"
          xLabel="seconds since the first stimulus began"
          yLabel="µs"
          chartId="pts-xsr-latency"
          series={line("lat_series")}
          exportAs={{ fileName: [...fileBase, "xsr-latency"], title: "Cross-stimulus recovery: average response time against time", conditions: report.plan, provenance, csv: csv("lat_series", "lat_mean_us") }}
        />
        <XYChart
          title="Maximum response time against time"
          subtitle="µs, the slowest completion of each second"
          xLabel="seconds since the first stimulus began"
          yLabel="µs"
          chartId="pts-xsr-latency-max"
          series={line("lat_max_series")}
          exportAs={{ fileName: [...fileBase, "xsr-latency-max"], title: "Cross-stimulus recovery: maximum response time against time", conditions: report.plan, provenance, csv: csv("lat_max_series", "lat_max_us") }}
        />
        <div className="table-wrap pts-report__wide">
          <table className="table" data-testid="pts-xsr">
            <caption>Each stimulus: MB/s and response times from fio's totals, levels from its per-second samples</caption>
            <thead>
              <tr>
                <th scope="col">Stimulus</th>
                <th scope="col" className="num">MB/s</th>
                <th scope="col" className="num">First level (MB/s)</th>
                <th scope="col" className="num">Settled level (MB/s)</th>
                <th scope="col" className="num">Recovery time</th>
                <th scope="col" className="num">Average response time (<span className="unit">µs</span>)</th>
                <th scope="col" className="num">Maximum response time (<span className="unit">µs</span>)</th>
              </tr>
            </thead>
            <tbody>
              {stimuli.map((s) => (
                <tr key={s.name}>
                  <th scope="row">{s.label}</th>
                  <td className="num">{formatMetric(s.mbps)}</td>
                  <td className="num">{formatMetric(s.initial_mbps)}</td>
                  <td className="num">{formatMetric(s.settled_mbps)}</td>
                  <td className="num" title={s.role === "xsr-1" ? "the first stimulus follows a purge, not a transition" : undefined}>
                    {s.role === "xsr-1" ? "—" : formatSeconds(s.recovery_s)}
                  </td>
                  <td className="num">{formatMetric(s.lat_mean_us)}</td>
                  <td className="num">{formatMetric(s.lat_max_us)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
    </section>
  );
}
