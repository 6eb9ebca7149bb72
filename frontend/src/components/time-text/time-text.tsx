import { formatDateTime, formatFullDateTime } from "../../lib/format-utils";

/**
 * A timestamp in local time, short in the cell and in full on hover; `withDate` always shows
 * the date (a log read later, where "14:03" alone would not say which day).
 */
export function TimeText({ iso, withDate = false }: { iso: string | null | undefined; withDate?: boolean }) {
  if (!iso) return <span className="muted">—</span>;
  return (
    <time dateTime={iso} title={formatFullDateTime(iso)} className="nowrap">
      {withDate ? formatFullDateTime(iso) : formatDateTime(iso)}
    </time>
  );
}
