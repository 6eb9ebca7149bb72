/**
 * The one tick rule of every drivelab chart: steps of 1, 2, 2.5 or 5 x 10^n (never 55, 110,
 * 165 or 450, 900, 1,350), and one label format per axis with as few decimals as keep
 * neighbouring ticks apart (a zoomed axis shows 20.0, 20.5, 21.0, never "20.006" five times).
 * Pure: numbers in, numbers and strings out.
 */

/** The round multiples a step may take, times a power of ten. */
export const NICE_MULTIPLES = [1, 2, 2.5, 5] as const;

/** The smallest round step (1, 2, 2.5, 5 x 10^n) that covers `span` in at most `count`
 * intervals. */
export function niceStep(span: number, count = 5): number {
  if (!(span > 0) || !Number.isFinite(span)) return 1;
  const raw = span / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  for (const m of [...NICE_MULTIPLES, 10]) {
    if (m * mag >= raw * (1 - 1e-9)) return Number((m * mag).toPrecision(12));
  }
  return 10 * mag;
}

/** Whether `step` is 1, 2, 2.5 or 5 x 10^n. */
export function isNiceStep(step: number): boolean {
  if (!(step > 0)) return false;
  const mag = 10 ** Math.floor(Math.log10(step) + 1e-12);
  const m = step / mag;
  return NICE_MULTIPLES.some((n) => Math.abs(m - n) < 1e-9 * n) || Math.abs(m - 10) < 1e-9;
}

/** Round ticks inside [lo, hi] at a round step, about `count` intervals. */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) return [lo];
  const step = niceStep(hi - lo, count);
  const ticks: number[] = [];
  const first = Math.ceil(lo / step - 1e-9);
  const last = Math.floor(hi / step + 1e-9);
  for (let i = first; i <= last; i++) ticks.push(Number((i * step).toPrecision(12)));
  return ticks;
}

/**
 * An axis from `lo` to `hi` widened outward to round ticks (0 to 250, not 0 to 237): its
 * domain and its ticks, every one a multiple of the round step. A zero or empty range gets
 * one step above `lo`.
 */
export function niceAxis(
  lo: number,
  hi: number,
  count = 5,
): { domain: [number, number]; ticks: number[]; step: number } {
  const a = Number.isFinite(lo) ? lo : 0;
  let b = Number.isFinite(hi) ? hi : a + 1;
  if (!(b > a)) b = a + (Math.abs(a) > 0 ? Math.abs(a) : 1);
  const step = niceStep(b - a, count);
  const first = Math.floor(a / step + 1e-9);
  const last = Math.ceil(b / step - 1e-9);
  const ticks: number[] = [];
  for (let i = first; i <= last; i++) ticks.push(Number((i * step).toPrecision(12)));
  return { domain: [ticks[0] ?? a, ticks[ticks.length - 1] ?? b], ticks, step };
}

/** An axis from 0 up to `hi` with round ticks (the usual bar, MB/s or IOPS axis). */
export function zeroAxis(hi: number, count = 5): { domain: [number, number]; ticks: number[] } {
  const { domain, ticks } = niceAxis(0, hi > 0 && Number.isFinite(hi) ? hi : 1, count);
  return { domain, ticks };
}

/** How many ticks fit on an axis of `px` pixels at one tick per `per` pixels (at least 2). */
export function tickCount(px: number, per = 80): number {
  return Math.max(2, Math.floor(px / per));
}

/** The fewest decimals (up to 6) at which the values are told apart and each is shown as
 * itself (0.25 needs two, 20.5 one, 1,000 none). */
export function decimalsFor(values: number[]): number {
  const finite = values.filter(Number.isFinite);
  for (let d = 0; d <= 6; d++) {
    const shown = finite.map((v) => v.toFixed(d));
    const exact = finite.every((v) => Math.abs(Number(v.toFixed(d)) - v) <= 1e-9 * Math.max(1, Math.abs(v)));
    if (exact && new Set(shown).size === new Set(finite).size) return d;
  }
  return 6;
}

/**
 * One number format for every tick of an axis (never "8,000 / 22k / 10K"): the unit suffix
 * of the largest tick and the decimals the ticks need to be told apart, the same for all.
 * [0, 10000, 20000] -> 0, 10K, 20K; [0, 2500, 5000] -> 0, 2,500, 5,000; [0, 0.5, 1] -> 0.0,
 * 0.5, 1.0; [20, 20.5, 21] -> 20.0, 20.5, 21.0; log decades [100, 1000, 10000] -> 100, 1K, 10K.
 */
export function tickFormat(ticks: number[]): (value: number) => string {
  const nonzero = ticks.filter((t) => t > 0);
  const decades =
    nonzero.length >= 2 &&
    nonzero.length === ticks.length &&
    nonzero.every((t) => Math.abs(Math.log10(t) - Math.round(Math.log10(t))) < 1e-9);
  if (decades) {
    const plain = (v: number) => String(Number(v.toPrecision(6)));
    return (value: number) =>
      value >= 1e6 ? `${plain(value / 1e6)}M` : value >= 1e3 ? `${plain(value / 1e3)}K` : plain(value);
  }
  const max = Math.max(0, ...ticks.map(Math.abs));
  const [div, suffix] = max >= 1e6 ? [1e6, "M"] : max >= 1e4 ? [1e3, "K"] : [1, ""];
  const decimals = decimalsFor(ticks.map((t) => t / div));
  const format = new Intl.NumberFormat("en-US", {
    minimumFractionDigits: decimals,
    maximumFractionDigits: decimals,
  });
  return (value: number) => (value === 0 ? "0" : `${format.format(value / div)}${suffix}`);
}

/** A start time said in words at the precision of its axis: 20.005999 on an axis of 0.5 s
 * steps -> "20.0", 1400 -> "1400". */
export function formatAt(value: number, ticks: number[]): string {
  const step = ticks.length > 1 ? Math.abs((ticks[1] ?? 0) - (ticks[0] ?? 0)) : 1;
  const decimals = step >= 1 ? (Number.isInteger(value) ? 0 : 1) : Math.min(6, decimalsFor([step]));
  return value.toFixed(decimals);
}

/** Rough width of a tick label in px at 12 px (a generous average glyph width, as the
 * exports' layout estimates it). */
const labelWidth = (text: string, size = 12) => text.length * size * 0.6;

/**
 * The width a value axis needs so that its rotated title never touches its tick labels: the
 * widest tick label, the tick and its margin (8 px), a gap, and the title's line (16 px).
 */
export function yAxisWidth(labels: string[], withTitle = true, size = 12): number {
  const widest = Math.max(0, ...labels.map((l) => labelWidth(l, size)));
  return Math.ceil(widest + 8 + 4 + (withTitle ? size + 4 : 0));
}
