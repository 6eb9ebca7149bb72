/** Formatting of sizes, durations, times and numbers. Pure, no locale surprises in tests. */

const DECIMAL_UNITS = ["B", "kB", "MB", "GB", "TB", "PB"] as const;

const NUMBER_LOCALE = "en-US";

function trimNumber(value: number, maxDecimals: number): string {
  return new Intl.NumberFormat(NUMBER_LOCALE, {
    maximumFractionDigits: maxDecimals,
    minimumFractionDigits: 0,
    useGrouping: false,
  }).format(value);
}

/**
 * Bytes in decimal units (1 GB = 10^9 bytes), as drives are sold: 1000204886016 -> "1 TB",
 * 500107862016 -> "500 GB", 1920383410176 -> "1.92 TB". Three-digit values drop decimals.
 */
export function formatDecimalBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return "—";
  let unit = 0;
  let value = bytes;
  while (value >= 1000 && unit < DECIMAL_UNITS.length - 1) {
    value /= 1000;
    unit++;
  }
  // Rounding can carry into the next unit (999.9996 GB would print "1000 GB"): step up.
  if (Math.round(value) >= 1000 && unit < DECIMAL_UNITS.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${trimNumber(value, value >= 100 ? 0 : 2)} ${DECIMAL_UNITS[unit]}`;
}

/** A drive's capacity, decimal as on the box. */
/** A drive's capacity as drive makers print it and as the api's labels write it
 * (backend/drives/service.py capacity_label, the same rule): GB below 1,000 GB, else TB;
 * whole from 100, two decimals at most from 1, three significant digits below ("0.268 GB"
 * for a 256 MiB simulated drive, never "268 MB" on one page and "0.3 GB" on another). */
export function formatCapacity(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes) || bytes < 0) return "—";
  const [value, unit] = bytes >= 1e12 ? [bytes / 1e12, "TB"] : [bytes / 1e9, "GB"];
  let text: string;
  if (value >= 100) text = value.toFixed(0);
  else if (value >= 1) text = value.toFixed(2).replace(/\.?0+$/, "");
  else if (value === 0) text = "0";
  else text = String(Number(value.toPrecision(3)));
  return `${text} ${unit}`;
}

const pad2 = (n: number) => String(n).padStart(2, "0");

/** Seconds as "45s", "3m 05s", "1h 02m", "2d 03h". Null or negative -> "—". */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) {
    return "—";
  }
  const total = Math.round(seconds);
  if (total < 60) return `${total}s`;
  const s = total % 60;
  const m = Math.floor(total / 60) % 60;
  const h = Math.floor(total / 3600) % 24;
  const d = Math.floor(total / 86400);
  if (total < 3600) return `${m}m ${pad2(s)}s`;
  if (total < 86400) return `${h}h ${pad2(m)}m`;
  return `${d}d ${pad2(h)}h`;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/**
 * A timestamp in the viewer's local time, as short as is unambiguous relative to `now`:
 * "14:03:07" today, "Nov 20 14:03" this year, "2025-11-20 14:03" otherwise.
 */
export function formatDateTime(iso: string | null | undefined, now: Date = new Date()): string {
  if (!iso) return "—";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "—";
  const hm = `${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
  const sameYear = d.getFullYear() === now.getFullYear();
  if (sameYear && d.getMonth() === now.getMonth() && d.getDate() === now.getDate()) {
    return `${hm}:${pad2(d.getSeconds())}`;
  }
  if (sameYear) return `${MONTHS[d.getMonth()]} ${d.getDate()} ${hm}`;
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${hm}`;
}

/** Full local timestamp for tooltips: "2026-11-21 14:03:07". */
export function formatFullDateTime(iso: string | null | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  return (
    `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ` +
    `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`
  );
}

/** Clamp a 0..1 fraction (NaN and garbage count as 0). */
export function clampFraction(value: number | null | undefined): number {
  if (value === null || value === undefined || !Number.isFinite(value)) return 0;
  return Math.min(1, Math.max(0, value));
}

/** 0..1 as a whole percentage, never "100%" before the work is really complete. */
export function formatPercent(fraction: number | null | undefined): string {
  const f = clampFraction(fraction);
  const pct = f < 1 ? Math.min(99, Math.floor(f * 100)) : 100;
  return `${pct}%`;
}

/**
 * A measured value with precision that suits its size: 3512.3 -> "3,512", 85.23 -> "85.2",
 * 4.567 -> "4.57", 0.01234 -> "0.0123".
 */
export function formatMetric(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  const abs = Math.abs(value);
  if (abs === 0) return "0";
  if (abs >= 100) {
    return new Intl.NumberFormat(NUMBER_LOCALE, { maximumFractionDigits: 0 }).format(value);
  }
  if (abs >= 10) {
    return new Intl.NumberFormat(NUMBER_LOCALE, { maximumFractionDigits: 1 }).format(value);
  }
  if (abs >= 1) {
    return new Intl.NumberFormat(NUMBER_LOCALE, { maximumFractionDigits: 2 }).format(value);
  }
  return new Intl.NumberFormat(NUMBER_LOCALE, { maximumSignificantDigits: 3 }).format(value);
}
