/**
 * Sorted horizontal bar charts of a comparison (GET /api/compare): one chart per metric,
 * drives in the api's order (best first), compressible and incompressible results of the
 * same test paired in one chart where both exist.
 */

import type { CompareMetric } from "../../api/results/types";
import { toCsv } from "../../lib/export-utils";
import { provenanceLine } from "../../lib/series-utils";

export interface BarRow {
  driveId: number;
  label: string;
  underReview: boolean;
  simulated: boolean;
  /** The primary value (incompressible data, or the only one). */
  value: number;
  /** The compressible-data value of the same test, when paired. */
  paired: number | null;
  /** Provenance of the value: its run's drive firmware, fio version and end. */
  firmware: string | null;
  fioVersion: string | null;
  finishedAt: string | null;
}

export interface BarGroup {
  /** The primary metric id (plan:step:metric). */
  key: string;
  title: string;
  unit: string;
  lowerIsBetter: boolean;
  /** Names of the paired bars: ["incompressible", "compressible"] or null. */
  pairNames: [string, string] | null;
  rows: BarRow[];
  warnings: string[];
}

const PATTERN = /-(incompressible|compressible)$/;

const STEP_WORDS: [RegExp, string][] = [
  [/^randread-/, "random read "],
  [/^randwrite-/, "random write "],
  [/^seqread-/, "sequential read "],
  [/^seqwrite-/, "sequential write "],
];

const METRIC_WORDS: Record<string, string> = {
  mbps: "MB/s",
  iops: "IOPS",
  lat_mean_us: "mean latency",
  lat_p99_us: "99th percentile latency",
  iops_mean_last400: "mean IOPS, last 400 s",
  iops_stddev_last400: "IOPS standard deviation, last 400 s",
  iops_min_last400: "minimum IOPS, last 400 s",
  dropoff_s: "time until the drop-off",
  stall_count: "stalls",
  stall_longest_s: "longest stall",
  stall_total_s: "total stall time",
};

/** "four-corners:randwrite-4k-qd32-incompressible:write_iops" -> "4K random write QD32: IOPS". */
export function metricTitle(metric: string): string {
  const [plan = "", rawStep = "", name = ""] = metric.split(":");
  let step = rawStep.replace(PATTERN, "");
  let words = step;
  for (const [re, text] of STEP_WORDS) {
    if (re.test(step)) {
      step = step.replace(re, "");
      const [bs = "", qd = ""] = step.split("-");
      words = `${bs.toUpperCase()} ${text}${qd.toUpperCase()}`.trim();
      break;
    }
  }
  const bare = name.replace(/^(read|write)_/, "");
  const what = METRIC_WORDS[name] ?? METRIC_WORDS[bare] ?? name.replace(/_/g, " ");
  if (plan === "four-corners") return `${words}: ${what}`;
  return words.startsWith(plan) ? `${plan}: ${what}` : `${plan} ${words}: ${what}`;
}

/** The metrics shown as bars until the reviewer picks others: the four corners' headline
 * numbers, consistency's steady state, write stalls. */
export const HEADLINE = [
  /^four-corners:randread-4k-qd3:read_iops$/,
  /^four-corners:randwrite-4k-qd3(-incompressible)?:write_iops$/,
  /^four-corners:randwrite-4k-qd32(-incompressible)?:write_iops$/,
  /^four-corners:seqread-128k-qd1:read_mbps$/,
  /^four-corners:seqwrite-128k-qd1(-incompressible)?:write_mbps$/,
  /^consistency:[^:]+:iops_mean_last400$/,
  /^write-hitching:hitch-seq[^:]*:stall_longest_s$/,
];

export function headlineMetrics(all: string[]): string[] {
  return HEADLINE.flatMap((re) => all.filter((m) => re.test(m)).slice(0, 1));
}

