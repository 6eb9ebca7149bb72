import { cloneElement, isValidElement, useId, type ReactElement, type ReactNode } from "react";
import "./form-field.css";

interface FormFieldProps {
  label: ReactNode;
  /** Help text under the input (the parameter's description). */
  help?: ReactNode;
  /** The problem with the value, shown next to it and announced. */
  error?: string | null | undefined;
  /** One input, select or textarea: it gets the id, aria-invalid and aria-describedby. */
  children: ReactElement<Record<string, unknown>>;
  /** A checkbox sits before its label. */
  inline?: boolean;
  className?: string;
}

/** A labelled form control with its help text and its error, wired for screen readers. */
export function FormField({ label, help, error, children, inline, className }: FormFieldProps) {
  const id = useId();
  const helpId = `${id}-help`;
  const errorId = `${id}-error`;
  const describedBy = [error ? errorId : null, help ? helpId : null].filter(Boolean).join(" ");
  const control = isValidElement(children)
    ? cloneElement(children, {
        id,
        "aria-invalid": error ? true : undefined,
        "aria-describedby": describedBy || undefined,
      })
    : children;
  const classes = ["form-field", inline ? "form-field--inline" : "", error ? "form-field--error" : "", className ?? ""]
    .filter(Boolean)
    .join(" ");
  return (
    <div className={classes}>
      {inline ? (
        <div className="form-field__inline">
          {control}
          <label htmlFor={id} className="form-field__label">
            {label}
          </label>
        </div>
      ) : (
        <>
          <label htmlFor={id} className="form-field__label">
            {label}
          </label>
          {control}
        </>
      )}
      {error && (
        <p id={errorId} className="form-field__error" role="alert">
          {error}
        </p>
      )}
      {help && (
        <p id={helpId} className="form-field__help">
          {help}
        </p>
      )}
    </div>
  );
}

/** A group of checkboxes or radios under one legend, with help and error. */
export function FormFieldset({
  legend,
  help,
  error,
  children,
}: {
  legend: ReactNode;
  help?: ReactNode;
  error?: string | null | undefined;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <fieldset
      className={error ? "form-field form-fieldset form-field--error" : "form-field form-fieldset"}
      aria-describedby={error ? `${id}-error` : undefined}
    >
      <legend className="form-field__label">{legend}</legend>
      <div className="form-fieldset__options">{children}</div>
      {error && (
        <p id={`${id}-error`} className="form-field__error" role="alert">
          {error}
        </p>
      )}
      {help && <p className="form-field__help">{help}</p>}
    </fieldset>
  );
}
