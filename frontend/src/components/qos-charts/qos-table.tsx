import { formatLatency, QOS_COLUMNS, qosValue, type QosRow, NOT_ENOUGH } from "./qos-utils";
import "./qos-charts.css";

/** Mean, p50 ... p99.999 and max per test and direction; a percentile the I/O count cannot
 * support says so (the reason in its tooltip). The drive under review's rows are marked. */
export function QosTable({ rows, caption }: { rows: QosRow[]; caption: string }) {
  return (
    <div className="qos-table-wrap">
      <table className="table qos-table" data-testid="qos-table">
        <caption className="qos-table__caption">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Test</th>
            <th scope="col">I/O</th>
            <th scope="col" className="num">
              I/Os
            </th>
            {QOS_COLUMNS.map((c) => (
              <th key={c.key} scope="col" className="num">
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr
              key={`${r.label}:${r.direction}`}
              className={r.highlight ? "qos-table__row--review" : undefined}
            >
              <td>{r.label}</td>
              <td>{r.direction}</td>
              <td className="num">{r.qos.ios.toLocaleString("en-US")}</td>
              {QOS_COLUMNS.map((c) => {
                const v = qosValue(r.qos, c.key);
                return v.us === null ? (
                  <td key={c.key} className="num muted qos-table__missing" title={v.reason}>
                    {NOT_ENOUGH}
                  </td>
                ) : (
                  <td key={c.key} className="num">
                    {formatLatency(v.us)}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
