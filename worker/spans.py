"""Does every step fit on the device? A plan is compiled by the api from the capacity the
catalog gives the drive's model; the worker knows the real size of what it opened. A model
entered larger than the device (a 2 TB model on a 1 TB sample, a typo) would otherwise send
fio past the device's end: fio then errors mid-run, after the drive was already purged and
written. Checked before the first step, so the run fails with a message that says what to fix.
"""

from __future__ import annotations

from typing import Any

from backend.plans.base import human_bytes, job_file_lines, parse_size


def _sections(job_file: str) -> list[dict[str, str]]:
    """Each section's options; the global section's apply to every job below it."""
    out: list[dict[str, str]] = []
    glob: dict[str, str] = {}
    current: dict[str, str] | None = None
    for raw in job_file_lines(job_file):
        line = raw.strip()
        if not line or line.startswith((";", "#")):
            continue
        if line.startswith("[") and line.endswith("]"):
            if line == "[global]":
                current = glob
            else:
                current = dict(glob)
                out.append(current)
            continue
        if current is not None:
            key, _sep, value = line.partition("=")
            current[key.strip()] = value.strip()
    return out


def _bytes(text: str | None) -> int:
    """A size or offset in fio's syntax; a percentage or nothing takes no room beyond the
    device (fio resolves percentages against the real size itself)."""
    if not text or text.endswith("%"):
        return 0
    return parse_size(text)


def furthest_byte(step: dict[str, Any]) -> int:
    """The end of the furthest range the step touches (0 when it names none)."""
    if step.get("kind") in ("trim", "purge") and step.get("params"):
        params = step["params"]
        if params.get("length") is None:  # none, or to the end of the device, whatever it is
            return 0
        return int(params.get("offset") or 0) + int(params["length"])
    job_file = step.get("job_file")
    if not job_file:
        return 0
    # A trace replays at its own offsets, recorded by the api when the run was queued.
    end = int((step.get("params") or {}).get("trace_end_bytes") or 0)
    for job in _sections(job_file):
        end = max(end, _bytes(job.get("offset")) + _bytes(job.get("size")))
    return end


def span_refusal(steps: list[dict[str, Any]], size_bytes: int, target: str) -> str | None:
    """Why the run cannot start on a device of `size_bytes`, or None when every pending step
    fits. A size the device did not report (0) checks nothing."""
    if size_bytes <= 0:
        return None
    for step in steps:
        if step.get("status", "pending") != "pending":
            continue
        end = furthest_byte(step)
        if end > size_bytes:
            return (
                f"step {step['name']} would reach byte {end} ({human_bytes(end)}) but "
                f"{target} holds {size_bytes} bytes ({human_bytes(size_bytes)}): the drive's "
                "model in the catalog gives a larger capacity than the device has; correct the "
                "model's capacity (PATCH /api/models/ID) or queue the plan with a span that "
                "fits, then queue it again"
            )
    return None
