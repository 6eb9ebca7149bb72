import { useMemo, useState, type ReactNode } from "react";
import { CompareChartsContext, useCompareCharts } from "../../api/results/charts";
import type { Comparison, CompareMetric } from "../../api/results/types";
import type { DriveStyle } from "../../lib/house-style";
import { formatMetric } from "../../lib/format-utils";
import { MetricBars } from "../bar-chart/bar-chart";
import { barGroups, headlineMetrics, shownMetrics } from "../bar-chart/bar-chart-utils";
import { ConsistencyScatter } from "../consistency-scatter/consistency-scatter";
import { HdTachChart } from "../hdtach-chart/hdtach-chart";
import { groupByPlan, MetricSelect } from "../metric-select/metric-select";
import { PriceTableSection } from "../price-table/price-table";
import { PtsCompare } from "../pts-compare/pts-compare";
import { SlcCompare } from "../slc-recovery/slc-compare";
import { BurstsCompare } from "../burst-chart/bursts-compare";
import { MixedCompare } from "../mixed-curves/mixed-curves";
import { FileCopyCompare } from "../file-copy/file-copy-compare";
import { DesktopCompare } from "../desktop-compare/desktop-compare";
import { FullDriveCompare } from "../full-drive/full-drive-compare";
import { QosCompare } from "../qos-charts/compare-qos";
import { testWords } from "../qos-charts/qos-utils";
import { StallTimeline } from "../stall-timeline/stall-timeline";
import { ThermalCompare } from "../thermal-chart/thermal-compare";
import { TransferCurves } from "../transfer-curves/transfer-curves";
import "./comparison-view.css";

/** What every section of a comparison is drawn from. */
export interface SectionContext {
  drives: number[];
  styles: Map<number, DriveStyle>;
  fileBase: string;
  comparison: Comparison | undefined;
  /** The drive under review, when there is one: its id and name. */
  reviewed: { id: number; name: string } | null;
  /** Its id, known before the drives' names are (the charts' answer is asked with it). */
  underReview: number | null;
  /** Shown for a reader (shared link, printed report): no controls that change the data. */
  readOnly: boolean;
}

export interface Section {
  id: string;
  /** The heading of the section in a report. */
  title: string;
  /** The plans whose results it draws: a report leaves out a section none of them ran. */
  plans: string[];
  /** Shown only where some drive ran one of its plans, on the Compare page too: a test few
   * reviews run (its chart would ask for data of its own on every first open). */
  onlyWhenRun?: boolean;
  render: (ctx: SectionContext) => ReactNode;
}

/**
 * The charts of a comparison in article order, after the bars: the Compare page, a shared
 * link and the printed report draw these, so a new chart (latency QoS, a queue-depth sweep)
 * is one more entry here and shows up in all three.
 */
