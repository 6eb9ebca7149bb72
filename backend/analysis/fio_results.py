"""Step results derived from fio's final JSON output. Pure: dicts in, tuples out."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Metric = tuple[str, float, str]

DIRECTIONS = ("read", "write")


def job_runtime_ms(job: Mapping[str, Any]) -> int:
    """A job's own clock, fio's `job_runtime` (ms). An entry of a group-reported job
    (`group_reporting` with `numjobs=N`) carries the SUM of its N threads' runtimes (fio 3.33:
    8 threads of 1 s report 8069 ms, their read runtime 1020 ms): its clock is that over N."""
    runtime = int(job.get("job_runtime", 0))
    options = job.get("job options") or {}
    if str(options.get("group_reporting", "")) in ("1", "true"):
        threads = int(options.get("numjobs", 1) or 1)
        if threads > 1:
            runtime = round(runtime / threads)
    return runtime


def _percentile(clat: Mapping[str, Any], pct: str) -> float | None:
    value = (clat.get("percentile") or {}).get(pct)
    return None if value is None else float(value)


def direction_summary(final: Mapping[str, Any], direction: str) -> dict[str, float] | None:
    """MB/s (10^6 bytes/s), IOPS and clat mean/p99 (µs) of one direction, from fio's totals.

    Bandwidth is fio's own `io_bytes / runtime` summed over the jobs of the output; None when
    the direction did no I/O.
    """
    io_bytes = 0
    ios = 0
    runtime_ms = 0
    lat_n = 0
    lat_sum = 0.0
    p99s: list[float] = []
    for job in final.get("jobs", ()):
        d = job.get(direction) or {}
        b = int(d.get("io_bytes", 0))
        if b <= 0:
            continue
        io_bytes += b
        ios += int(d.get("total_ios", 0))
        runtime_ms = max(runtime_ms, int(d.get("runtime", 0)))
        clat = d.get("clat_ns") or {}
        n = int(clat.get("N", 0))
        lat_n += n
        lat_sum += float(clat.get("mean", 0.0)) * n
        p99 = _percentile(clat, "99.000000")
        if p99 is not None:
            p99s.append(p99)
    if io_bytes == 0 or runtime_ms == 0:
        return None
    secs = runtime_ms / 1000.0
    out = {
        "mbps": io_bytes / secs / 1e6,
        "iops": ios / secs,
        "bytes": float(io_bytes),
        "runtime_s": secs,
    }
    if lat_n:
        out["lat_mean_us"] = lat_sum / lat_n / 1000.0
    if p99s:
        # With one job (drivelab's steps) this is fio's own p99; with several, the worst one.
        out["lat_p99_us"] = max(p99s) / 1000.0
    return out


UNITS = {
    "mbps": "MB/s",
    "iops": "IOPS",
    "bytes": "B",
    "runtime_s": "s",
    "lat_mean_us": "µs",
    "lat_p99_us": "µs",
}


def step_metrics(final: Mapping[str, Any]) -> list[Metric]:
    """Every result metric of a fio step: `<direction>_<name>` with its unit."""
    metrics: list[Metric] = []
    for direction in DIRECTIONS:
        summary = direction_summary(final, direction)
        if summary is None:
            continue
        for name, value in summary.items():
            metrics.append((f"{direction}_{name}", value, UNITS[name]))
    return metrics
