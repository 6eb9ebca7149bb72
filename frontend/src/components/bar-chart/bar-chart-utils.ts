/**
 * Sorted horizontal bar charts of a comparison (GET /api/compare): one chart per metric,
 * drives in the api's order (best first, the rows measured unlike the others set apart
 * after them), compressible and incompressible results of the same test paired in one chart
 * where both exist. Pure: the api's answer in, what the chart and its exports need out.
 */

import type { CompareMetric, CompareRow } from "../../api/results/types";
import { csvDocument, simulatedMark, textWidth, wrapText } from "../../lib/export-utils";
import { driveName, provenanceLine } from "../../lib/series-utils";

export interface BarRow {
  driveId: number;
  /** What the chart calls the drive (its short name, else its label without the serial). */
  name: string;
  label: string;
  underReview: boolean;
  simulated: boolean;
  /** The primary value (incompressible data, or the only one); null: no result. */
  value: number | null;
  /** The compressible-data value of the same test, when paired. */
  paired: number | null;
  /** Why the row is not ranked with the others (another span or block size), or null. */
  setApart: string | null;
  /** Provenance of the value: its run's drive firmware, fio version, job file and end. */
  runId: number | null;
  firmware: string | null;
  fioVersion: string | null;
  jobSha256: string | null;
  finishedAt: string | null;
  conditions: Record<string, string | null>;
  runs: CompareRow["runs"] | null;
  /** The drive under review against this drive (significance), null on its own row. */
  versus: CompareRow["versus_review"] | null;
}

export interface BarGroup {
  /** The primary metric id (plan:step:metric). */
  key: string;
  /** The twin's id when paired (compressible). */
  twinKey: string | null;
  title: string;
  plan: string;
  unit: string;
  lowerIsBetter: boolean;
  /** Names of the paired bars: ["incompressible", "compressible"] or null. */
  pairNames: [string, string] | null;
  rows: BarRow[];
  /** The conditions every row shares, and the ones the rows differ in. */
  conditions: Record<string, string | null>;
  differing: string[];
  warnings: string[];
}

/** The metrics shown as bars until the reviewer picks others: the four corners' headline
 * numbers, consistency's steady state, write stalls, the CrystalDiskMark-style SEQ1M Q8T1
 * and RND4K Q1T1 figures, the AS-SSD-style Seq and 4K figures and total score. */
export const HEADLINE = [
  /^four-corners:randread-4k-qd3:read_iops$/,
  /^four-corners:randwrite-4k-qd3(-incompressible)?:write_iops$/,
  /^four-corners:randwrite-4k-qd32(-incompressible)?:write_iops$/,
  /^four-corners:seqread-128k-qd1:read_mbps$/,
  /^four-corners:seqwrite-128k-qd1(-incompressible)?:write_mbps$/,
  /^consistency:[^:]+:iops_mean_last400$/,
  /^write-hitching:hitch-seq[^:]*:stall_longest_s$/,
  /^cdm-style:seq1m-q8t1-read:read_mbps$/,
  /^cdm-style:seq1m-q8t1-write:write_mbps$/,
  /^cdm-style:rnd4k-q1t1-read:read_mbps$/,
  /^cdm-style:rnd4k-q1t1-write:write_mbps$/,
  // AnandTech's bars of the mixed tests: the average over the shares of writes.
  /^mixed:mixed-random-4k-qd4:mixed_avg_mbps$/,
  /^mixed:mixed-sequential-128k-qd1:mixed_avg_mbps$/,
  // AS-SSD-style: Seq and 4K MB/s, the total score (their rows: DESKTOP_ROWS).
  /^as-ssd-style:asssd-seq-read:read_mbps$/,
  /^as-ssd-style:asssd-seq-write:write_mbps$/,
  /^as-ssd-style:asssd-4k-read:read_mbps$/,
  /^as-ssd-style:asssd-4k-write:write_mbps$/,
  /^as-ssd-style:asssd-score:asssd_score_total$/,
  // Empty against full: the writes in each state (their rows: FULL_DRIVE_ROWS), not the
  // pre-write that sets the states up.
  /^full-drive:empty-randwrite-4k-qd\d+:write_mbps$/,
  /^full-drive:full\d+-randwrite-4k-qd\d+:write_mbps$/,
  /^full-drive:empty-seqwrite-128k-qd1:write_mbps$/,
  /^full-drive:full\d+-seqwrite-128k-qd1:write_mbps$/,
];

export function headlineMetrics(all: string[]): string[] {
  // Every variant of a headline (OP 0% and OP 25% consistency are two metrics).
  return HEADLINE.flatMap((re) => {
    const found = all.filter((m) => re.test(m.replace(/@[^:]*/, "")));
    const plain = found.filter((m) => !m.includes("@"));
    return [...plain.slice(0, 1), ...found.filter((m) => m.includes("@"))];
  });
}