export const CHART_SECTIONS: Section[] = [
  {
    id: "hdtach",
    plans: ["hdtach", "trim-validation"],
    title: "Throughput against position",
    render: (c) => <HdTachChart drives={c.drives} styles={c.styles} fileBase={c.fileBase} />,
  },
  {
    id: "slc",
    plans: ["slc-cache"],
    onlyWhenRun: true,
    title: "SLC cache and its recovery",
    render: (c) => <SlcCompare comparison={c.comparison} drives={c.drives} />,
  },
  {
    id: "bursts",
    plans: ["qd1-bursts"],
    title: "QD1 burst performance",
    onlyWhenRun: true,
    render: (c) => <BurstsCompare {...c} />,
  },
  {
    id: "mixed",
    plans: ["mixed"],
    onlyWhenRun: true,
    title: "Mixed random and mixed sequential",
    render: (c) => (
      <MixedCompare drives={c.drives} styles={c.styles} fileBase={c.fileBase} comparison={c.comparison} />
    ),
  },
  {
    id: "file-copy",
    plans: ["file-copy"],
    onlyWhenRun: true,
    title: "File copy after deletions",
    render: (c) => <FileCopyCompare comparison={c.comparison} drives={c.drives} />,
  },
  {
    id: "cdm",
    plans: ["cdm-style"],
    onlyWhenRun: true,
    title: "CrystalDiskMark-style figures",
    render: (c) => (
      <DesktopCompare plan="cdm-style" comparison={c.comparison} drives={c.drives} fileBase={c.fileBase} />
    ),
  },
  {
    id: "asssd",
    plans: ["as-ssd-style"],
    onlyWhenRun: true,
    title: "AS-SSD-style figures",
    render: (c) => (
      <DesktopCompare plan="as-ssd-style" comparison={c.comparison} drives={c.drives} fileBase={c.fileBase} />
    ),
  },
  {
    id: "full-drive",
    plans: ["full-drive"],
    onlyWhenRun: true,
    title: "Empty against full",
    render: (c) => (
      <FullDriveCompare comparison={c.comparison} drives={c.drives} styles={c.styles} fileBase={c.fileBase} />
    ),
  },
  {
    id: "consistency",
    plans: ["consistency"],
    title: "Performance consistency",
    render: (c) => (
      <ConsistencyScatter drives={c.drives} styles={c.styles} fileBase={c.fileBase} />
    ),
  },
  {
    id: "transfer",
    plans: ["transfer-size"],
    title: "Transfer size",
    render: (c) => <TransferCurves drives={c.drives} styles={c.styles} fileBase={c.fileBase} />,
  },
  {
    id: "stalls",
    plans: ["write-hitching", "trim-performance"],
    title: "Write stalls",
    render: (c) => <StallTimeline drives={c.drives} styles={c.styles} fileBase={c.fileBase} />,
  },
  {
    id: "thermal",
    plans: ["thermal"],
    onlyWhenRun: true,
    title: "Thermal throttling",
    render: (c) => <ThermalCompare drives={c.drives} styles={c.styles} fileBase={c.fileBase} />,
  },
  {
    id: "qos",
    plans: ["four-corners", "qd-sweep", "transfer-size"],
    title: "Latency QoS",
    render: (c) => (
      <QosCompare
        drives={c.drives}
        styles={c.styles}
        fileBase={c.fileBase}
        underReview={c.underReview}
        words={testWords(c.comparison?.metrics ?? [])}
      />
    ),
  },
  {
    id: "pts",
    plans: ["pts-steady-state", "pts-iops", "pts-throughput", "pts-latency", "pts-wsat", "pts-hir", "pts-xsr", "pts-dirth", "pts-ecw", "pts-cbw"],
    title: "SNIA PTS",
    render: (c) => <PtsCompare driveIds={c.drives} underReview={c.underReview} />,
  },
];

function Prices({ ctx }: { ctx: SectionContext }) {
  const metrics = ctx.comparison?.metrics ?? [];
  const headline = headlineMetrics(metrics.map((m) => m.metric));
  const [metric, setMetric] = useState<string | null>(null);
  const chosen = metric ?? headline[0] ?? metrics.find((m) => m.performance)?.metric ?? null;
  return (
    <PriceTableSection
      drives={ctx.drives}
      metrics={metrics}
      metric={chosen}
      onMetric={setMetric}
      fileBase={ctx.fileBase}
    />
  );
}

export const PRICE_SECTION: Section = {
  id: "prices",
  plans: [],
  title: "Prices and performance per dollar",
  render: (c) => <Prices ctx={c} />,
};

interface Props extends SectionContext {
  pending: boolean;
  /** Metrics the reader added to the headline ones (Compare page); none: headline only. */
  extra?: string[];
  onAdd?: (metric: string) => void;
  /** Only the sections of tests some drive ran (a report: no empty boxes on paper). */
  onlyMeasured?: boolean;
}

/** The plans the comparison has results of ("four-corners", "consistency", ...). */
export function measuredPlans(comparison: Comparison | undefined): Set<string> {
  return new Set((comparison?.metrics ?? []).map((m) => m.metric.split(":")[0]!));
}

/** The bars of the chosen metrics, then every chart section, then the price table. The
 * charts' data comes in one answer (GET /api/compare/charts), asked here once for all of
 * them. */
