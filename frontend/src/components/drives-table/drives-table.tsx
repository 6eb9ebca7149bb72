import { Link } from "react-router";
import type { Drive } from "../../api/types";
import { formatCapacity } from "../../lib/format-utils";
import { Badge, EmbargoBadge, SimulatedBadge } from "../badge/badge";
import { TableStateRow } from "../table-states/table-states";
import "./drives-table.css";

const COLUMNS = 6;

interface DrivesTableProps {
  drives: Drive[] | undefined;
  loading: boolean;
}

export function DrivesTable({ drives, loading }: DrivesTableProps) {
  return (
    <div className="table-wrap">
      <table className="table drives-table">
        <thead>
          <tr>
            <th className="num">ID</th>
            <th>Model</th>
            <th className="num">Capacity</th>
            <th>Serial</th>
            <th>Bench</th>
            <th>State</th>
          </tr>
        </thead>
        <tbody>
          {loading && !drives && <TableStateRow colSpan={COLUMNS}>Loading drives…</TableStateRow>}
          {drives && drives.length === 0 && (
            <TableStateRow colSpan={COLUMNS}>No drives registered yet.</TableStateRow>
          )}
          {drives?.map((drive) => (
            <tr key={drive.id}>
              <td className="num mono">{drive.id}</td>
              <td>
                <span className="drives-table__model">
                  {drive.model.vendor} {drive.model.model}
                  {drive.simulated && <SimulatedBadge />}
                  {drive.embargoed && <EmbargoBadge />}
                </span>
                <span className="cell-sub">
                  {drive.model.interface ?? "interface unknown"}
                  {" · "}
                  <span className="mono" title="Target path">
                    {drive.target_path}
                  </span>
                </span>
              </td>
              <td className="num">{formatCapacity(drive.model.capacity_bytes)}</td>
              <td>
                <span className="mono">{drive.serial}</span>
                <span className="cell-sub">{drive.firmware ? `fw ${drive.firmware}` : "fw —"}</span>
              </td>
              <td>
                <span className="drives-table__bench">
                  <span
                    className={`drives-table__dot drives-table__dot--${drive.bench.online ? "on" : "off"}`}
                    aria-hidden="true"
                  />
                  {drive.bench.name}
                </span>
                <span className="cell-sub">{drive.bench.online ? "online" : "offline"}</span>
              </td>
              <td>
                {drive.active_run_id !== null ? (
                  <span className="drives-table__state">
                    <Badge tone="info">busy</Badge>
                    <Link to={`/runs/${drive.active_run_id}`}>run #{drive.active_run_id}</Link>
                  </span>
                ) : (
                  <Badge tone="ok">free</Badge>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