/** The headline metrics as patterns of GET /api/compare's `rows` (fnmatch: `*` is any
 * text): each matches every metric HEADLINE picks (and may match a few more), so the Compare
 * page asks the rows of its bars only and lists the other metrics by name. */
export const HEADLINE_ROWS = [
  "four-corners:randread-4k-qd3*:read_iops",
  "four-corners:randwrite-4k-qd3*:write_iops",
  "four-corners:seqread-128k-qd1*:read_mbps",
  "four-corners:seqwrite-128k-qd1*:write_mbps",
  "consistency:*:iops_mean_last400",
  "write-hitching:hitch-seq*:stall_longest_s",
  "mixed:*:mixed_avg_mbps",
];

/** Whether a metric id matches a `rows` pattern as the api matches it (fnmatch, `*` only:
 * metric ids hold no `?` or `[`). */
export function matchesRows(metric: string, pattern: string): boolean {
  const re = pattern.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*");
  return new RegExp(`^${re}$`).test(metric);
}

/** The metrics drawn as bars: the headline ones (else the first six performance figures),
 * then the ones the reader added. */
export function shownMetrics(all: CompareMetric[], extra: string[]): string[] {
  const headline = headlineMetrics(all.map((m) => m.metric));
  const first = headline.length ? headline : all.filter((m) => m.performance).slice(0, 6).map((m) => m.metric);
  return Array.from(new Set([...first, ...extra]));
}

/** The compressible twin of an incompressible metric id, or null. */
export function twinOf(metric: string): string | null {
  const parts = metric.split(":");
  if (parts.length !== 3 || !/-incompressible(@|$)/.test(parts[1] ?? "")) return null;
  return `${parts[0]}:${parts[1]!.replace(/-incompressible(@|$)/, "-compressible$1")}:${parts[2]}`;
}

/** "Four corners · 4K random write QD32, incompressible: IOPS" without the pattern when the
 * chart pairs both patterns. */
function pairedTitle(m: CompareMetric, paired: boolean): string {
  return paired ? m.names.title.replace(/, incompressible(?=[:,])/, "") : m.names.title;
}

function rowOf(r: CompareRow, paired: number | null): BarRow {
  return {
    driveId: r.drive_id,
    name: driveName(r),
    label: r.label,
    underReview: r.under_review,
    simulated: r.simulated,
    value: r.value,
    paired,
    setApart: r.set_apart,
    runId: r.run_id,
    firmware: r.firmware,
    fioVersion: r.fio_version,
    jobSha256: r.job_sha256,
    finishedAt: r.finished_at,
    conditions: r.conditions,
    runs: r.runs,
    versus: r.versus_review ?? null,
  };
}

/**
 * One bar group per wanted metric, with its compressible twin paired when it exists. The
 * drive under review, when it has no result, gets an empty row that says so (`reviewed`:
 * its id and name).
 */
export function barGroups(
  metrics: CompareMetric[],
  wanted: string[],
  reviewed: { id: number; name: string } | null = null,
): BarGroup[] {
  const by = new Map(metrics.map((m) => [m.metric, m]));
  const groups: BarGroup[] = [];
  for (const id of wanted) {
    const m = by.get(id);
    if (!m) continue;
    const twinId = twinOf(id);
    const twin = twinId ? by.get(twinId) : undefined;
    const twinValues = new Map((twin?.rows ?? []).map((r) => [r.drive_id, r.value]));
    const rows = m.rows.map((r) => rowOf(r, twinValues.get(r.drive_id) ?? null));
    const warnings = [...m.warnings, ...(twin?.warnings ?? [])];
    for (const r of rows) {
      if (r.setApart) warnings.push(`${r.name} is not ranked with the others: ${r.setApart}.`);
    }
    if (reviewed && !rows.some((r) => r.driveId === reviewed.id)) {
      rows.push({
        ...rowOf(
          { ...m.rows[0]!, drive_id: reviewed.id, label: reviewed.name, short_name: reviewed.name },
          null,
        ),
        underReview: true,
        value: null,
        simulated: false,
        setApart: null,
        runId: null,
        firmware: null,
        fioVersion: null,
        jobSha256: null,
        finishedAt: null,
        conditions: {},
        runs: null,
      });
      warnings.push(`The drive under review, ${reviewed.name}, has no result for this test.`);
    }
    groups.push({
      key: id,
      twinKey: twin ? twinId : null,
      title: realWindow(pairedTitle(m, Boolean(twin)), [
        m.conditions["runtime"],
        ...m.rows.map((r) => r.conditions?.["runtime"]),
      ]),
      plan: m.names.plan,
      unit: m.unit,
      lowerIsBetter: m.lower_is_better,
      pairNames: twin ? ["incompressible", "compressible"] : null,
      rows,
      conditions: m.conditions,
      differing: Array.from(new Set([...m.differing, ...(twin?.differing ?? [])])),
      warnings: Array.from(new Set(warnings)),
    });
  }
  return groups;
}

