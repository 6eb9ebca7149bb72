"""A PTS step's results, derived when it ends: for a rounds step, from the rounds the api
stored (the measurement window's table of every element, latency distributions where the test
reports them, and the scalar results comparisons read); for a cross-stimulus recovery
stimulus, from its per-second samples (its levels and recovery time)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.analysis import latency, pts, xsr
from backend.analysis.intervals import fold_short_tail
from backend.pts.models import StepRound
from backend.pts.service import convergence, round_outputs, round_rows
from backend.runs.models import SAMPLE_ROWS, Step

Metric = tuple[str, float, str]
PERCENTILES = ("99", "99.9", "99.99", "99.999")
# Tests whose report shows latency distributions of the window.
HISTOGRAM_TESTS = ("pts-latency", "pts-wsat", "pts-cbw")
# Demand-intensity tests: their result metrics' prefix.
DI_PREFIX = {"pts-dirth": "dirth", "pts-ecw": "ecw"}


def metric_name(prefix: str, element: str) -> str:
    return f"{prefix}_{element.replace('-', '_')}"


def _window(step: Step, rows: list[StepRound]) -> tuple[dict[str, Any], list[StepRound]]:
    """The convergence of a rounds step's stored rounds and the rounds of its measurement
    window (the last `window` rounds where it never became steady)."""
    conv = convergence(step, rows)
    first, last = conv["window"]
    return conv, [r for r in rows if first <= r.round <= last]


def di_of(step: Step, table: dict[str, dict[str, float]]) -> dict[str, Any]:
    """A demand-intensity sweep's figures from a table of its rounds: one function for the
    report, the results and the points its dedicated runs are made at."""
    p = step.params
    return pts.demand_intensity(
        table, p["elements"], float(p["art_ceiling_us"]), point_s=p.get("point_s")
    )


def sweep_di(session: Session, sweep: Step) -> dict[str, Any] | None:
    """A demand-intensity sweep's figures from its stored rounds, as derive_rounds keeps them
    for the report when the sweep ends: its dedicated point runs run the report's points, on
    a resumed run too. None before any round is stored."""
    rows = round_rows(session, sweep.id)
    if not rows:
        return None
    _conv, in_window = _window(sweep, rows)
    return di_of(sweep, pts.window_table([r.summary for r in in_window]))


def derive_rounds(session: Session, step: Step) -> tuple[list[Metric], dict[str, Any]]:
    rows = round_rows(session, step.id)
    if not rows:
        return [], {}
    conv, in_window = _window(step, rows)
    first, last = conv["window"]
    table = pts.window_table([r.summary for r in in_window])
    written = pts.cumulative_written([r.summary for r in rows])
    result: dict[str, Any] = {
        "convergence": conv,
        "window": [first, last],
        "steady": conv["steady"],
        "table": table,
        "stop": (step.logs or {}).get("stop"),
        "written_bytes": written[-1] if written else 0.0,
    }
    test = str(step.params.get("test") or "")
    if test in HISTOGRAM_TESTS:
        finals = round_outputs(session, step.id, [r.round for r in in_window])
        result.update(_distributions(finals, [e["name"] for e in step.params["elements"]]))
    if step.params.get("di"):
        # Demand intensity (DIRTH, ECW): the curve and its maximum, middle and minimum IOPS
        # points. Their histograms come from the dedicated runs at them (derive_points); a
        # run made before those existed (no `point_s`) has those of the points in the window.
        di = di_of(step, table)
        result["di"] = di
        if not step.params.get("point_s"):
            names = [run["name"] for run in pts.point_runs(di)]
            finals = round_outputs(session, step.id, [r.round for r in in_window])
            result.update(_distributions(finals, names))
    if step.params.get("role") == "pts-hir-wait":
        iops = [pts.round_iops(r.summary) for r in rows]
        result["bursts"] = [
            [r.t_start_ms / 1000, r.t_end_ms / 1000, v] for r, v in zip(rows, iops, strict=True)
        ]
        result["burst_iops"] = sum(iops) / len(iops)
    return _metrics(test, step, result), {"pts": result}


def derive_points(session: Session, step: Step) -> tuple[list[Metric], dict[str, Any]]:
    """The dedicated runs at a sweep's three IOPS points (backend.plans.pts_dirth.points_step),
    one stored round each, its fio job named after its point: each point's response-time
    histogram and percentiles from fio's json+ output of its run, and the run's own figures."""
    rows = round_rows(session, step.id)
    if not rows:
        return [], {}
    finals = round_outputs(session, step.id, [r.round for r in rows])
    runs = [
        {"round": r.round, "name": name, **figures}
        for r in rows
        for name, figures in r.summary.items()
    ]
    result: dict[str, Any] = {"point_s": step.params.get("point_s"), "runs": runs}
    result.update(_distributions(finals, [run["name"] for run in runs]))
    return [], {"pts": result}


def _distributions(finals: list[dict[str, Any]], names: list[str]) -> dict[str, Any]:
    """Histograms and percentiles of each element over the window's rounds, per direction
    and for all its I/Os together."""
    histograms: dict[str, dict[str, Any]] = {}
    percentiles: dict[str, dict[str, Any]] = {}
    for name in names:
        per_direction = {
            d: latency.merge_bins(pts.element_bins(f, name, d) for f in finals)
            for d in pts.DIRECTIONS
        }
        per_direction = {d: b for d, b in per_direction.items() if b}
        if not per_direction:
            continue
        per_direction["all"] = latency.merge_bins(per_direction.values())
        histograms[name] = {d: latency.histogram_points(b) for d, b in per_direction.items()}
        percentiles[name] = {d: _percentiles(b) for d, b in per_direction.items()}
    return {"histograms": histograms, "percentiles": percentiles}


def _percentiles(bins: dict[int, int]) -> dict[str, Any]:
    """The window's percentiles of a histogram (µs, backend.analysis.latency's rule), None
    with the reason in `unsupported` where the I/O count cannot give one (p99.999 needs
    100,000 I/Os)."""
    total = sum(bins.values())
    out: dict[str, Any] = {"ios": total, "unsupported": {}}
    for p in PERCENTILES:
        value = latency.bins_percentile(bins, float(p))
        out[p] = None if value is None else value / 1000.0
        if value is None:
            out["unsupported"][p] = latency.unsupported_reason(total, float(p))
    return out


def _metrics(test: str, step: Step, result: dict[str, Any]) -> list[Metric]:
    table = result["table"]
    out: list[Metric] = []
    if test == "pts-iops":
        for name, row in table.items():
            out.append((metric_name("iops", name), row.get("iops", 0.0), "IOPS"))
    elif test == "pts-throughput":
        for name, row in table.items():
            direction = "read" if name.startswith("seq-read") else "write"
            out.append((f"{direction}_mbps", row.get(f"{direction}_mbps", 0.0), "MB/s"))
    elif test == "pts-latency":
        for name, row in table.items():
            if "lat_mean_us" in row:
                out.append((metric_name("lat_mean_us", name), row["lat_mean_us"], "µs"))
            if "lat_max_us" in row:
                out.append((metric_name("lat_max_us", name), row["lat_max_us"], "µs"))
            five = ((result.get("percentiles") or {}).get(name) or {}).get("all", {}).get("99.999")
            if five is not None:
                out.append((metric_name("lat_p99999_us", name), five, "µs"))
    elif test in DI_PREFIX and result.get("di"):
        prefix, di = DI_PREFIX[test], result["di"]
        for point in ("max", "mid", "min"):
            p = di.get(point)
            if p is None:
                continue
            out.append((f"{prefix}_{point}_iops", p["iops"], "IOPS"))
            if p["art_us"] is not None:
                out.append((f"{prefix}_{point}_art_us", p["art_us"], "µs"))
            out.append((f"{prefix}_{point}_toc", float(p["toc"]), "I/Os"))
        if di.get("saturation_toc") is not None:
            out.append((f"{prefix}_saturation_toc", float(di["saturation_toc"]), "I/Os"))
    elif test == "pts-cbw":
        row = table.get("cbw") or {}
        for key, unit in (("iops", "IOPS"), ("mbps", "MB/s"), ("lat_mean_us", "µs")):
            if key in row:
                out.append((f"cbw_{key}", row[key], unit))
        if "lat_max_us" in row:
            out.append(("cbw_lat_max_us", row["lat_max_us"], "µs"))
        p9999 = ((result.get("percentiles") or {}).get("cbw") or {}).get("all", {}).get("99.99")
        if p9999 is not None:
            out.append(("cbw_lat_p9999_us", p9999, "µs"))
    elif test in ("pts-wsat", "pts-hir"):
        track = step.params["track"]
        row = table.get(track["element"]) or {}
        if step.params.get("role") == "pts-hir-wait":
            out.append(("hir_burst_iops", result["burst_iops"], "IOPS"))
        else:
            prefix = "wsat" if test == "pts-wsat" else "hir"
            out.append((f"{prefix}_window_iops", row.get("write_iops", 0.0), "IOPS"))
        if test == "pts-wsat":
            capacity = float(step.params.get("capacity_bytes") or 0)
            out.append(("wsat_written_bytes", result["written_bytes"], "B"))
            if capacity > 0:
                out.append(("wsat_drive_fills", result["written_bytes"] / capacity, "fills"))
    return out


def xsr_levels(session: Session, step: Step) -> dict[str, Any] | None:
    """A cross-stimulus recovery stimulus's levels and recovery time (backend.analysis.xsr)
    from its per-second samples of bytes written, fio's short last interval folded into the
    one before; None without two samples. Rates are in MB/s (10^6 B/s)."""
    c = SAMPLE_ROWS.c
    rows = session.execute(
        select(c.t_ms, c.dt_ms, c.write_bytes).where(c.step_id == step.id).order_by(c.t_ms)
    ).all()
    if len(rows) < 2:
        return None
    _t, dt_ms, (written,) = fold_short_tail(
        [r.t_ms for r in rows], [r.dt_ms for r in rows], [r.write_bytes for r in rows]
    )
    found = xsr.recovery([d / 1000 for d in dt_ms], written)

    def mbps(v: float | None) -> float | None:
        return None if v is None else v / 1e6

    return {
        "recovery_s": found["recovery_s"],
        "settled_mbps": mbps(found["settled_rate"]),
        "initial_mbps": mbps(found["initial_rate"]),
        "held_s": found["held_s"],
        "duration_s": found["duration_s"],
        "levels": [
            {"start_s": lv["start_s"], "end_s": lv["end_s"], "mbps": lv["rate"] / 1e6}
            for lv in found["levels"]
        ],
        "min_rel_change": found["min_rel_change"],
        "min_time_s": found["min_time_s"],
        "method": found["method"],
    }


def derive_xsr(session: Session, step: Step) -> tuple[list[Metric], dict[str, Any]]:
    """Results of an XSR stimulus: the level it settled at and, after a transition (the
    second and third stimuli), its recovery time."""
    found = xsr_levels(session, step)
    if found is None or found["recovery_s"] is None:
        return [], {}
    metrics: list[Metric] = [("xsr_settled_mbps", found["settled_mbps"], "MB/s")]
    if step.params.get("role") != "xsr-1":
        metrics.append(("xsr_recovery_s", found["recovery_s"], "s"))
    return metrics, {"xsr": found}