export function ComparisonView(props: Props) {
  const { comparison, pending, extra = [], onAdd, onlyMeasured = false } = props;
  const charts = useCompareCharts(props.drives, props.underReview);
  const measured = useMemo(() => measuredPlans(comparison), [comparison]);
  const sections = [...CHART_SECTIONS, PRICE_SECTION].filter(
    (s) =>
      !(onlyMeasured || s.onlyWhenRun) ||
      s.plans.length === 0 ||
      s.plans.some((p) => measured.has(p)),
  );
  const all = useMemo(() => comparison?.metrics ?? [], [comparison]);
  const wanted = useMemo(() => shownMetrics(all, extra), [all, extra]);
  const groups = useMemo(
    () => barGroups(all, wanted, props.reviewed),
    [all, wanted, props.reviewed],
  );
  return (
    <CompareChartsContext.Provider value={charts}>
      <section aria-label="Results" className="comparison-section" data-section="results">
        <div className="compare-toolbar">
          <h2>Results, best first</h2>
          <span className="compare-toolbar__spacer" />
          {onAdd && (
            <MetricSelect
              label="Add a metric"
              placeholder="choose…"
              metrics={all.filter((m) => !wanted.includes(m.metric))}
              value=""
              onChange={onAdd}
              searchable
            />
          )}
        </div>
        {pending ? (
          <p className="muted" style={{ minHeight: 120 }}>
            Loading results…
          </p>
        ) : groups.length === 0 ? (
          <p className="muted">These drives have no results in common yet.</p>
        ) : (
          <div className="compare-grid">
            {groups.map((g) => (
              <div className="compare-card" key={g.key}>
                <MetricBars group={g} styles={props.styles} fileBase={props.fileBase} />
              </div>
            ))}
          </div>
        )}
      </section>
      {sections.map((s) => (
        <section
          key={s.id}
          className="compare-card comparison-section"
          data-section={s.id}
          aria-label={s.title}
        >
          {s.render(props)}
        </section>
      ))}
    </CompareChartsContext.Provider>
  );
}

/** Every metric of a comparison as a table, grouped by plan and test, in words: one row per
 * metric, one column per drive (in the order chosen), the best ranked value bold; each plan's
 * warnings once above its table. The metric's key (the api's and the CSV's) is its row's
 * tooltip. */
export function AllResults({
  comparison,
  drives,
  open = false,
}: {
  comparison: Comparison;
  /** The drives compared, in the order chosen: the table's columns. */
  drives: { id: number; name: string }[];
  open?: boolean;
}) {
  const groups = groupByPlan(comparison.metrics);
  return (
    <details className="section all-results" aria-label="All results" open={open}>
      <summary className="section__header">
        <h2>All results ({comparison.metrics.length} metrics)</h2>
      </summary>
      {groups.map(([plan, metrics]) => {
        const warnings = Array.from(new Set(metrics.flatMap((m) => m.warnings)));
        return (
          <div key={plan} className="all-results__plan">
            <h3>{plan}</h3>
            {warnings.length > 0 && (
              <ul className="compare-warnings" aria-label={`Warnings for ${plan}`}>
                {warnings.map((w) => (
                  <li key={w}>{w}</li>
                ))}
              </ul>
            )}
            <div className="table-wrap">
              <table className="table all-results__table">
                <thead>
                  <tr>
                    <th>Test: measure</th>
                    {drives.map((d) => (
                      <th key={d.id} className="num">
                        {d.name}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {metrics.map((m) => (
                    <ResultRow key={m.metric} metric={m} drives={drives} />
                  ))}
                </tbody>
              </table>
            </div>
          </div>
        );
      })}
    </details>
  );
}

/** The unit after a metric's name, unless the name ends with it ("…: IOPS", "write MB/s"). */
export function withUnit(m: Pick<CompareMetric, "unit" | "names">): string {
  return m.names.title.endsWith(` ${m.unit}`) ? m.names.title : `${m.names.title} (${m.unit})`;
}

function ResultRow({ metric: m, drives }: { metric: CompareMetric; drives: { id: number }[] }) {
  const by = new Map(m.rows.map((r) => [r.drive_id, r]));
  // The best ranked value, for performance figures only (a runtime is not better shorter).
  const best = m.performance ? m.rows.find((r) => !r.set_apart)?.drive_id : undefined;
  return (
    <tr data-metric={m.metric}>
      <td title={m.metric}>{withUnit(m)}</td>
      {drives.map((d) => {
        const r = by.get(d.id);
        return (
          <td key={d.id} className={`num${d.id === best && m.rows.length > 1 ? " all-results__best" : ""}`}>
            {r ? formatMetric(r.value) : "—"}
            {r?.set_apart && <span className="cell-sub" title={r.set_apart}>not ranked</span>}
          </td>
        );
      })}
    </tr>
  );
}
