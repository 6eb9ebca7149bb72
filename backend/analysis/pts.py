"""SNIA PTS figures from fio's outputs. Pure: dicts in, dicts out; no database, no I/O.

A PTS round is one fio run of a job file with one stonewalled section per element (an IOPS
round: 7 read/write mixes x 8 block sizes). Every section is a job of its own in fio's final
JSON; with `numjobs` = the thread count (TC), fio lists each thread of a section as a job with
the section's name. An element's figures are those of the jobs with its name, added up:
bytes and I/Os summed, bandwidth and IOPS over the longest of their runtimes (fio's own
`io_bytes / runtime` for one job), completion latency weighted by I/O count, the maximum the
largest of theirs. `stonewall` makes the sections run one after another, so no element's
numbers hold another's I/O.

Response times are fio's completion latencies (`clat_ns`), as in every other drivelab result;
percentiles and histograms come from json+'s `clat_ns.bins` (fio's 1,856-bucket histogram),
merged over the jobs of an element and over the rounds of the measurement window.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from backend.analysis.fio_results import direction_summary
from backend.analysis.latency import direction_bins
from backend.analysis.steady_state import steady_state_report

DIRECTIONS = ("read", "write")
# Summary fields that take the largest value over the window's rounds rather than the average.
MAX_FIELDS = frozenset({"lat_max_us", "read_lat_max_us", "write_lat_max_us"})
# Summary fields that add up over rounds rather than average.
SUM_FIELDS = frozenset({"read_bytes", "write_bytes", "ios"})


def jobs_by_element(final: Mapping[str, Any]) -> dict[str, list[Mapping[str, Any]]]:
    """fio's jobs grouped by job (section) name, in the order fio lists them."""
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for job in final.get("jobs", ()):
        groups.setdefault(str(job.get("jobname", "")), []).append(job)
    return groups


def _max_us(jobs: Iterable[Mapping[str, Any]], direction: str) -> float | None:
    values = [
        float(((job.get(direction) or {}).get("clat_ns") or {}).get("max", 0))
        for job in jobs
        if int((job.get(direction) or {}).get("total_ios", 0)) > 0
    ]
    return max(values) / 1000.0 if values else None


