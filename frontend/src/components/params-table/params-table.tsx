import { useMemo } from "react";
import type { ParamsSchema } from "../../api/types";
import { TableStateRow } from "../table-states/table-states";
import { paramRows } from "./params-utils";
import "./params-table.css";

/** A plan's parameters from its JSON schema: name, type, default, description. */
export function ParamsTable({ schema }: { schema: ParamsSchema }) {
  const rows = useMemo(() => paramRows(schema), [schema]);
  return (
    <div className="table-wrap">
      <table className="table params-table">
        <thead>
          <tr>
            <th>Parameter</th>
            <th>Type</th>
            <th>Default</th>
            <th>Description</th>
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 && (
            <TableStateRow colSpan={4}>This plan takes no parameters.</TableStateRow>
          )}
          {rows.map((row) => (
            <tr key={row.name}>
              <td className="mono params-table__name">
                {row.name}
                {row.required && (
                  <span className="params-table__required" title="required">
                    {" "}
                    *
                  </span>
                )}
              </td>
              <td>
                <span className="mono">{row.type}</span>
                {row.allowed && <span className="cell-sub">{row.allowed}</span>}
              </td>
              <td className="mono">
                {row.default === null ? (
                  <span className="muted">{row.required ? "required" : "—"}</span>
                ) : (
                  row.default
                )}
              </td>
              <td>{row.description || <span className="muted">—</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
