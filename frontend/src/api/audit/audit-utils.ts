import type { AuditFilter } from "./types";

/** The query string of GET /api/audit: the limit, and only the filters that are set. */
export function auditSearch(filter: AuditFilter): string {
  const params = new URLSearchParams({ limit: String(filter.limit) });
  const action = filter.action?.trim();
  if (action) params.set("action", action);
  if (filter.driveId !== null && filter.driveId !== undefined) {
    params.set("drive_id", String(filter.driveId));
  }
  if (filter.beforeId !== null && filter.beforeId !== undefined) {
    params.set("before_id", String(filter.beforeId));
  }
  return params.toString();
}
