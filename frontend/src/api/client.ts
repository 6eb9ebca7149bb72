import { csrfHeaders } from "../lib/auth-utils";
import type { ApiErrorBody } from "./types";

/** Same origin: the FastAPI app serves the frontend and the api (Vite proxies it in dev). */
export const API_BASE = "/api";

/**
 * A failed api call, carrying the server's `detail` as its message, the request `field` at
 * fault when the api names one, and the parsed error body (CSV import lists bad rows there).
 */
export class ApiError extends Error {
  readonly status: number;
  readonly field: string | null;
  readonly body: unknown;

  constructor(status: number, message: string, field: string | null = null, body: unknown = null) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.field = field;
    this.body = body;
  }
}

function fieldOf(body: unknown): string | null {
  if (typeof body !== "object" || body === null) return null;
  const field = (body as { field?: unknown }).field;
  return typeof field === "string" ? field : null;
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
  options: { body?: unknown; text?: { body: string; type: string }; signal?: AbortSignal } = {},
): Promise<T> {
  const headers: Record<string, string> = {
    Accept: "application/json",
    ...csrfHeaders(method, typeof document === "undefined" ? "" : document.cookie),
  };
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  if (options.text !== undefined) headers["Content-Type"] = options.text.type;
  const payload =
    options.text !== undefined
      ? options.text.body
      : options.body === undefined
        ? null
        : JSON.stringify(options.body);
  let response: Response;
  try {
    response = await fetch(`${API_BASE}${path}`, {
      method,
      headers,
      body: payload,
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
    throw new ApiError(response.status, message, fieldOf(body), body);
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

export function apiPatch<T>(path: string, body: unknown): Promise<T> {
  return request<T>("PATCH", path, { body });
}

export function apiDelete(path: string): Promise<null> {
  return request<null>("DELETE", path, {});
}

/** POST a text body as is (a CSV file), with its content type. */
export function apiPostText<T>(path: string, text: string, type: string): Promise<T> {
  return request<T>("POST", path, { text: { body: text, type } });
}
