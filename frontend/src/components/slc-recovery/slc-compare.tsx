import type { Comparison } from "../../api/results/types";
import { gb, slcCompare } from "./slc-utils";
import "../cdm-table/cdm-table.css";

/** Compare: each drive's SLC cache (slc-cache plan) and what each idle gap gave back. */
export function SlcCompare({ comparison, drives }: { comparison: Comparison | undefined; drives: number[] }) {
  const { drives: rows, idles } = slcCompare(comparison?.metrics ?? [], drives);
  if (rows.length === 0) return <p className="muted">No drive has a finished slc-cache run.</p>;
  return (
    <div data-chart="slc-compare">
      <table className="cdm-table">
        <thead>
          <tr>
            <th scope="col">drive</th>
            <th scope="col">cache (GB)</th>
            <th scope="col">MB/s in it → after</th>
            {idles.map((s) => (
              <th key={s} scope="col">
                recovered after {s} s idle (GB)
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((d) => (
            <tr key={d.driveId} data-drive={d.driveId}>
              <th scope="row">{d.name}</th>
              <td>{d.cacheGb !== null ? gb(d.cacheGb) : "none seen"}</td>
              <td>
                {d.cacheMbps !== null && d.afterMbps !== null
                  ? `${gb(d.cacheMbps)} → ${gb(d.afterMbps)}`
                  : "–"}
              </td>
              {idles.map((s) => {
                const v = d.recovered.get(s);
                return <td key={s}>{v ? `${v.atLeast ? "≥ " : ""}${gb(v.gb)}` : "–"}</td>;
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">
        Cache: GB written before the fill's first step-down; recovered: GB before each refill's. A cache smaller than
        2% of the pass or written in under 1.5 s cannot be seen; 0 is none seen, ≥ a refill that ran at cache speed
        throughout.
      </p>
    </div>
  );
}
