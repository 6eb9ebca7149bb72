import { formatDateTime, formatFullDateTime } from "../../lib/format-utils";

/** A timestamp in local time, short in the cell and in full on hover. */
export function TimeText({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span className="muted">—</span>;
  return (
    <time dateTime={iso} title={formatFullDateTime(iso)} className="nowrap">
      {formatDateTime(iso)}
    </time>
  );
}