/**
 * A metric's window said as it was: "mean IOPS, last 400 s" of a 60 s run is the mean of the
 * whole run (the analysis takes every second when the run is shorter than the window).
 * `runtimes`: the runs' runtime conditions ("60 s", "up to 60 s"); unknown ones count as long.
 */
export function realWindow(title: string, runtimes: (string | null | undefined)[]): string {
  const m = /last (\d+) s\b/.exec(title);
  if (!m) return title;
  const window = Number(m[1]);
  const secs = runtimes
    .map((r) => (r ? /(\d+(?:\.\d+)?) s\b/.exec(r) : null))
    .filter((x): x is RegExpExecArray => x !== null)
    .map((x) => Number(x[1]));
  if (secs.length === 0 || secs.every((t) => t >= window)) return title;
  const uniq = Array.from(new Set(secs));
  const words =
    uniq.length === 1 && uniq[0]! < window
      ? `whole ${uniq[0]} s run`
      : `last ${window} s, or the whole run where shorter`;
  return title.replace(m[0], words);
}

/** "(IOPS, higher is better)", without the unit when the title ends with it ("...: IOPS"). */
export function unitAndDirection(group: Pick<BarGroup, "title" | "unit" | "lowerIsBetter">): string {
  const better = group.lowerIsBetter ? "lower is better" : "higher is better";
  return group.title.endsWith(`: ${group.unit}`) ? `(${better})` : `(${group.unit}, ${better})`;
}

/** The conditions line of an export: every shared condition, "name value". */
export function conditionsText(conditions: Record<string, string | null>, plan?: string): string {
  const parts = Object.entries(conditions)
    .filter(([, v]) => v)
    .map(([k, v]) => (k === "queue depth" ? `${v}` : k === "drive" ? `${v} drive` : `${k} ${v}`));
  return [plan, ...parts].filter(Boolean).join(" · ");
}

export function barsSimulated(group: BarGroup): string | undefined {
  return simulatedMark(group.rows.filter((r) => r.simulated).map((r) => r.name));
}

/** The chart's data as CSV: title, metric, conditions and warnings in its leading lines,
 * then one row per drive with its value(s), whether it is ranked, its run-to-run variation,
 * the conditions the drives differ in, and its provenance. */
export function barsCsv(group: BarGroup): string {
  const header = ["drive", `${group.pairNames?.[0] ?? "value"} (${group.unit})`];
  if (group.pairNames) header.push(`${group.pairNames[1]} (${group.unit})`);
  const provenance = ["simulated", "firmware", "fio version", "job file sha256", "run", "finished"];
  // A condition the drives differ in that has the name of a column of its own ("drive",
  // "firmware") is named as a condition: every header name once (pandas reads it unchanged).
  const stats = [
    "mean 95% CI low",
    "mean 95% CI high",
    "review vs this %",
    "review vs this 95% CI low %",
    "review vs this 95% CI high %",
    "review vs this q",
    "review vs this verdict",
  ];
  const fixed = new Set([...header, "ranked", "runs pooled", "spread %", ...stats, ...provenance]);
  const differing = group.differing.map((k) => (fixed.has(k) ? `${k} (condition)` : k));
  header.push("ranked", "runs pooled", "spread %", ...stats, ...differing);
  header.push(...provenance);
  const rows = group.rows.map((r) => [
    r.name,
    r.value,
    ...(group.pairNames ? [r.paired] : []),
    r.value === null ? "no result" : r.setApart ? `no: ${r.setApart}` : "yes",
    r.runs?.count ?? null,
    r.runs?.spread_pct ?? null,
    r.runs?.low ?? null,
    r.runs?.high ?? null,
    r.versus?.diff_pct ?? null,
    r.versus?.low_pct ?? null,
    r.versus?.high_pct ?? null,
    r.versus?.q ?? null,
    r.versus?.verdict ?? null,
    ...group.differing.map((k) => r.conditions[k] ?? null),
    r.simulated ? "yes" : "no",
    r.firmware,
    r.fioVersion,
    r.jobSha256,
    r.runId,
    r.finishedAt,
  ]);
  return csvDocument(
    {
      title: `${group.title} ${unitAndDirection(group)}`,
      metric: [group.key, group.twinKey].filter(Boolean).join(", ") + ` (${group.unit})`,
      conditions: conditionsText(group.conditions, group.plan),
      simulated: barsSimulated(group),
      warnings: group.warnings,
      provenance: barsProvenance(group),
      significance: barsSignificance(group) ?? undefined,
    },
    header,
    rows,
  );
}

