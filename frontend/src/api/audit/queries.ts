import { keepPreviousData, queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet } from "../client";
import { auditSearch } from "./audit-utils";
import { auditKeys } from "./keys";
import type { AuditEvent, AuditFilter } from "./types";

export const auditQuery = (filter: AuditFilter) =>
  queryOptions({
    queryKey: auditKeys.list(filter),
    queryFn: ({ signal }) => apiGet<AuditEvent[]>(`/audit?${auditSearch(filter)}`, signal),
  });

/** Newest first. The previous page stays on screen while the next one loads. */
export const useAudit = (filter: AuditFilter) =>
  useQuery({ ...auditQuery(filter), placeholderData: keepPreviousData });