def element_summary(jobs: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """One element's figures: per direction MB/s (10^6 B/s), IOPS, bytes, mean and maximum
    completion latency (µs); and both directions together (`iops`, `mbps`, `lat_mean_us`,
    `lat_max_us`, `ios`)."""
    out: dict[str, float] = {}
    ios = 0.0
    lat_weight = 0.0
    runtime = 0.0
    for direction in DIRECTIONS:
        s = direction_summary({"jobs": jobs}, direction)
        if s is None:
            continue
        n = s["iops"] * s["runtime_s"]
        out[f"{direction}_iops"] = s["iops"]
        out[f"{direction}_mbps"] = s["mbps"]
        out[f"{direction}_bytes"] = s["bytes"]
        runtime = max(runtime, s["runtime_s"])
        if "lat_mean_us" in s:
            out[f"{direction}_lat_mean_us"] = s["lat_mean_us"]
            lat_weight += s["lat_mean_us"] * n
        peak = _max_us(jobs, direction)
        if peak is not None:
            out[f"{direction}_lat_max_us"] = peak
        ios += n
    if runtime > 0:
        out["runtime_s"] = runtime
        out["iops"] = out.get("read_iops", 0.0) + out.get("write_iops", 0.0)
        out["mbps"] = out.get("read_mbps", 0.0) + out.get("write_mbps", 0.0)
        out["ios"] = round(ios)
        if ios > 0 and lat_weight > 0:
            out["lat_mean_us"] = lat_weight / ios
        peaks = [out[k] for k in ("read_lat_max_us", "write_lat_max_us") if k in out]
        if peaks:
            out["lat_max_us"] = max(peaks)
    return out


def round_summary(final: Mapping[str, Any]) -> dict[str, dict[str, float]]:
    """Every element of a round's fio output, by its name."""
    return {name: element_summary(jobs) for name, jobs in jobs_by_element(final).items()}


def tracked_value(summary: Mapping[str, Mapping[str, float]], element: str, metric: str) -> float:
    """The steady-state tracking variable of a round (0.0 when the element did no such I/O:
    a round that did nothing is as far from steady as it gets)."""
    return float((summary.get(element) or {}).get(metric, 0.0))


def window_table(
    rounds: Sequence[Mapping[str, Mapping[str, float]]],
) -> dict[str, dict[str, float]]:
    """Each element's figures over the rounds of the measurement window: the average of each
    round's value (SNIA PTS: the average of the rounds), the largest maximum latency, and the
    bytes and I/Os added up."""
    names: list[str] = []
    for r in rounds:
        names += [n for n in r if n not in names]
    out: dict[str, dict[str, float]] = {}
    for name in names:
        fields: dict[str, list[float]] = {}
        for r in rounds:
            for key, value in (r.get(name) or {}).items():
                fields.setdefault(key, []).append(float(value))
        row: dict[str, float] = {}
        for key, values in fields.items():
            if key in MAX_FIELDS:
                row[key] = max(values)
            elif key in SUM_FIELDS:
                row[key] = float(sum(values))
            else:
                row[key] = float(np.mean(values))
        row["rounds"] = float(len(rounds))
        out[name] = row
    return out


# --- latency distributions ---------------------------------------------------------------
# Percentiles, merging and histogram points are backend.analysis.latency's: one rule for every
# drivelab latency figure.


def element_bins(final: Mapping[str, Any], element: str, direction: str) -> dict[int, int]:
    """An element's completion-latency histogram (bucket value in ns -> count), its jobs
    added up."""
    return direction_bins({"jobs": jobs_by_element(final).get(element, [])}, direction)


# --- rounds -------------------------------------------------------------------------------


def convergence(
    values: Sequence[float],
    *,
    window: int = 5,
    excursion_pct: float = 20.0,
    slope_pct: float = 10.0,
) -> dict[str, Any]:
    """The steady-state report of the rounds so far (see steady_state_report), with the
    verdict on the latest window for a live view: `current` is [first, last] round of the
    last `window` rounds and whether they are steady."""
    report = steady_state_report(
        values, window=window, excursion_pct=excursion_pct, slope_pct=slope_pct
    )
    n = len(values)
    if n >= window:
        last = steady_state_report(
            values[-window:], window=window, excursion_pct=excursion_pct, slope_pct=slope_pct
        )
        report["current"] = {
            "window": [n - window + 1, n],
            "steady": last["steady"],
            "range_pct": last["range_pct"],
            "slope_excursion_pct": last["slope_excursion_pct"],
        }
    else:
        report["current"] = {"window": None, "steady": False, "needs": window - n}
    return report


def cumulative_written(rounds: Sequence[Mapping[str, Mapping[str, float]]]) -> list[float]:
    """Total bytes written by the end of each round (WSAT's TGBW, in bytes)."""
    total = 0.0
    out = []
    for r in rounds:
        total += sum(float(e.get("write_bytes", 0.0)) for e in r.values())
        out.append(total)
    return out


def round_iops(summary: Mapping[str, Mapping[str, float]]) -> float:
    """All I/Os of a round over its time (one element: that element's IOPS)."""
    ios = sum(float(e.get("ios", 0.0)) for e in summary.values())
    seconds = sum(float(e.get("runtime_s", 0.0)) for e in summary.values())
    return ios / seconds if seconds > 0 else 0.0


# --- demand intensity (DIRTH, ECW) ------------------------------------------------------------

# The share of the maximum IOPS at which the curve is said to have reached its plateau.
SATURATION_SHARE = 0.95


def demand_intensity(
    table: Mapping[str, Mapping[str, float]],
    elements: Sequence[Mapping[str, Any]],
    art_ceiling_us: float,
    point_s: int | None = None,
) -> dict[str, Any]:
    """The demand-intensity figures of a TC x QD sweep from its window's table (SNIA PTS-E
    DIRTH): every point's IOPS, average (ART) and maximum (MRT) response time by total
    outstanding I/O (TOC = TC x QD); the maximum IOPS point, the highest IOPS whose ART is
    within `art_ceiling_us`; the minimum IOPS point, the smallest TOC (TC1/QD1 in the
    specification's sweep); the middle point, the IOPS closest to halfway between them (of the
    points within the ceiling). `saturation_toc`: the smallest TOC whose IOPS reach 95% of the
    highest of all points, where more outstanding I/O stops buying IOPS and only lengthens the
    response time (the hockey stick's knee). `point_s`: the length of the dedicated run at
    each of the three points that the histograms come from (None: a run made before those
    existed, whose histograms are the points' I/O in the sweep), for the finding's words."""
    points = []
    for e in elements:
        if not e.get("toc") or e["name"] not in table:
            continue
        row = table[e["name"]]
        if not row.get("iops"):
            continue
        points.append(
            {
                "name": e["name"],
                "tc": int(e["tc"]),
                "qd": int(e["qd"]),
                "toc": int(e["toc"]),
                "iops": float(row["iops"]),
                "art_us": row.get("lat_mean_us"),
                "mrt_us": row.get("lat_max_us"),
            }
        )
    points.sort(key=lambda p: (p["toc"], p["tc"]))
    out: dict[str, Any] = {
        "points": points,
        "art_ceiling_us": art_ceiling_us,
        "max": None,
        "mid": None,
        "min": None,
        "saturation_toc": None,
        "peak_iops": None,
        "point_s": point_s,
    }
    if not points:
        return out
    within = [p for p in points if p["art_us"] is not None and p["art_us"] <= art_ceiling_us]
    low = points[0]
    out["min"] = low
    peak = max(points, key=lambda p: p["iops"])
    out["peak_iops"] = peak["iops"]
    out["saturation_toc"] = next(
        p["toc"] for p in points if p["iops"] >= SATURATION_SHARE * peak["iops"]
    )
    if within:
        top = max(within, key=lambda p: p["iops"])
        target = (top["iops"] + low["iops"]) / 2
        out["max"] = top
        out["mid"] = min(within, key=lambda p: (abs(p["iops"] - target), p["toc"]))
    out["finding"] = di_finding(out)
    return out


def di_finding(di: Mapping[str, Any]) -> str:
    """The demand-intensity result in words, with what the method can and cannot see."""
    ceiling_ms = di["art_ceiling_us"] / 1000
    top, low = di["max"], di["min"]
    if top is None:
        return (
            f"no TC/QD point kept its average response time within {ceiling_ms:g} ms: there is "
            f"no maximum IOPS point by this ceiling (TC{low['tc']}/QD{low['qd']} ran "
            f"{low['iops']:.0f} IOPS at {low['art_us'] / 1000:.2f} ms)"
        )
    text = (
        f"maximum {top['iops']:.0f} IOPS at TC{top['tc']}/QD{top['qd']} (TOC {top['toc']}, ART "
        f"{top['art_us'] / 1000:.2f} ms, within the {ceiling_ms:g} ms ceiling); minimum "
        f"{low['iops']:.0f} IOPS at TC{low['tc']}/QD{low['qd']} (ART "
        f"{low['art_us'] / 1000:.2f} ms); middle {di['mid']['iops']:.0f} IOPS at "
        f"TC{di['mid']['tc']}/QD{di['mid']['qd']}"
    )
    deepest = max(di["points"], key=lambda p: (p["toc"], p["tc"]))
    if di["saturation_toc"] is not None and deepest["toc"] > di["saturation_toc"]:
        knee = next(p for p in di["points"] if p["toc"] == di["saturation_toc"])
        text += (
            f"; IOPS reach 95% of the highest ({di['peak_iops']:.0f}) at TOC "
            f"{di['saturation_toc']}: beyond it more outstanding I/O lengthens the average "
            f"response time ({knee['art_us'] / 1000:.2f} ms there, "
            f"{deepest['art_us'] / 1000:.2f} ms at TOC {deepest['toc']}) without more IOPS"
        )
    return (
        text + ". Response times are fio's completion latencies (host queueing before "
        "submission not included); each point is the window's average of its rounds, and "
        "the histograms are " + histograms_source(di.get("point_s"))
    )


def histograms_source(point_s: int | None) -> str:
    """Where a sweep's histograms at its three IOPS points come from, in words."""
    if point_s:
        return f"from a dedicated {point_s}-second run at each point, as the PTS specifies"
    return (
        "from those points' I/O in the sweep's measurement-window rounds, not from the PTS's "
        "dedicated run at each point (this run was made before drivelab ran them)"
    )


def point_runs(di: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The dedicated runs the three IOPS points need, maximum first: one per distinct TC x QD
    point (in a small sweep the middle point can be the maximum or the minimum), with the
    points it is (`points`: "max", "mid", "min")."""
    runs: dict[str, dict[str, Any]] = {}
    for key in ("max", "mid", "min"):
        p = di.get(key)
        if p is None:
            continue
        run = runs.setdefault(
            p["name"], {"name": p["name"], "tc": p["tc"], "qd": p["qd"], "toc": p["toc"]}
        )
        run.setdefault("points", []).append(key)
    return list(runs.values())
