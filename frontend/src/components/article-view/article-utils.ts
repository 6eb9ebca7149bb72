import type { ArticleRow } from "../../api/results/types";

/** "+12.3%", "−4.0%", "±0.0%": the drive under review's difference to another drive. */
export function formatPct(pct: number): string {
  if (!Number.isFinite(pct)) return "—";
  const sign = pct > 0 ? "+" : pct < 0 ? "−" : "±";
  return `${sign}${Math.abs(pct).toFixed(1)}%`;
}

/** The drives in the table's order: the drive under review first, then as chosen. */
export function columnOrder<T extends { id: number; under_review: boolean }>(drives: T[]): T[] {
  return [...drives.filter((d) => d.under_review), ...drives.filter((d) => !d.under_review)];
}

/** How many rows an appendix has, for its summary line. */
export function appendixSize(groups: { rows: ArticleRow[] }[]): { rows: number; groups: number } {
  return { rows: groups.reduce((n, g) => n + g.rows.length, 0), groups: groups.length };
}

const TIME: [string, number][] = [
  ["s", 1e6],
  ["ms", 1e3],
  ["µs", 1],
];
const BYTES: [string, number][] = [
  ["TB", 1e12],
  ["GB", 1e9],
  ["MB", 1e6],
  ["KB", 1e3],
  ["bytes", 1],
];

/** The unit a row of values reads best in and what to divide them by: latencies in µs, ms
 * or s, sizes in KB, MB, GB, chosen by the largest value, so that a row shares one unit
 * ("4.28 s", not "4,278,190 µs"). Other units stay. (The api's article answer scales the
 * same way: backend/results/article.py.) */
export function scaleUnit(values: (number | null | undefined)[], unit: string): [string, number] {
  const top = Math.max(0, ...values.filter((v): v is number => v != null).map(Math.abs));
  const table = ["µs", "ms", "s"].includes(unit) ? TIME : ["bytes", "B", "MB", "GB"].includes(unit) ? BYTES : null;
  if (!table) return [unit, 1];
  const base = { µs: 1, ms: 1e3, s: 1e6, bytes: 1, B: 1, MB: 1e6, GB: 1e9 }[unit] ?? 1;
  for (const [name, factor] of table) {
    if (top * base >= factor || factor === 1) return [name, factor / base];
  }
  return [unit, 1];
}
