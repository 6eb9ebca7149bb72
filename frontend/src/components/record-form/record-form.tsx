import { useState, type FormEvent, type ReactNode } from "react";
import { ErrorBox } from "../error-box/error-box";
import { FormField } from "../form-field/form-field";
import "../form-field/form-field.css";
import "./record-form.css";

export interface RecordField {
  name: string;
  label: string;
  kind?: "text" | "select" | "date" | "textarea";
  options?: { value: string; label: string }[];
  help?: ReactNode;
  placeholder?: string;
  mono?: boolean;
}

export type RecordValues = Record<string, string>;

/** What a submit found wrong: per field, and about the form as a whole. */
export interface RecordErrors {
  fields: Record<string, string>;
  form?: unknown;
}

interface RecordFormProps {
  fields: RecordField[];
  initial: RecordValues;
  submitLabel: string;
  /** Check and send; resolve with errors to show, or null when saved. */
  onSubmit: (values: RecordValues) => Promise<RecordErrors | null>;
  onCancel?: () => void;
  /** Start again from `initial` after a save (an "add" form). */
  resetOnSave?: boolean;
  disabled?: boolean;
  /** Accessible name of the form ("Add a model", "Edit model 3"). */
  label: string;
}

/**
 * A small catalog form: labelled inputs, errors next to the field the api names (or above the
 * buttons), and what was typed kept when the save fails.
 */
export function RecordForm({
  fields,
  initial,
  submitLabel,
  onSubmit,
  onCancel,
  resetOnSave,
  disabled,
  label,
}: RecordFormProps) {
  const [values, setValues] = useState<RecordValues>(initial);
  const [errors, setErrors] = useState<RecordErrors>({ fields: {} });
  const [saving, setSaving] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    try {
      const result = await onSubmit(values);
      if (result) {
        setErrors(result);
      } else {
        setErrors({ fields: {} });
        if (resetOnSave) setValues(initial);
      }
    } finally {
      setSaving(false);
    }
  };

  return (
    <form className="record-form" onSubmit={(e) => void submit(e)} aria-label={label} noValidate>
      <fieldset disabled={disabled || saving} className="record-form__fields">
        {fields.map((f) => {
          const common = {
            name: f.name,
            value: values[f.name] ?? "",
            className: f.mono ? "mono" : undefined,
            onChange: (e: { target: { value: string } }) =>
              setValues((prev) => ({ ...prev, [f.name]: e.target.value })),
          };
          return (
            <FormField key={f.name} label={f.label} help={f.help} error={errors.fields[f.name]}>
              {f.kind === "select" ? (
                <select {...common}>
                  <option value="">Choose…</option>
                  {f.options?.map((o) => (
                    <option key={o.value} value={o.value}>
                      {o.label}
                    </option>
                  ))}
                </select>
              ) : f.kind === "textarea" ? (
                <textarea {...common} placeholder={f.placeholder} spellCheck={false} />
              ) : (
                <input
                  {...common}
                  type={f.kind === "date" ? "date" : "text"}
                  placeholder={f.placeholder}
                  autoComplete="off"
                />
              )}
            </FormField>
          );
        })}
      </fieldset>
      {errors.form !== undefined && <ErrorBox error={errors.form} title="Not saved" />}
      <div className="record-form__actions">
        <button type="submit" className="button button--primary" disabled={disabled || saving}>
          {saving ? "Saving…" : submitLabel}
        </button>
        {onCancel && (
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
