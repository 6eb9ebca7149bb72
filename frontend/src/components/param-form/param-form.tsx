import { FormField, FormFieldset } from "../form-field/form-field";
import type { FieldErrors, FieldSpec, FieldValue, FormValues } from "./param-form-utils";
import "./param-form.css";

interface ParamFormProps {
  fields: readonly FieldSpec[];
  values: FormValues;
  errors: FieldErrors;
  onChange: (name: string, value: FieldValue) => void;
  disabled?: boolean;
  /** Fields that differ from the review default, marked as changed. */
  changed?: readonly string[];
}

function rangeHelp(field: FieldSpec): string {
  const parts: string[] = [];
  if (field.minimum !== undefined && field.maximum !== undefined) {
    parts.push(`${field.minimum} – ${field.maximum}`);
  } else if (field.minimum !== undefined) {
    parts.push(`≥ ${field.minimum}`);
  } else if (field.maximum !== undefined) {
    parts.push(`≤ ${field.maximum}`);
  }
  if (field.nullable) parts.push("empty for none");
  return parts.join(", ");
}

function helpText(field: FieldSpec): string {
  const extra = field.kind === "integer" || field.kind === "number" || field.kind === "text" ? rangeHelp(field) : "";
  const review =
    field.default === undefined
      ? ""
      : `review default: ${
          field.default === null
            ? "none"
            : Array.isArray(field.default)
              ? field.default.join(", ")
              : String(field.default)
        }`;
  return [field.description, [extra, review].filter(Boolean).join("; ")].filter(Boolean).join(" · ");
}

/** A plan's parameters as a form generated from its JSON schema. */
export function ParamForm({ fields, values, errors, onChange, disabled, changed = [] }: ParamFormProps) {
  return (
    <div className="param-form">
      {fields.map((field) => {
        const value = values[field.name];
        const error = errors[field.name];
        const label = (
          <>
            <span className="mono">{field.name}</span>
            {changed.includes(field.name) && <span className="param-form__changed">changed</span>}
          </>
        );
        const help = helpText(field);
        const name = `param-${field.name}`;
        switch (field.kind) {
          case "boolean":
            return (
              <FormField key={field.name} label={label} help={help} error={error} inline>
                <input
                  type="checkbox"
                  name={name}
                  checked={value === true}
                  disabled={disabled}
                  onChange={(e) => onChange(field.name, e.target.checked)}
                />
              </FormField>
            );
          case "multi": {
            const picked = Array.isArray(value) ? value : [];
            return (
              <FormFieldset key={field.name} legend={label} help={help} error={error}>
                {field.options.map((option) => {
                  const text = String(option);
                  return (
                    <label key={text}>
                      <input
                        type="checkbox"
                        name={name}
                        value={text}
                        checked={picked.includes(text)}
                        disabled={disabled}
                        onChange={(e) =>
                          onChange(
                            field.name,
                            e.target.checked ? [...picked, text] : picked.filter((p) => p !== text),
                          )
                        }
                      />
                      {text}
                    </label>
                  );
                })}
              </FormFieldset>
            );
          }
          case "enum":
            return (
              <FormField key={field.name} label={label} help={help} error={error}>
                <select
                  name={name}
                  value={typeof value === "string" ? value : ""}
                  disabled={disabled}
                  onChange={(e) => onChange(field.name, e.target.value)}
                >
                  {field.nullable && <option value="">— none —</option>}
                  {field.options.map((o) => (
                    <option key={String(o)} value={String(o)}>
                      {String(o)}
                    </option>
                  ))}
                </select>
              </FormField>
            );
          default: {
            const numeric = field.kind === "integer" || field.kind === "number";
            return (
              <FormField key={field.name} label={label} help={help} error={error}>
                <input
                  // Text, not type=number: what was typed stays as typed (never blanked by the
                  // browser), and the form, not the browser, says what is wrong with it.
                  type="text"
                  inputMode={numeric ? "numeric" : undefined}
                  name={name}
                  className={numeric ? "num" : "mono"}
                  value={typeof value === "string" ? value : ""}
                  placeholder={field.nullable ? "none" : undefined}
                  disabled={disabled}
                  autoComplete="off"
                  spellCheck={false}
                  onChange={(e) => onChange(field.name, e.target.value)}
                />
              </FormField>
            );
          }
        }
      })}
    </div>
  );
}