/** The compressible twin of an incompressible metric id, or null. */
export function twinOf(metric: string): string | null {
  const parts = metric.split(":");
  if (parts.length !== 3 || !parts[1]?.endsWith("-incompressible")) return null;
  return `${parts[0]}:${parts[1].replace(/-incompressible$/, "-compressible")}:${parts[2]}`;
}

/** One bar group per wanted metric, with its compressible twin paired when it exists. */
export function barGroups(metrics: CompareMetric[], wanted: string[]): BarGroup[] {
  const by = new Map(metrics.map((m) => [m.metric, m]));
  const groups: BarGroup[] = [];
  for (const id of wanted) {
    const m = by.get(id);
    if (!m) continue;
    const twinId = twinOf(id);
    const twin = twinId ? by.get(twinId) : undefined;
    const twinValues = new Map((twin?.rows ?? []).map((r) => [r.drive_id, r.value]));
    groups.push({
      key: id,
      title: metricTitle(id),
      unit: m.unit,
      lowerIsBetter: m.lower_is_better,
      pairNames: twin ? ["incompressible", "compressible"] : null,
      rows: m.rows.map((r) => ({
        driveId: r.drive_id,
        label: r.label,
        underReview: r.under_review,
        simulated: r.simulated,
        value: r.value,
        paired: twinValues.get(r.drive_id) ?? null,
        firmware: r.firmware,
        fioVersion: r.fio_version,
        finishedAt: r.finished_at,
      })),
      warnings: Array.from(new Set([...m.warnings, ...(twin?.warnings ?? [])])),
    });
  }
  return groups;
}

export function barsCsv(group: BarGroup): string {
  const header = ["drive", `${group.pairNames?.[0] ?? "value"} (${group.unit})`];
  if (group.pairNames) header.push(`${group.pairNames[1]} (${group.unit})`);
  return toCsv(
    header,
    group.rows.map((r) => (group.pairNames ? [r.label, r.value, r.paired] : [r.label, r.value])),
  );
}

export interface BarLayout {
  labelWidth: number;
  barHeight: number;
  rowHeight: number;
  height: number;
  /** px per unit of value. */
  scale: number;
}

/** Sizes of a bar chart of `rows` drives in `width` px. */
export function barLayout(group: BarGroup, width: number): BarLayout {
  const paired = group.pairNames !== null;
  const barHeight = paired ? 11 : 16;
  const rowHeight = paired ? 2 * barHeight + 10 : barHeight + 10;
  const labelWidth = Math.min(220, Math.max(120, width * 0.34));
  const max = Math.max(1e-12, ...group.rows.flatMap((r) => [r.value, r.paired ?? 0]));
  const valueRoom = 64;
  const scale = Math.max(0, width - labelWidth - valueRoom) / max;
  return { labelWidth, barHeight, rowHeight, height: group.rows.length * rowHeight + 6, scale };
}

/** The text cut in the middle to fit `width` px at `size` px (average glyph width): the
 * end, where drive names differ ("... drive A 0.134 GB"), stays. */
export function fitText(text: string, width: number, size: number): string {
  const max = Math.max(4, Math.floor(width / (size * 0.56)));
  if (text.length <= max) return text;
  const head = Math.floor((max - 1) / 3);
  return `${text.slice(0, head)}…${text.slice(text.length - (max - 1 - head))}`;
}

/** Labels without the first word when every label starts with the same one (the vendor). */
export function dropCommonVendor(labels: string[]): string[] {
  const first = labels.map((l) => l.split(" ")[0]);
  const same = labels.length > 1 && first.every((w) => w === first[0]);
  return same ? labels.map((l) => l.slice((first[0] ?? "").length).trim() || l) : labels;
}

/** The small print of a bar chart: firmware, fio version and date of each drive's run. */
export function barsProvenance(group: BarGroup): string {
  return provenanceLine(
    group.rows.map((r) => ({
      label: r.label,
      conditions: { firmware: r.firmware, fio_version: r.fioVersion, finished_at: r.finishedAt },
    })),
  );
}
