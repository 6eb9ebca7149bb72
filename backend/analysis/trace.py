"""Trace playback results, "Storage Bench" style (METHODS.md, plan 9). Pure: fio's JSON (a dict)
or an iolog's text in, plain dicts out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from backend.traces import iolog

IOLOG_HEADERS = {"fio version 2 iolog": 2, "fio version 3 iolog": 3}


def _pct(part: float, whole: float) -> float | None:
    return part / whole * 100.0 if whole > 0 else None


def replay_metrics(final: Mapping[str, Any]) -> dict:
    """Average MB/s, read/write split and disk busy time of a replay step, from fio's final JSON.

    - `mbps`, `read_mbps`, `write_mbps`: bytes (10^6 B/s) over the step's runtime, the same
      runtime for all three (the longest per-direction `runtime` of the jobs, in ms, which is
      what fio's own bw_bytes divides by), so read + write = all. A replay at the drive's pace
      (replay_no_stall) reports how fast the drive got through the trace's bytes.
    - `read_share_pct`: reads' share of the bytes; `read_ios_share_pct`: their share of I/Os
      (they differ when reads and writes have different sizes).
    - `elapsed_s`: the job's run time, from fio's `job_runtime` (ms) rather than its integer
      `elapsed` seconds, which would round a short replay to 0 or 1 s (fallback when absent).
    - `busy_s`: disk busy time, util / 100 x elapsed_s, as the Storage Bench reports it: the
      time the device had I/O in flight, which, unlike MB/s, shows how much of the run the drive
      was the bottleneck. fio reports `disk_util` only for block devices it can find (not for a
      file on a filesystem it cannot map): None then. With several devices listed (a device
      mapper and its members) the busiest one counts.
    Sums over every job of the output (a replay step has one). Values are None when there is
    nothing to divide by.
    """
    read_b = write_b = read_ios = write_ios = 0
    runtime_ms = 0
    elapsed_s: float | None = None
    for job in final.get("jobs", ()):
        for direction in ("read", "write"):
            d = job.get(direction) or {}
            b = int(d.get("io_bytes", 0))
            ios = int(d.get("total_ios", 0))
            if direction == "read":
                read_b, read_ios = read_b + b, read_ios + ios
            else:
                write_b, write_ios = write_b + b, write_ios + ios
            if b > 0:
                runtime_ms = max(runtime_ms, int(d.get("runtime", 0)))
        if job.get("job_runtime") is not None:
            job_s = float(job["job_runtime"]) / 1000.0
        elif job.get("elapsed") is not None:
            job_s = float(job["elapsed"])
        else:
            continue
        elapsed_s = job_s if elapsed_s is None else max(elapsed_s, job_s)
    secs = runtime_ms / 1000.0
    total_b = read_b + write_b
    utils = [float(u["util"]) for u in final.get("disk_util") or () if "util" in u]
    busy_s = max(utils) / 100.0 * elapsed_s if utils and elapsed_s is not None else None
    return {
        "mbps": total_b / secs / 1e6 if secs > 0 else None,
        "read_mbps": read_b / secs / 1e6 if secs > 0 else None,
        "write_mbps": write_b / secs / 1e6 if secs > 0 else None,
        "read_share_pct": _pct(read_b, total_b),
        "read_ios_share_pct": _pct(read_ios, read_ios + write_ios),
        "busy_s": busy_s,
        "elapsed_s": elapsed_s,
    }


def size_breakdown(iolog_text: str) -> list[dict]:
    """The I/O size breakdown of a fio iolog (v2 or v3): one row per transfer size, smallest
    first, with its reads, writes and `share_pct`, its share of all the reads and writes (a
    share of I/Os, like fio's bssplit and the Storage Bench breakdowns, not of bytes).

    The lines are read as fio reads them (backend.traces.iolog: its whitespace, numbers and
    line buffers), so the breakdown counts the reads and writes fio replays; lines it does not
    replay (add, open, close, trim, sync, wait, skipped lines) do not count. Raises ValueError
    for a text that is not an iolog v2/v3 or one fio refuses.
    """
    log = iolog.read(iolog_text.encode("utf-8"))
    counts: dict[int, list[int]] = {}
    for entry in log.entries:
        if entry.action in ("read", "write"):
            row = counts.setdefault(entry.length, [0, 0])
            row[0 if entry.action == "read" else 1] += 1
    total = sum(r + w for r, w in counts.values())
    return [
        {"bytes": size, "reads": r, "writes": w, "share_pct": (r + w) / total * 100.0}
        for size, (r, w) in sorted(counts.items())
    ]
