import type { PriceTable } from "../../api/prices/queries";
import type { ValueComparison } from "../../api/results/types";
import { csvDocument, toCsv } from "../../lib/export-utils";
import { driveName } from "../../lib/series-utils";

/** The price table as CSV: one row per model, its class, lowest price and price per GB;
 * with a comparison's performance per dollar, its rows after (a second table). */
export function priceTableCsv(table: PriceTable, value: ValueComparison | null = null): string {
  const prices = priceRowsCsv(table);
  if (!value || value.rows.length === 0) return prices;
  const perDollar = csvDocument(
    { title: `Performance per ${table.currency}`, metric: `${value.metric} (${value.unit})` },
    ["drive", "value", "lowest price", "currency", "retailer date", value.unit],
    value.rows.map((r) => [driveName(r), r.value, r.price, r.currency, r.price_date, r.per_unit_price]),
  );
  return `${prices}\n${perDollar}`;
}

function priceRowsCsv(table: PriceTable): string {
  const rows = table.classes.flatMap((c) =>
    c.models.map((m) => [
      c.label,
      m.vendor,
      m.model,
      m.capacity_label,
      m.lowest.price,
      table.currency,
      m.lowest.retailer,
      m.lowest.observed_on,
      m.price_per_gb,
      m.lowest.source ?? "",
    ]),
  );
  return toCsv(
    ["class", "vendor", "model", "capacity", "lowest price", "currency", "retailer", "date",
     "price per GB", "source"], // prettier-ignore
    rows,
  );
}

/** "$0.123" style money; 2 decimals, 3 below one unit (price per GB). */
export function formatMoney(value: number, currency: string): string {
  const digits = Math.abs(value) < 1 ? 3 : 2;
  try {
    return new Intl.NumberFormat("en-US", {
      style: "currency",
      currency,
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    }).format(value);
  } catch {
    return `${value.toFixed(digits)} ${currency}`;
  }
}

/** The address in a price's source ("https://... | Site: title (date)"), if it has one. */
export function sourceUrl(source: string | null | undefined): string | null {
  const first = (source ?? "").split(" | ")[0]?.trim() ?? "";
  return /^https?:\/\/\S+$/.test(first) ? first : null;
}
