"""A file copy step's findings (backend.plans.file_copy): each copy's throughput and its
standstills (backend.analysis.file_copy), from the samples stored for the step.

The worker runs the sources, copy 1, the deletions and copy 2 as one step on one clock and
says where each phase lies on it (`logs["phases"]`); a copy's samples are those that end
within its phase, on the copy's own clock from its start."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from backend.analysis.file_copy import copy_summary, findings
from backend.runs.models import Step

Metric = tuple[str, float, str]
COPIES = (("copy-1", "first"), ("copy-2", "repeated"))


def phase_samples(samples: list[Any], phase: dict[str, Any]) -> list[Any]:
    a, b = int(phase["t_start_ms"]), int(phase["t_end_ms"])
    return [s for s in samples if a < s.t_ms <= b]


def derive_file_copy(session: Session, step: Step) -> tuple[list[Metric], dict[str, Any]]:
    from backend.results.service import step_samples  # noqa: PLC0415 - it imports this module

    logs = step.logs or {}
    phases = {p["phase"]: p for p in logs.get("phases") or []}
    if not all(name in phases for name, _ in COPIES):
        return [], {}
    samples = step_samples(session, step.id)
    copies: dict[str, dict[str, Any]] = {}
    metrics: list[Metric] = []
    for name, which in COPIES:
        phase = phases[name]
        rows = phase_samples(samples, phase)
        if not rows:
            return [], {}
        start = int(phase["t_start_ms"])
        summary = copy_summary(
            [s.t_ms - start for s in rows], [s.dt_ms for s in rows], [s.write_bytes for s in rows]
        )
        copies[which] = {"phase": name, "t_start_ms": start, **summary}
        metrics += [
            (f"file_copy_{which}_mbps", summary["mbps"], "MB/s"),
            (f"file_copy_{which}_standstills", summary["count"], "count"),
            (f"file_copy_{which}_standstill_s", summary["total_s"], "s"),
            (f"file_copy_{which}_longest_standstill_s", summary["longest_s"], "s"),
        ]
    deleted = float(step.params.get("delete_bytes") or 0)
    deletion = logs.get("deletion") or {}
    words = findings(copies["first"], copies["repeated"], deleted)
    out = {
        "first": copies["first"],
        "repeated": copies["repeated"],
        "deleted_bytes": deleted,
        "discarded_bytes": deletion.get("discarded_bytes"),
        "delete_seconds": deletion.get("seconds"),
        "copy_bytes": float(step.params.get("copy_bytes") or 0),
        "words": words,
    }
    return metrics, {"file_copy": out}
