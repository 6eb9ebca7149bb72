import type { Drive } from "../../api/types";
import { formatCapacity } from "../../lib/format-utils";
import { colorOf, type DriveStyle } from "../../lib/house-style";
import { SimulatedBadge } from "../badge/badge";
import "./drive-picker.css";

interface Props {
  drives: Drive[];
  chosen: number[];
  underReview: number | null;
  styles: Map<number, DriveStyle>;
  onChange: (chosen: number[], underReview: number | null) => void;
}

/** Checkboxes for the drives to compare and a radio for the drive under review. */
export function DrivePicker({ drives, chosen, underReview, styles, onChange }: Props) {
  const toggle = (id: number, on: boolean) => {
    const next = on ? [...chosen, id] : chosen.filter((d) => d !== id);
    onChange(next, next.includes(underReview ?? -1) ? underReview : null);
  };
  return (
    <fieldset className="drive-picker">
      <legend>Drives</legend>
      {drives.length === 0 ? (
        <p className="muted">No drives yet: register one on the Lab page, or run `drivelab demo`.</p>
      ) : (
        <ul className="drive-picker__list">
          {drives.map((d) => {
            const on = chosen.includes(d.id);
            return (
              <li key={d.id} className="drive-picker__row">
                <span
                  className="drive-picker__swatch"
                  style={{ background: on ? colorOf(styles, d.id) : "transparent" }}
                  aria-hidden="true"
                />
                <label>
                  <input
                    type="checkbox"
                    value={d.id}
                    checked={on}
                    onChange={(e) => toggle(d.id, e.target.checked)}
                  />{" "}
                  {d.model.vendor} {d.model.model}{" "}
                  <span className="muted">{formatCapacity(d.model.capacity_bytes)}</span>
                </label>
                {d.simulated && <SimulatedBadge emulated={d.emulated} />}
                <label className="drive-picker__review">
                  <input
                    type="radio"
                    name="under-review"
                    value={d.id}
                    aria-label={`${d.label} is under review`}
                    disabled={!on}
                    checked={underReview === d.id}
                    onChange={() => onChange(chosen, d.id)}
                  />
                  under review
                </label>
              </li>
            );
          })}
        </ul>
      )}
    </fieldset>
  );
}
