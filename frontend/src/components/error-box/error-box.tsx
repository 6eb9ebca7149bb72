import type { ReactNode } from "react";
import { ApiError } from "../../api/client";
import "./error-box.css";

export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

interface ErrorBoxProps {
  /** An error from a query or mutation, or a message from the api (a failed run's error). */
  error: unknown;
  title?: string;
  children?: ReactNode;
}

/** A visible error: the api's `detail` (or the run's error text), never swallowed. */
export function ErrorBox({ error, title = "Something went wrong", children }: ErrorBoxProps) {
  const message = typeof error === "string" ? error : errorMessage(error);
  const status = error instanceof ApiError && error.status > 0 ? error.status : null;
  return (
    <div className="error-box" role="alert">
      <div className="error-box__title">
        {title}
        {status !== null && <span className="error-box__status">HTTP {status}</span>}
      </div>
      <pre className="error-box__message">{message}</pre>
      {children}
    </div>
  );
}
