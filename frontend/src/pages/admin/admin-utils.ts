import type { AuditEvent } from "../../api/audit/types";
import type { UserCreate, UserRole, UserToken } from "../../api/users/types";
import type { BenchDevice } from "../../api/benches/queries";
import type { Drive, Me } from "../../api/types";

export const ROLES: readonly UserRole[] = ["viewer", "reviewer", "admin"];

/** Only admins manage users and tokens and read the audit log. */
export const isAdmin = (me: Me | undefined): boolean => me?.role === "admin";

export interface NewUserValues {
  name: string;
  role: string;
  password: string;
}

/**
 * The add-user form as the api's body: the name trimmed, the password only when one was
 * typed (none: the user signs in with one-time links). Errors: what the form can tell itself.
 */
export function newUserPayload(values: NewUserValues): {
  payload: UserCreate;
  errors: Record<string, string>;
} {
  const errors: Record<string, string> = {};
  const name = values.name.trim();
  if (!name) errors.name = "is required";
  const role = ROLES.find((r) => r === values.role);
  if (!role) errors.role = "choose viewer, reviewer or admin";
  const payload: UserCreate = { name, role: role ?? "viewer" };
  if (values.password !== "") payload.password = values.password;
  return { payload, errors };
}

/** A token works until it is revoked. */
export const tokenActive = (t: UserToken): boolean => t.revoked_at === null;

/** What an audit entry is about, compactly: "user bob · run #12 · drive 3". */
export function auditSubject(e: Pick<AuditEvent, "subject" | "run_id" | "drive_id">): string {
  const parts: string[] = [];
  if (e.subject) parts.push(e.subject);
  if (e.run_id !== null) parts.push(`run #${e.run_id}`);
  if (e.drive_id !== null) parts.push(`drive ${e.drive_id}`);
  return parts.join(" · ");
}

function detailValue(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/** An entry's details on one line: "from=reviewer to=viewer", nested values as JSON. */
export function formatDetails(details: Record<string, unknown>): string {
  return Object.entries(details)
    .map(([key, value]) => `${key}=${detailValue(value)}`)
    .join(" ");
}

/** The drive filter as typed: empty is no filter, else a whole number of at least 1. */
export function parseDriveFilter(text: string): { driveId: number | null; error: string | null } {
  const t = text.trim();
  if (!t) return { driveId: null, error: null };
  if (!/^\d+$/.test(t) || Number(t) < 1) return { driveId: null, error: "is a drive id: 1, 2, 3…" };
  return { driveId: Number(t), error: null };
}

/**
 * The `before_id` of the next older page: the oldest entry shown, when the page was full
 * (a shorter page is the end of the log).
 */
export function olderCursor(events: readonly Pick<AuditEvent, "id">[], limit: number): number | null {
  if (events.length < limit || events.length === 0) return null;
  return events[events.length - 1]!.id;
}

/** The registered drive a device is on the same bench: the one at its path with its serial
 * first, then one with its serial under another name (a /dev/disk/by-id link). A drive at its
 * path with another serial is `previous`: another drive is there now, which the api registers
 * only by another name (its by-id link) or after the old one is moved. */
export function registeredAs(
  bench: string,
  device: BenchDevice,
  drives: Drive[],
): { drive: Drive | null; previous: Drive | null } {
  const mine = drives.filter((d) => d.bench.name === bench);
  const atPath = mine.filter((d) => d.target_path === device.path);
  const drive =
    atPath.find((d) => d.serial === device.serial) ??
    mine.find((d) => d.serial === device.serial) ??
    null;
  return { drive, previous: drive ? null : (atPath[0] ?? null) };
}
