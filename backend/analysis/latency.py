"""Latency QoS from fio's json+ completion-latency histogram. Pure: dicts in, dicts out.

fio keeps every completion latency in a histogram of 1,856 buckets (`clat_ns.bins` in json+
output: bucket value in ns -> I/O count). The buckets are log-linear: values below 128 ns
have a bucket each; above, every power of two [2^k, 2^(k+1)) is split into 64 equal
sub-buckets of width 2^(k-6), and fio names a bucket by its midpoint. So:

- a bucket's width over its smallest value is at most 2^(k-6) / 2^k = 1/64; two neighbouring
  bucket values differ by at most 1/64 of the smaller one (`BUCKET_REL`);
- a bucket's value is within half a width of any latency it holds: 1/128 relative.

A percentile read from the bins is fio's own rule (the first bucket at which the cumulative
count reaches pct% of all I/Os) on the same histogram, in exact arithmetic, so it is the value
fio prints in `clat_ns.percentile` for the same job but at a tie: when exactly pct% of the
I/Os lie at or below a bucket, fio's floating-point pct / 100.0 x N can land just above the
count (99.9 is 99.90000000000000568 in binary) and take the next non-empty bucket.

A percentile needs at least one I/O beyond it: p99.999 tells something only with 100,000
I/Os or more (with fewer it is just the maximum). Such a percentile is None, with a reason.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

DIRECTIONS = ("read", "write")
# The percentiles of a QoS table, as labels and their numeric value.
PERCENTILES: tuple[tuple[str, float], ...] = (
    ("p50", 50.0),
    ("p90", 90.0),
    ("p99", 99.0),
    ("p99.9", 99.9),
    ("p99.99", 99.99),
    ("p99.999", 99.999),
)
# Largest relative step between two neighbouring fio bucket values (see the module doc).
BUCKET_REL = 1.0 / 64.0
PACK_VERSION = 1


def metric_key(label: str) -> str:
    """`p99.9` -> `lat_p99_9_us`, the suffix of a Result metric (no dot in a metric id)."""
    return f"lat_{label.replace('.', '_')}_us"


def ios_needed(pct: float) -> int:
    """The fewest I/Os for which `pct` leaves at least one I/O beyond it."""
    beyond = 1 - Fraction(str(pct)) / 100
    need = 1 / beyond
    return int(need) if need.denominator == 1 else int(need) + 1


def direction_bins(final: Mapping[str, Any], direction: str) -> dict[int, int]:
    """The completion-latency histogram of one direction (bucket value in ns -> count),
    added up over every job of fio's output."""
    bins: dict[int, int] = {}
    for job in final.get("jobs", ()):
        raw = (((job.get(direction) or {}).get("clat_ns") or {}).get("bins")) or {}
        for key, count in raw.items():
            c = int(count)
            if c > 0:
                bins[int(key)] = bins.get(int(key), 0) + c
    return bins


def merge_bins(histograms: Iterable[Mapping[int, int]]) -> dict[int, int]:
    out: dict[int, int] = {}
    for h in histograms:
        for key, count in h.items():
            out[int(key)] = out.get(int(key), 0) + int(count)
    return out


def supports(total: int, pct: float) -> bool:
    return total >= ios_needed(pct)


def bins_percentile(bins: Mapping[int, int], pct: float) -> float | None:
    """fio's percentile of a histogram: the first bucket value (ns) at which the cumulative
    count reaches pct% of all I/Os. None when the I/O count cannot support it (see
    `supports`). Exact arithmetic: pct% x N is compared as a fraction, not a float."""
    return bins_percentiles(bins, (pct,))[0]


def bins_percentiles(bins: Mapping[int, int], pcts: Sequence[float]) -> list[float | None]:
    """`bins_percentile` of each of `pcts` (any order), in one pass over the sorted buckets.
    pct% x N is compared exactly in integers: acc >= (a/b)/100 x N  <=>  acc x 100b >= a x N,
    with a/b the percentage's decimal fraction (a comparison of Fractions per bucket cost
    ~70% of a latency comparison's time)."""
    total = sum(bins.values())
    out: list[float | None] = [None] * len(pcts)
    wanted: list[tuple[int, int, int]] = []  # (a x N, 100b, index), smallest threshold first
    for i, pct in enumerate(pcts):
        if total > 0 and supports(total, pct):
            frac = Fraction(str(pct))
            wanted.append((frac.numerator * total, frac.denominator * 100, i))
    if not wanted:
        return out
    wanted.sort(key=lambda w: Fraction(w[0], w[1]))
    acc = 0
    k = 0
    for value in sorted(bins):  # every pct < 100 is reached by the time acc is the total
        acc += bins[value]
        while k < len(wanted) and acc * wanted[k][1] >= wanted[k][0]:
            out[wanted[k][2]] = float(value)
            k += 1
        if k == len(wanted):
            break
    return out


def unsupported_reason(total: int, pct: float) -> str:
    """Why a percentile of `total` I/Os is left out, in words."""
    return (
        f"not enough I/Os: {total:,} completed, a {pct:g}th percentile needs at least "
        f"{ios_needed(pct):,}"
    )


