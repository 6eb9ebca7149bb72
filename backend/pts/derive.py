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
from backend.pts.service import convergence, round_outputs, round_rows
from backend.runs.models import SAMPLE_ROWS, Step

Metric = tuple[str, float, str]
PERCENTILES = ("99", "99.9", "99.99", "99.999")
# Tests whose report shows latency distributions of the window.
HISTOGRAM_TESTS = ("pts-latency", "pts-wsat")


def metric_name(prefix: str, element: str) -> str:
    return f"{prefix}_{element.replace('-', '_')}"


def derive_rounds(session: Session, step: Step) -> tuple[list[Metric], dict[str, Any]]:
    rows = round_rows(session, step.id)
    if not rows:
        return [], {}
    conv = convergence(step, rows)
    first, last = conv["window"]
    in_window = [r for r in rows if first <= r.round <= last]
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
    if step.params.get("role") == "pts-hir-wait":
        iops = [pts.round_iops(r.summary) for r in rows]
        result["bursts"] = [
            [r.t_start_ms / 1000, r.t_end_ms / 1000, v] for r, v in zip(rows, iops, strict=True)
        ]
        result["burst_iops"] = sum(iops) / len(iops)
    return _metrics(test, step, result), {"pts": result}


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
