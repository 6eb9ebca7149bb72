import { csrfHeaders } from "../lib/auth-utils";
import type { ApiErrorBody } from "./types";

/** Same origin: the FastAPI app serves the frontend and the api (Vite proxies it in dev). */
export const API_BASE = "/api";

/** A failed api call, carrying the server's `detail` as its message. */
export class ApiError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.name = "ApiError";
    this.status = status;
  }
}

function detailMessage(body: unknown): string | null {
  if (typeof body !== "object" || body === null || !("detail" in body)) return null;
  const detail = (body as ApiErrorBody).detail;
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    return detail.map((d) => (d.loc ? `${d.loc.join(".")}: ${d.msg}` : d.msg)).join("; ");
  }
  return null;
}

type Method = "GET" | "POST" | "PATCH" | "DELETE";

/**
 * One api call. The browser sends the session cookie (same origin); unsafe methods echo the
 * CSRF cookie in X-CSRF-Token, as the api requires of cookie sessions.
 */
async function request<T>(
  method: Method,
  path: string,
  options: { body?: unknown; signal?: AbortSignal } = {},
): Promise<T> {
  const headers: Record<string, string> = {
    Accept: "application/json",
    ...csrfHeaders(method, typeof document === "undefined" ? "" : document.cookie),
  };
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  let response: Response;
  try {
    response = await fetch(`${API_BASE}${path}`, {
      method,
      headers,
      body: options.body === undefined ? null : JSON.stringify(options.body),
      credentials: "same-origin",
      signal: options.signal ?? null,
    });
  } catch (err) {
    if (err instanceof DOMException && err.name === "AbortError") throw err;
    throw new ApiError(0, `Could not reach the api (${method} ${API_BASE}${path}).`);
  }

  const text = await response.text();
  let body: unknown = null;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
  }
  if (!response.ok) {
    const message =
      detailMessage(body) ??
      `${method} ${API_BASE}${path} failed: ${response.status} ${response.statusText}`;
    throw new ApiError(response.status, message);
  }
  if (body === null && text) {
    throw new ApiError(response.status, `${method} ${API_BASE}${path} did not return JSON.`);
  }
  return body as T;
}

export function apiGet<T>(path: string, signal?: AbortSignal): Promise<T> {
  return request<T>("GET", path, { signal });
}

export function apiPost<T>(path: string, body?: unknown): Promise<T> {
  return request<T>("POST", path, { body });
}