def direction_qos(final: Mapping[str, Any], direction: str) -> dict[str, Any] | None:
    """One direction's QoS figures (µs) from fio's output, None when it did no I/O.

    `ios`, `mean_us` (fio's mean, weighted by each job's count), `min_us` and `max_us`
    (fio's exact extremes, not a bucket), `percentiles` {label: µs or None} from the bins and
    `unsupported` {label: reason} for those the I/O count cannot give."""
    bins = direction_bins(final, direction)
    n = 0
    weighted = 0.0
    lows: list[float] = []
    highs: list[float] = []
    for job in final.get("jobs", ()):
        clat = (job.get(direction) or {}).get("clat_ns") or {}
        jn = int(clat.get("N", 0))
        if jn <= 0:
            continue
        n += jn
        weighted += float(clat.get("mean", 0.0)) * jn
        lows.append(float(clat.get("min", 0)))
        highs.append(float(clat.get("max", 0)))
    if n <= 0:
        return None
    return qos_from_bins(bins, n, weighted / n / 1000.0, min(lows) / 1000.0, max(highs) / 1000.0)


def qos_from_bins(
    bins: Mapping[int, int], ios: int, mean_us: float, min_us: float, max_us: float
) -> dict[str, Any]:
    """The QoS figures of a histogram and fio's exact count, mean and extremes (µs)."""
    total = sum(bins.values())
    percentiles: dict[str, float | None] = {}
    unsupported: dict[str, str] = {}
    values = bins_percentiles(bins, [pct for _label, pct in PERCENTILES])
    for (label, pct), value in zip(PERCENTILES, values, strict=True):
        percentiles[label] = None if value is None else value / 1000.0
        if value is None:
            unsupported[label] = unsupported_reason(total, pct)
    return {
        "ios": ios,
        "binned_ios": total,
        "mean_us": mean_us,
        "min_us": min_us,
        "max_us": max_us,
        "percentiles": percentiles,
        "unsupported": unsupported,
    }


def step_qos(final: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Every direction that did I/O: direction -> direction_qos."""
    out = {}
    for d in DIRECTIONS:
        q = direction_qos(final, d)
        if q is not None:
            out[d] = q
    return out


def qos_metrics(final: Mapping[str, Any]) -> list[tuple[str, float, str]]:
    """Result metrics of the QoS figures fio's own totals do not already give:
    `<dir>_lat_p50_us` ... `<dir>_lat_p99_999_us` (p99 is fio's own `lat_p99_us`) and
    `<dir>_lat_max_us`. An unsupported percentile has no metric."""
    out: list[tuple[str, float, str]] = []
    for d, q in step_qos(final).items():
        for label, _pct in PERCENTILES:
            value = q["percentiles"][label]
            if label != "p99" and value is not None:
                out.append((f"{d}_{metric_key(label)}", value, "µs"))
        out.append((f"{d}_lat_max_us", q["max_us"], "µs"))
    return out


# --- compact storage ----------------------------------------------------------------------


def pack_bins(bins: Mapping[int, int]) -> bytes:
    """A histogram as bytes: version byte, then zlib of little-endian uint64 pairs (bucket
    value as the step from the previous one, count). About 1-3 KB for a busy step."""
    keys = np.array(sorted(bins), dtype=np.uint64)
    counts = np.array([bins[int(k)] for k in keys], dtype=np.uint64)
    steps = np.diff(keys, prepend=np.uint64(0))
    body = np.stack([steps, counts], axis=1).astype("<u8").tobytes()
    return bytes([PACK_VERSION]) + zlib.compress(body, 9)


def unpack_bins(blob: bytes) -> dict[int, int]:
    if not blob or blob[0] != PACK_VERSION:
        raise ValueError("not a packed latency histogram of a known version")
    pairs = np.frombuffer(zlib.decompress(blob[1:]), dtype="<u8").reshape(-1, 2)
    keys = np.cumsum(pairs[:, 0])
    return {int(k): int(c) for k, c in zip(keys, pairs[:, 1], strict=True)}


# --- chart data ---------------------------------------------------------------------------


def histogram_points(bins: Mapping[int, int], per_decade: int = 20) -> list[list[float]]:
    """A histogram for a chart: [upper edge in µs, share of I/Os in %] on a log grid of
    `per_decade` buckets per decade, empty buckets between the first and last left in (so
    the shape is true); fio's buckets are far finer, so each falls in one grid bucket."""
    total = sum(bins.values())
    if total <= 0:
        return []
    keys = np.array(sorted(bins), dtype=float)
    counts = np.array([bins[int(k)] for k in keys], dtype=float)
    us = np.maximum(keys / 1000.0, 1e-3)
    idx = np.floor(np.log10(us) * per_decade).astype(int)
    first, last = int(idx.min()), int(idx.max())
    shares = np.zeros(last - first + 1)
    np.add.at(shares, idx - first, counts)
    return [
        [float(10 ** ((first + i + 1) / per_decade)), float(share / total * 100.0)]
        for i, share in enumerate(shares)
    ]


def exceedance_points(bins: Mapping[int, int]) -> list[list[float]]:
    """The exceedance curve (1 - CDF) for a log-log chart: [latency µs, share of I/Os slower
    than it], one point per non-empty bucket but the slowest (where the share is 0, which a
    log axis cannot show). The last point's share is 1/N for a single slowest I/O."""
    total = sum(bins.values())
    if total <= 0:
        return []
    out = []
    acc = 0
    for value in sorted(bins):
        acc += bins[value]
        slower = total - acc
        if slower <= 0:
            break
        out.append([value / 1000.0, slower / total])
    return out
