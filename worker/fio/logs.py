"""fio's window logs (write_bw_log / write_iops_log with log_avg_msec), read after the job.

fio writes them only when the job ends, so they serve the authoritative fine-grained series
(100 ms stalls, HD Tach positions), never the live view. A window in which nothing completed
produces NO row: a missing window means 0, not "no data". Each row is
`time_ms, value, direction (0 read, 1 write, 2 trim), block size, offset[, priority]`; bandwidth
values are KiB/s (kb_base=1024), IOPS values are I/Os per second.

Pure: text in, lists out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

DIRECTIONS = {0: "read", 1: "write"}


def parse_window_log(text: str, window_ms: int, *, scale: float = 1.0) -> dict[str, Any]:
    """A regular series: `t_ms` (end of each window) and one value list per direction, with
    missing windows filled with 0 (a window with no row had no completion: a stall).
    `scale` converts fio's unit (1024 for KiB/s -> B/s)."""
    if window_ms <= 0:
        raise ValueError("window_ms must be positive")
    rows: dict[str, dict[int, float]] = {"read": {}, "write": {}}
    last = 0
    phase: int | None = None
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
        # Windows end at start + k * window, where the job's start is not a multiple of the
        # window (e.g. rows at 142, 243, 543 ms): anchor the grid on the first row.
        if phase is None:
            phase = t % window_ms
        slot = max(1, int((t - phase) / window_ms + 0.5))
        rows[direction][slot] = rows[direction].get(slot, 0.0) + value * scale
        last = max(last, slot)
    base = phase or 0
    series: dict[str, Any] = {
        "window_ms": window_ms,
        "t_ms": [base + i * window_ms for i in range(1, last + 1)],
    }
    for direction, by_slot in rows.items():
        series[direction] = [by_slot.get(i, 0.0) for i in range(1, last + 1)]
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
