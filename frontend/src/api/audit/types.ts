import type { components } from "../schema";

/** One entry of the audit log (GET /api/audit). */
export type AuditEvent = components["schemas"]["AuditEventOut"];

/** GET /api/audit's filters; `beforeId` pages back to older entries. */
export interface AuditFilter {
  limit: number;
  action?: string | null;
  driveId?: number | null;
  beforeId?: number | null;
}
