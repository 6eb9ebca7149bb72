"""Parse fio's live status stream into per-second samples.

fio run with `--output-format=json+ --status-interval=1` writes a stream of JSON documents
concatenated together (not one document, not one per line). Every document holds CUMULATIVE
totals since the job started; the last one is the final summary. A per-second value is the
difference of two consecutive documents divided by the difference of their `timestamp_ms`
(never the arrival time: a snapshot can arrive late while the device stalls, and the gap is
then one long interval, i.e. a stall, not missing data).

json+ (rather than json) adds the completion-latency histogram (`clat_ns.bins`), so each
interval's p99 comes from the difference of two histograms instead of fio's cumulative
percentiles, which say nothing about the last second.

This module is pure: no I/O, no network. It takes text and returns dataclasses.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from backend.analysis.fio_results import job_runtime_ms

DIRECTIONS = ("read", "write")


@dataclass(frozen=True)
class Document:
    """One JSON document of the stream, with its exact text (kept verbatim for the record)."""

    data: dict[str, Any]
    text: str


class JsonStreamDecoder:
    """Split a stream of concatenated JSON documents, fed in arbitrary chunks.

    Anything between documents that is not JSON (fio prints an occasional notice on stdout) is
    skipped up to the next line that starts with `{`.
    """

    def __init__(self) -> None:
        self._buf = ""
        self._decoder = json.JSONDecoder()

    def feed(self, chunk: str) -> list[Document]:
        self._buf += chunk
        docs: list[Document] = []
        if "}" not in chunk:
            return docs  # no document can have been completed by this chunk
        while True:
            start = self._next_object_start()
            if start < 0:
                self._buf = ""
                return docs
            try:
                data, end = self._decoder.raw_decode(self._buf, start)
            except json.JSONDecodeError:
                # Incomplete document (or garbage): keep it and wait for more text.
                self._buf = self._buf[start:]
                return docs
            if isinstance(data, dict):
                docs.append(Document(data, self._buf[start:end]))
            self._buf = self._buf[end:]

    def pending(self) -> str:
        """Text received but not yet decoded (non-empty at EOF means a truncated document)."""
        return self._buf.strip()

    def _next_object_start(self) -> int:
        buf = self._buf
        i = 0
        n = len(buf)
        while i < n and buf[i].isspace():
            i += 1
        if i < n and buf[i] == "{":
            return i
        # Not at a document: skip the rest of this line of noise.
        j = buf.find("\n{", i)
        return -1 if j < 0 else j + 1


@dataclass(frozen=True)
class Sample:
    """What happened in one interval of a step.

    `t_ms` is the end of the interval in milliseconds since the job started, `dt_ms` its length.
    Byte and I/O counts are the amounts completed within the interval, so they add up to fio's
    own totals. Latencies are completion latencies (clat) in microseconds; None when no I/O of
    that direction completed in the interval.
    """

    t_ms: int
    dt_ms: int
    read_bytes: int
    write_bytes: int
    read_ios: int
    write_ios: int
    read_lat_mean_us: float | None
    write_lat_mean_us: float | None
    read_lat_p99_us: float | None
    write_lat_p99_us: float | None
    read_lat_max_us: float | None = None
    write_lat_max_us: float | None = None

    def rate(self, direction: str) -> tuple[float, float]:
        """(MB/s with MB = 10^6 bytes, IOPS) of this interval for `direction`."""
        secs = self.dt_ms / 1000.0
        nbytes = self.read_bytes if direction == "read" else self.write_bytes
        ios = self.read_ios if direction == "read" else self.write_ios
        return nbytes / secs / 1e6, ios / secs

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class _Totals:
    """Cumulative totals of one direction, summed over every job in a snapshot."""

    io_bytes: int = 0
    total_ios: int = 0
    lat_n: int = 0
    lat_sum_ns: float = 0.0
    max_ns: float = 0.0
    bins: dict[int, int] = field(default_factory=dict)


def _direction_totals(doc: Mapping[str, Any], direction: str) -> _Totals:
    tot = _Totals()
    for job in doc.get("jobs", ()):
        d = job.get(direction) or {}
        tot.io_bytes += int(d.get("io_bytes", 0))
        tot.total_ios += int(d.get("total_ios", 0))
        clat = d.get("clat_ns") or {}
        n = int(clat.get("N", 0))
        tot.lat_n += n
        tot.lat_sum_ns += float(clat.get("mean", 0.0)) * n
        if n > 0:
            tot.max_ns = max(tot.max_ns, float(clat.get("max", 0.0)))
        for k, v in (clat.get("bins") or {}).items():
            key = int(k)
            tot.bins[key] = tot.bins.get(key, 0) + int(v)
    return tot


def percentile_from_bins(bins: Mapping[int, int], pct: float) -> float | None:
    """Smallest bin value at which the cumulative count reaches `pct` percent of all counts."""
    total = sum(bins.values())
    if total <= 0:
        return None
    need = total * pct / 100.0
    acc = 0
    for value in sorted(bins):
        acc += bins[value]
        if acc >= need:
            return float(value)
    return float(max(bins))


def _diff_bins(cur: Mapping[int, int], prev: Mapping[int, int]) -> dict[int, int]:
    out = {}
    for k, v in cur.items():
        d = v - prev.get(k, 0)
        if d > 0:
            out[k] = d
    return out


def interval_max_ns(cur: _Totals, prev: _Totals, diff: Mapping[int, int]) -> float | None:
    """The slowest completion of an interval. When fio's cumulative maximum rose, the new
    maximum completed in this interval and is exact; otherwise the interval's slowest is the
    highest histogram bucket that moved (fio's bucket value, within 1/128 of the latency),
    never above the cumulative maximum."""
    if cur.max_ns > prev.max_ns:
        return cur.max_ns
    if not diff:
        return None
    top = float(max(diff))
    return min(top, cur.max_ns) if cur.max_ns > 0 else top


def trusted_runtimes(doc: Mapping[str, Any]) -> list[int | None]:
    """Each job's `job_runtime` (ms since the job's own start), None where it is not to be
    trusted. fio samples a job's counters and its runtime at the same instant, so this is the
    clock of the counters. A snapshot taken before the job really started carries a
    meaningless runtime (seen: 2290245 ms with 0 bytes done, 100 ms into a job): a runtime is
    trusted only up to the job's `elapsed` seconds plus one."""
    out: list[int | None] = []
    for j in doc.get("jobs", ()):
        runtime = job_runtime_ms(j)
        limit = (int(j.get("elapsed", 0)) + 1) * 1000
        out.append(runtime if 0 < runtime <= limit else None)
    return out


