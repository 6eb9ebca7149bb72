import { Link } from "react-router";
import type { Drive } from "../../api/types";
import { formatCapacity } from "../../lib/format-utils";
import { Badge, SimulatedBadge } from "../badge/badge";
import { FormField } from "../form-field/form-field";
import { driveOptionText, driveState, groupByBench } from "./drive-select-utils";
import "./drive-select.css";

interface DriveSelectProps {
  drives: Drive[];
  value: number | null;
  onChange: (driveId: number | null) => void;
  error?: string | null;
  disabled?: boolean;
}

/** Pick a drive, grouped by bench, each with model, capacity, serial and busy or free. */
export function DriveSelect({ drives, value, onChange, error, disabled }: DriveSelectProps) {
  const selected = drives.find((d) => d.id === value) ?? null;
  return (
    <div className="drive-select">
      <FormField label="Drive" error={error}>
        <select
          name="drive"
          value={value === null ? "" : String(value)}
          disabled={disabled}
          onChange={(e) => onChange(e.target.value ? Number(e.target.value) : null)}
        >
          <option value="">Choose a drive…</option>
          {groupByBench(drives).map((group) => (
            <optgroup
              key={group.bench.id}
              label={`Bench ${group.bench.name} (${group.bench.online ? "online" : "offline"})`}
            >
              {group.drives.map((d) => (
                <option key={d.id} value={d.id}>
                  {driveOptionText(d)}
                </option>
              ))}
            </optgroup>
          ))}
        </select>
      </FormField>
      <div className="drive-select__card" aria-live="polite">
        {selected ? (
          <dl className="facts">
            <div>
              <dt>Model</dt>
              <dd>
                {selected.model.vendor} {selected.model.model}{" "}
                {selected.simulated && <SimulatedBadge emulated={selected.emulated} />}
              </dd>
            </div>
            <div>
              <dt>Capacity</dt>
              <dd>{formatCapacity(selected.model.capacity_bytes)}</dd>
            </div>
            <div>
              <dt>Serial</dt>
              <dd className="mono">{selected.serial}</dd>
            </div>
            <div>
              <dt>Bench</dt>
              <dd>
                {selected.bench.name}{" "}
                <Badge tone={selected.bench.online ? "ok" : "warn"}>
                  {selected.bench.online ? "online" : "offline"}
                </Badge>
              </dd>
            </div>
            <div>
              <dt>State</dt>
              <dd>
                {selected.active_run_id !== null ? (
                  <>
                    <Link to={`/runs/${selected.active_run_id}`}>run #{selected.active_run_id}</Link>
                    {(selected.waiting_run_ids ?? []).length > 0 &&
                      `, ${(selected.waiting_run_ids ?? []).length} waiting`}
                    <span className="muted"> · a new run waits its turn</span>
                  </>
                ) : (
                  <Badge tone="ok">{driveState(selected)}</Badge>
                )}
              </dd>
            </div>
          </dl>
        ) : (
          <p className="muted">Pick the drive to test.</p>
        )}
      </div>
    </div>
  );
}