/** How the drive under review compares on this chart, said in one line: "Against the drive
 * under review (B): A worse, +5.1% [+3.0, +7.2]; C within noise; D 1 run, significance
 * unknown. Better or worse only when significant (Welch, tested 1% threshold,
 * Benjamini-Hochberg)." Null without a drive under review or another drive to compare. */
export function barsSignificance(group: BarGroup): string | null {
  const review = group.rows.find((r) => r.underReview && r.value !== null);
  const others = group.rows.filter((r) => r.versus);
  if (!review || others.length === 0) return null;
  const pct = (v: number) => `${v >= 0 ? "+" : "−"}${Math.abs(v).toFixed(1)}`;
  const parts = others.map((r) => {
    const t = r.versus!;
    if (t.verdict === "1 run: significance unknown") return `${r.name}: 1 run, significance unknown`;
    const said =
      t.verdict === "better"
        ? "better than"
        : t.verdict === "worse"
          ? "worse than"
          : "within noise of";
    const ci =
      t.diff_pct !== null && t.low_pct !== null && t.high_pct !== null
        ? ` (${pct(t.diff_pct)}% [${pct(t.low_pct)}, ${pct(t.high_pct)}])`
        : "";
    return `${said} ${r.name}${ci}`;
  });
  return (
    `${review.name}: ${parts.join("; ")}. Better or worse only when the runs show it ` +
    "(Welch's t-test, difference shown over 1%, Benjamini-Hochberg over the plan's metrics)."
  );
}

/** The small print of a bar chart: firmware, fio version and date of each drive's run. */
export function barsProvenance(group: BarGroup): string {
  return provenanceLine(
    group.rows
      .filter((r) => r.value !== null)
      .map((r) => ({
        label: r.name,
        short_name: r.name,
        conditions: { firmware: r.firmware, fio_version: r.fioVersion, finished_at: r.finishedAt },
      })),
  );
}

/** Labels without the first word when every label starts with the same one (the vendor). */
export function dropCommonVendor(labels: string[]): string[] {
  const first = labels.map((l) => l.split(" ")[0]);
  const same = labels.length > 1 && first.every((w) => w === first[0]);
  return same ? labels.map((l) => l.slice((first[0] ?? "").length).trim() || l) : labels;
}

export const LABEL_SIZE = 12;
export const LABEL_LINE = 14;
/** Room kept free at the chart's left edge, px. */
export const LABEL_GAP = 4;
/** The label column's text room: the column less the tick (6 px), the gap to the tick (6 px)
 * and LABEL_GAP. */
const LABEL_ROOM = 6 + 6 + LABEL_GAP;

export interface BarLayout {
  labelWidth: number;
  /** Each row's label as it is estimated to wrap in the label column (Recharts' Text wraps
   * it on the page, measured): what the rows' height is made for. */
  lines: string[][];
  rowHeight: number;
  height: number;
}

/** A row's label on the category axis: the drive's name, marked when the row is set apart. */
export function labelText(label: string, row: Pick<BarRow, "setApart">): string {
  return row.setApart ? `${label} (not ranked)` : label;
}

/** Sizes of a bar chart of the group's rows in `width` px: the label column, and rows tall
 * enough for each label wrapped into it (estimated generously, bold for the drive under
 * review). */
export function barLayout(group: BarGroup, labels: string[], width: number): BarLayout {
  const paired = group.pairNames !== null;
  const labelWidth = Math.round(Math.min(240, Math.max(110, width * 0.34)));
  const lines = labels.map((l, i) => {
    const row = group.rows[i];
    return wrapText(labelText(l, { setApart: row?.setApart ?? null }), labelWidth - LABEL_ROOM, LABEL_SIZE, row?.underReview ?? false);
  });
  const most = Math.max(1, ...lines.map((l) => l.length));
  const barsHeight = paired ? 2 * 12 + 2 : 18;
  const rowHeight = Math.max(barsHeight, most * LABEL_LINE) + 10;
  return { labelWidth, lines, rowHeight, height: group.rows.length * rowHeight + 36 };
}

/** Whether every label fits its column whole by the estimate. */
export function labelsFit(layout: BarLayout): boolean {
  return layout.lines.every((l) => l.every((line) => textWidth(line, LABEL_SIZE, true) <= layout.labelWidth));
}