def _job_has_bytes(job: Mapping[str, Any]) -> bool:
    """Whether any I/O of the job has completed. Not `total_ios`: fio counts an I/O there when
    it is issued (seen: 46 I/Os and 0 bytes in a first snapshot)."""
    return any(int((job.get(d) or {}).get("io_bytes", 0)) > 0 for d in DIRECTIONS)


def progress_of(doc: Mapping[str, Any]) -> float | None:
    """How far the job is, in 0..1: for a time-based job its runtime over the runtime asked
    for (fio reports its ETA as unknown for the first seconds); otherwise fio's own estimate,
    elapsed / (elapsed + eta)."""
    fractions = []
    for job in doc.get("jobs", ()):
        options = job.get("job options") or {}
        if str(options.get("time_based", "")) in ("1", "true") and options.get("runtime"):
            try:
                asked_ms = float(str(options["runtime"]).rstrip("s")) * 1000
                fractions.append(min(1.0, job_runtime_ms(job) / asked_ms))
                continue
            except ValueError:
                pass
        elapsed = float(job.get("elapsed", 0))
        eta = float(job.get("eta", 0))
        if eta < 0 or eta >= 2**31 - 1:  # fio's "unknown"
            continue
        total = elapsed + eta
        if total > 0:
            fractions.append(min(1.0, elapsed / total))
    return min(fractions) if fractions else None


