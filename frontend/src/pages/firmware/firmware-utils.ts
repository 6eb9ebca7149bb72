import type { FirmwareChange, FirmwareHistory, FirmwareMetric, Variation } from "../../api/types";
import { formatMetric } from "../../lib/format-utils";
import { isSignificant } from "../../components/verdict-badge/verdict-utils";

/** "/models/3/firmware" -> 3; anything else: null. */
export function parseModelId(raw: string | undefined): number | null {
  return raw && /^\d+$/.test(raw) && Number(raw) > 0 ? Number(raw) : null;
}

/** A version's mean with its 95% interval: "512 MB/s [498, 526]"; one run: "512 MB/s". */
export function formatMean(runs: Variation, unit: string): string {
  if (runs.mean === null || runs.mean === undefined) return "—";
  const head = `${formatMetric(runs.mean)} ${unit}`;
  if (runs.low === null || runs.low === undefined || runs.high === null || runs.high === undefined) return head;
  return `${head} [${formatMetric(runs.low)}, ${formatMetric(runs.high)}]`;
}

export interface MetricGroup {
  plan: string;
  test: string;
  metrics: FirmwareMetric[];
}

/** The metrics grouped by plan, then test, in the order the api sends them. */
export function groupMetrics(metrics: FirmwareMetric[]): MetricGroup[] {
  const groups: MetricGroup[] = [];
  const byKey = new Map<string, MetricGroup>();
  for (const m of metrics) {
    const key = `${m.names.plan}\u0000${m.names.test}`;
    let group = byKey.get(key);
    if (!group) {
      group = { plan: m.names.plan, test: m.names.test, metrics: [] };
      byKey.set(key, group);
      groups.push(group);
    }
    group.metrics.push(m);
  }
  return groups;
}

export interface SignificantChange {
  metric: FirmwareMetric;
  change: FirmwareChange;
}

/** The changes the runs show are real: regressions first, then improvements, largest first. */
export function significantChanges(metrics: FirmwareMetric[]): SignificantChange[] {
  const out: SignificantChange[] = [];
  for (const metric of metrics) {
    for (const change of metric.changes) {
      if (isSignificant(change.verdict)) out.push({ metric, change });
    }
  }
  const rank = (c: FirmwareChange) => (c.verdict === "regression" ? 0 : 1);
  return out.sort(
    (a, b) =>
      rank(a.change) - rank(b.change) ||
      Math.abs(b.change.diff_pct ?? 0) - Math.abs(a.change.diff_pct ?? 0),
  );
}

/** The runs on each side of a change, in words. */
export function changeRunsText(change: FirmwareChange): string {
  const runs = (n: number) => `${n} run${n === 1 ? "" : "s"}`;
  return `${runs(change.to_runs)} of ${change.to_firmware} vs ${runs(change.from_runs)} of ${change.from_firmware}`;
}

export type FirmwareDrive = FirmwareHistory["drives"][number];

/** The drives of the model with at least two firmware versions: the ones an article of two
 * versions can be opened for. */
export function driveChoices(history: FirmwareHistory): FirmwareDrive[] {
  return history.drives.filter((d) => d.firmwares.length >= 2);
}

/** The pair an article opens with: the drive's last two versions, the later under review. */
export function defaultPair(drive: FirmwareDrive): [string, string] {
  const n = drive.firmwares.length;
  return [drive.firmwares[n - 2] ?? "", drive.firmwares[n - 1] ?? ""];
}

/** Where the article of `drive`'s firmware `base` against `reviewed` opens. */
export function firmwareArticlePath(modelId: number, drive: number, base: string, reviewed: string): string {
  const q = new URLSearchParams({ drive: String(drive) });
  q.append("firmware", base);
  q.append("firmware", reviewed);
  return `/models/${modelId}/firmware/article?${q.toString()}`;
}

/** The drive and versions of the article's address; null drive when it names none. */
export function readFirmwareArticle(search: URLSearchParams): { drive: number | null; firmware: string[] } {
  const raw = search.get("drive");
  const drive = raw && /^\d+$/.test(raw) && Number(raw) > 0 ? Number(raw) : null;
  return { drive, firmware: search.getAll("firmware") };
}
