import type { RunStatus, StepStatus } from "../../api/types";
import { Badge, type BadgeTone } from "../badge/badge";
import "./status-badge.css";

const TONES: Record<RunStatus | StepStatus, BadgeTone> = {
  queued: "neutral",
  pending: "neutral",
  running: "info",
  done: "ok",
  failed: "danger",
  lost: "danger",
  cancelled: "warn",
  skipped: "neutral",
};

export function statusTone(status: RunStatus | StepStatus): BadgeTone {
  return TONES[status] ?? "neutral";
}

export function StatusBadge({ status }: { status: RunStatus | StepStatus }) {
  return (
    <Badge tone={statusTone(status)}>
      {status === "running" && <span className="status-badge__pulse" aria-hidden="true" />}
      {status}
    </Badge>
  );
}