class SampleStream:
    """Turn consecutive cumulative snapshots into interval samples.

    Feed every document in order with `update()`. Interval boundaries come from fio's own
    clock of the counters, `job_runtime`, not from `timestamp_ms`: fio samples every job's
    counters and runtime at one instant, then prints the snapshot, and the print can come
    much later while the job is blocked (seen: 605 ms and 1.4 s late during 1.5 s write
    stalls, with the runtime and bytes of the instant they were sampled). An interval paired
    with the print times would carry bytes from another instant than its end.

    - The first interval starts at the job's start (runtime 0) and ends at the first snapshot
      in which bytes have completed. Snapshots before it are skipped: fio's first snapshot can
      carry a runtime that the next contradicts (seen: 103 ms with 0 bytes, then 102 ms with
      5.9 MB), so it must not set the clock.
    - Each later boundary is the previous one plus the advance of fio's clock: within a
      reporting group (jobs that run at once) the largest advance of a job's runtime, summed
      over the groups, since groups separated by `stonewall` run one after the other (a SNIA
      PTS round is one job file of stonewalled elements). A job counts from the first snapshot
      in which it has completed bytes, from its runtime 0: before that its runtime is fio's
      time since the start of the whole run, not the job's (seen in a stonewalled round: a
      waiting job at 5003 ms, then at 265 ms with bytes). A runtime that is not trusted or
      went backwards is left out; with none left, the advance of `timestamp_ms` is used.
    - The final summary's runtime is the job's end, so the last interval ends when the job
      stopped, not when fio printed its summary after tearing the job down.
    So the samples of a step add up exactly to the totals of the last document fio printed,
    and no interval is negative or holds two intervals' bytes.
    """

    def __init__(self) -> None:
        self.t_ms: int | None = None
        # Runtime of each job (by its place in `jobs`) at the last boundary, once it has
        # completed bytes.
        self._runtimes: dict[int, int] = {}
        self._ts: int | None = None
        self._prev: dict[str, _Totals] = {d: _Totals() for d in DIRECTIONS}

    def _advance(self, doc: Mapping[str, Any], ts: int) -> int | None:
        """Milliseconds of fio's clock since the last boundary; None before any byte."""
        by_group: dict[int, int] = {}
        for i, (job, runtime) in enumerate(zip(doc["jobs"], trusted_runtimes(doc), strict=True)):
            if runtime is None or not _job_has_bytes(job):
                continue
            step = runtime - self._runtimes.get(i, 0)
            if step < 0:
                continue
            group = int(job.get("groupid", 0))
            by_group[group] = max(by_group.get(group, 0), step)
            self._runtimes[i] = runtime
        if by_group:
            return sum(by_group.values())
        if self.t_ms is None:
            return None
        return max(0, ts - (self._ts if self._ts is not None else ts))

    def update(self, doc: Mapping[str, Any]) -> Sample | None:
        if "timestamp_ms" not in doc or "jobs" not in doc:
            return None
        ts = int(doc["timestamp_ms"])
        dt = self._advance(doc, ts)
        if dt is None:
            return None  # nothing completed yet: no interval, and no trusted clock
        if self.t_ms is None:
            self.t_ms = 0
        cur = {d: _direction_totals(doc, d) for d in DIRECTIONS}
        self._ts = ts
        if dt <= 0:
            # No time elapsed on fio's clock: the counters move on to the next interval.
            return None
        fields: dict[str, Any] = {}
        for d in DIRECTIONS:
            c, p = cur[d], self._prev[d]
            fields[f"{d}_bytes"] = max(0, c.io_bytes - p.io_bytes)
            fields[f"{d}_ios"] = max(0, c.total_ios - p.total_ios)
            n = c.lat_n - p.lat_n
            if n > 0:
                fields[f"{d}_lat_mean_us"] = (c.lat_sum_ns - p.lat_sum_ns) / n / 1000.0
                diff = _diff_bins(c.bins, p.bins)
                p99 = percentile_from_bins(diff, 99.0)
                fields[f"{d}_lat_p99_us"] = None if p99 is None else p99 / 1000.0
                peak = interval_max_ns(c, p, diff)
                fields[f"{d}_lat_max_us"] = None if peak is None else peak / 1000.0
            else:
                fields[f"{d}_lat_mean_us"] = None
                fields[f"{d}_lat_p99_us"] = None
                fields[f"{d}_lat_max_us"] = None
        self.t_ms += dt
        sample = Sample(t_ms=self.t_ms, dt_ms=dt, **fields)
        self._prev = cur
        return sample


def samples_from_text(text: str) -> tuple[list[Sample], list[Document]]:
    """Parse a whole recorded stream: (samples, documents). For tests and re-analysis."""
    decoder = JsonStreamDecoder()
    docs = decoder.feed(text)
    stream = SampleStream()
    samples = [s for s in (stream.update(d.data) for d in docs) if s is not None]
    return samples, docs


def totals(doc: Mapping[str, Any]) -> dict[str, int]:
    """fio's own cumulative byte and I/O totals of a document, summed over jobs."""
    out: dict[str, int] = {}
    for d in DIRECTIONS:
        t = _direction_totals(doc, d)
        out[f"{d}_bytes"] = t.io_bytes
        out[f"{d}_ios"] = t.total_ios
    return out


def sum_samples(samples: Iterable[Sample]) -> dict[str, int]:
    out = {f"{d}_{k}": 0 for d in DIRECTIONS for k in ("bytes", "ios")}
    for s in samples:
        for key in out:
            out[key] += getattr(s, key)
    return out
