"""fio's window logs (write_bw_log / write_iops_log with log_avg_msec), read after the job.

fio writes them only when the job ends, so they serve the authoritative fine-grained series
(100 ms stalls), never the live view. Each row is `time_ms, value, direction (0 read, 1 write,
2 trim), block size, offset[, priority]`; bandwidth values are KiB/s (kb_base=1024), IOPS values
are I/Os per second.

A row's time is when fio closed its window, on the job's own clock (ms since the job started,
the clock of `job_runtime`). Windows are not a grid: on a busy host they stretch (160-209 ms for
100 ms windows) and drift, and a window in which nothing completed produces NO row. So the rows
are kept at their own times; what a gap between rows means is for the analysis
(backend.analysis.stalls.window_log_intervals).

Pure: text in, lists out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

DIRECTIONS = {0: "read", 1: "write"}


def parse_window_log(text: str, window_ms: int, *, scale: float = 1.0) -> dict[str, Any]:
    """The rows of a window log: `t_ms`, the sorted times at which any row was written, and one
    value list per direction at those times. A direction without a row at a time when the other
    direction has one completed nothing in that window: its value there is 0. Rows at one time
    and direction are summed (several jobs). `scale` converts fio's unit (1024 for KiB/s ->
    B/s)."""
    if window_ms <= 0:
        raise ValueError("window_ms must be positive")
    rows: dict[str, dict[int, float]] = {"read": {}, "write": {}}
    for line in text.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < 3 or not parts[0]:
            continue
        try:
            t = int(parts[0])
            value = float(parts[1])
            direction = DIRECTIONS.get(int(parts[2]))
        except ValueError:
            continue
        if direction is None:
            continue
        rows[direction][t] = rows[direction].get(t, 0.0) + value * scale
    times = sorted(set(rows["read"]) | set(rows["write"]))
    series: dict[str, Any] = {"window_ms": window_ms, "t_ms": times}
    for direction, by_time in rows.items():
        series[direction] = [by_time.get(t, 0.0) for t in times]
    return series


def collect_logs(workdir: Path, prefix: str, window_ms: int) -> dict[str, Any]:
    """The bw (bytes/s) and iops series of the job whose logs start with `prefix`."""
    out: dict[str, Any] = {"window_ms": window_ms}
    for kind, scale in (("bw", 1024.0), ("iops", 1.0)):
        files = sorted(workdir.glob(f"{prefix}_{kind}.*.log"))
        if not files:
            continue
        text = "\n".join(f.read_text(errors="replace") for f in files)
        out[kind] = parse_window_log(text, window_ms, scale=scale)
    return out
