import type { AuditFilter } from "./types";

/** The audit log (admins). */
export const auditKeys = {
  all: ["audit"] as const,
  list: (filter: AuditFilter) => [...auditKeys.all, "list", filter] as const,
};
