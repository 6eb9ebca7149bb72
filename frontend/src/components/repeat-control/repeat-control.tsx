import { FormField } from "../form-field/form-field";
import type { RepeatField, RepeatMode, RepeatValues } from "./repeat-utils";
import "./repeat-control.css";

interface RepeatControlProps {
  values: RepeatValues;
  onChange: (values: RepeatValues) => void;
  /** What to fix, per input ("repeat": about the whole choice). */
  errors: Partial<Record<RepeatField | "repeat", string>>;
}

const MODES: { mode: RepeatMode; label: string }[] = [
  { mode: "once", label: "once" },
  { mode: "times", label: "N times" },
  { mode: "stable", label: "until stable" },
];

/** Runs: once, N times, or until stable (a series of repeats, GET /api/series/{id}). */
export function RepeatControl({ values, onChange, errors }: RepeatControlProps) {
  const set = (change: Partial<RepeatValues>) => onChange({ ...values, ...change });
  return (
    <fieldset className="repeat-control" aria-describedby="repeat-control-help">
      <legend className="form-field__label">Runs</legend>
      <div className="repeat-control__modes" role="radiogroup" aria-label="Runs">
        {MODES.map((m) => (
          <label key={m.mode} className="repeat-control__mode">
            <input
              type="radio"
              name="repeat_mode"
              value={m.mode}
              checked={values.mode === m.mode}
              onChange={() => set({ mode: m.mode })}
            />{" "}
            {m.label}
          </label>
        ))}
      </div>
      {values.mode === "times" && (
        <div className="repeat-control__inputs">
          <FormField label="Times" error={errors.times}>
            <input
              type="number"
              name="repeat_times"
              min={2}
              max={50}
              step={1}
              value={values.times}
              onChange={(e) => set({ times: e.target.value })}
            />
          </FormField>
        </div>
      )}
      {values.mode === "stable" && (
        <div className="repeat-control__inputs">
          <FormField label="At most (runs)" error={errors.max_runs}>
            <input
              type="number"
              name="repeat_max_runs"
              min={2}
              max={50}
              step={1}
              value={values.maxRuns}
              onChange={(e) => set({ maxRuns: e.target.value })}
            />
          </FormField>
          <FormField label="At least (runs)" error={errors.min_runs}>
            <input
              type="number"
              name="repeat_min_runs"
              min={2}
              max={50}
              step={1}
              value={values.minRuns}
              onChange={(e) => set({ minRuns: e.target.value })}
            />
          </FormField>
          <FormField label="RSD threshold (%)" error={errors.rsd_pct}>
            <input
              type="number"
              name="repeat_rsd_pct"
              min={0}
              max={100}
              step="any"
              value={values.rsdPct}
              onChange={(e) => set({ rsdPct: e.target.value })}
            />
          </FormField>
        </div>
      )}
      {errors.repeat && (
        <p className="form-field__error" role="alert">
          {errors.repeat}
        </p>
      )}
      <p id="repeat-control-help" className="muted repeat-control__help">
        {values.mode === "once"
          ? "One run of the plan."
          : values.mode === "times"
            ? "The plan runs this many times as one series; each repeat is queued when the one before finishes."
            : "The plan repeats while any MB/s or IOPS figure's relative standard deviation over the runs is at or above the threshold, from the least to the most runs."}
      </p>
    </fieldset>
  );
}
