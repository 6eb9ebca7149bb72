"""The report of a SNIA PTS run, in the specification's layout: the header fields, then one
section per rounds step (the steady-state convergence of the tracking variable, the
measurement window with its average, +-10% and +-20% bands and least-squares line, the
window's table of every element, latency distributions where the test has them), then the
test's own series (host idle recovery's sets, cross-stimulus recovery's transitions).

While the run goes on, each section is computed from the rounds stored so far, so the
convergence grows round by round; the window's distributions come when the step ends.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.analysis import pts, xsr
from backend.core.errors import NotFound
from backend.drives.service import drive_label
from backend.plans.pts_dirth import POINTS_ROLE
from backend.pts.derive import di_of, xsr_levels
from backend.pts.service import PTS_PLANS, ROUNDS_ROLES, convergence, plan_title, round_rows
from backend.results.models import Result
from backend.results.series import series
from backend.runs.models import Run, Step
from backend.runs.service import get_run


def report(session: Session, run_id: int, *, hide_embargoed: bool = False) -> dict[str, Any]:
    run = get_run(session, run_id, hide_embargoed=hide_embargoed)
    if run.plan not in PTS_PLANS and run.plan != "pts-steady-state":
        raise NotFound(
            f"run {run_id} is a {run.plan} run: PTS reports are for the SNIA PTS plans "
            f"({', '.join(PTS_PLANS)})"
        )
    steps = sorted(run.steps, key=lambda s: s.idx)
    sections = [
        _section(session, step, steps)
        for step in steps
        if step.kind == "fio-rounds"
        and step.params.get("track")
        and step.params.get("role") in ("pts-rounds", "pts-wsat")
    ]
    out: dict[str, Any] = {
        "run_id": run.id,
        "plan": run.plan,
        "title": plan_title(run.plan),
        "status": run.status,
        "simulated": bool(run.drive.model.simulated),
        "header": _header(run, steps, sections),
        "sections": sections,
    }
    if run.plan == "pts-hir":
        out["hir"] = _hir(session, run, steps, sections)
    if run.plan == "pts-xsr":
        out["xsr"] = _xsr(session, run, steps)
    return out


def _section(session: Session, step: Step, steps: list[Step]) -> dict[str, Any]:
    rows = round_rows(session, step.id)
    p = step.params
    values = [
        pts.tracked_value(r.summary, p["track"]["element"], p["track"]["metric"]) for r in rows
    ]
    conv = convergence(step, rows)
    analysis = (step.analysis or {}).get("pts") or {}
    window = conv.get("window") if rows else None
    finished = step.status in ("done", "failed", "cancelled")
    in_window = [r for r in rows if window and window[0] <= r.round <= window[1]]
    written = pts.cumulative_written([r.summary for r in rows])
    section: dict[str, Any] = {
        "step_id": step.id,
        "name": step.name,
        "label": p.get("label", step.name),
        "status": step.status,
        "test": p.get("test"),
        "track": p["track"],
        "elements": p.get("elements", []),
        "profile": p.get("profile"),
        "threads": p.get("threads"),
        "iodepth": p.get("iodepth"),
        "active_range_pct": p.get("active_range_pct"),
        "active_bytes": p.get("span_bytes"),
        "element_s": p.get("element_s"),
        "max_rounds": p.get("max_rounds"),
        "values": values,
        "convergence": conv,
        "rounds": [
            {
                "round": r.round,
                "t_start_s": r.t_start_ms / 1000,
                "t_end_s": r.t_end_ms / 1000,
                "value": v,
                "iops": pts.round_iops(r.summary),
                "written_bytes": w,
            }
            for r, v, w in zip(rows, values, written, strict=True)
        ],
        # The measurement window's table: once steady, or once the step has ended (then the
        # last rounds, marked not steady).
        "window": window if (conv.get("steady") or finished) else None,
        "table": pts.window_table([r.summary for r in in_window])
        if (conv.get("steady") or finished) and in_window
        else None,
        "histograms": analysis.get("histograms"),
        "percentiles": analysis.get("percentiles"),
        "stop": (step.logs or {}).get("stop"),
    }
    if p.get("test") == "pts-latency":
        # Each element's average and maximum response time in every round (fio's own figures
        # of the element: its completion latency mean and its exact maximum, µs).
        section["element_rounds"] = {
            e["name"]: [
                [
                    r.round,
                    (r.summary.get(e["name"]) or {}).get("lat_mean_us"),
                    (r.summary.get(e["name"]) or {}).get("lat_max_us"),
                ]
                for r in rows
            ]
            for e in p.get("elements", [])
        }
    if p.get("stimulus"):
        section["stimulus"] = p["stimulus"]
    if p.get("di"):
        # Demand intensity: the derived figures once the step has ended, else from the
        # rounds so far (the window's table when there is one).
        di = analysis.get("di")
        if di is None and section["table"]:
            di = di_of(step, section["table"])
        section["di"] = di
        section.update(_point_histograms(step, steps))
    if p.get("role") == "pts-wsat":
        section["capacity_bytes"] = p.get("capacity_bytes")
        section["stop_write_bytes"] = p.get("stop_write_bytes")
    return section


def _point_histograms(sweep: Step, steps: list[Step]) -> dict[str, Any]:
    """A demand-intensity sweep's histograms at its three IOPS points and where they come
    from (`histograms_source`, in words): the dedicated run at each point once those runs have
    ended (their step's analysis, backend.pts.derive.derive_points); for a run made before
    those existed (its sweep has no `point_s`), the points' I/O in the sweep's window."""
    point_s = sweep.params.get("point_s")
    source = pts.histograms_source(point_s)
    if not point_s:
        return {"histograms_source": source}
    runs = next(
        (
            s
            for s in steps
            if s.params.get("role") == POINTS_ROLE and s.params.get("sweep") == sweep.name
        ),
        None,
    )
    status = runs.status if runs else "missing"
    found = ((runs.analysis or {}).get("pts") or {}) if runs and status == "done" else {}
    if status != "done":
        source += f" (those runs: {POINT_RUNS_STATUS.get(status, status)})"
    return {
        "histograms": found.get("histograms"),
        "percentiles": found.get("percentiles"),
        "histograms_source": source,
        "point_runs": {
            "step_id": runs.id if runs else None,
            "status": status,
            "point_s": point_s,
            "runs": found.get("runs", []),
        },
    }


POINT_RUNS_STATUS = {
    "pending": "not started yet",
    "running": "under way",
    "failed": "failed",
    "cancelled": "cancelled",
    "skipped": "not run",
}


def _convergence_text(sections: list[dict[str, Any]], status: str, plan: str) -> str:
    if plan == "pts-xsr":
        # The specification runs XSR from purged, with no preconditioning and no rounds.
        return "not applicable: cross-stimulus recovery runs from purged, without rounds"
    if not sections:
        return "no rounds" if status in ("done", "failed", "cancelled", "lost") else "not started"
    parts = []
    for s in sections:
        conv = s["convergence"]
        name = s["name"]
        if conv.get("steady"):
            a, b = conv["window"]
            parts.append(f"{name}: steady state reached in round {conv['round']} (window {a}-{b})")
        elif s["status"] == "running":
            parts.append(
                f"{name}: round {len(s['values'])} of at most {s['max_rounds']}, not yet steady"
            )
        elif s["status"] == "pending":
            parts.append(f"{name}: not started")
        else:
            parts.append(f"{name}: not reached in {len(s['values'])} rounds")
    return "; ".join(parts)


def _header(run: Run, steps: list[Step], sections: list[dict[str, Any]]) -> dict[str, Any]:
    env = run.environment or {}
    drive = env.get("drive") or {}
    host = env.get("host") or {}
    model = run.drive.model
    purges = [(s.logs or {}).get("purge") for s in steps if s.kind == "purge"]
    purge = next((p for p in purges if p), None)
    cache = next(
        (
            (s.logs or {}).get("write_cache")
            for s in steps
            if s.kind == "write-cache" and not s.params.get("restore")
        ),
        None,
    )
    preconditioning = [
        s.params.get("label") for s in steps if s.params.get("role") == "precondition"
    ]
    first = next(iter(sections), None)
    params = run.params or {}
    sweep = next((s for s in steps if s.params.get("di")), None)
    return {
        "sponsor": params.get("sponsor"),
        "drive": drive_label(run.drive),
        "vendor": model.vendor,
        "model": drive.get("model") or model.model,
        "serial": run.drive.serial,
        "firmware": drive.get("firmware"),
        "capacity_bytes": model.capacity_bytes,
        "tested_bytes": _tested_bytes(steps),
        "interface": drive.get("transport") or model.interface,
        "purge": purge,
        "preconditioning": preconditioning or ["none: the test starts from the purged drive"],
        "write_cache": cache,
        "profile": params.get("profile"),
        "active_range_pct": first["active_range_pct"] if first else None,
        # A demand-intensity sweep (DIRTH, ECW) has no one TC/QD: `demand` says the sweep's
        # and the preconditioning's instead.
        "threads": None if sweep else first["threads"] if first else params.get("threads"),
        "iodepth": None if sweep else first["iodepth"] if first else params.get("iodepth"),
        "demand": _demand_text(sweep, first) if sweep else None,
        "convergence": _convergence_text(sections, run.status, run.plan),
        "host": {k: host.get(k) for k in ("hostname", "cpu", "memory_bytes", "os", "kernel")},
        "fio_version": host.get("fio_version"),
        "ioengine": params.get("ioengine"),
        "randseed": params.get("randseed"),
        "started_at": run.started_at.isoformat() if run.started_at else None,
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
    }


def _demand_text(sweep: Step, first: dict[str, Any] | None) -> str:
    """A sweep's demand in the header: its thread counts and queue depths, the range of total
    outstanding I/O, and the TC/QD of the preconditioning and pre-writes."""
    p = sweep.params
    tcs, qds = p.get("thread_counts") or [], p.get("queue_depths") or []
    text = (
        f"TC {', '.join(map(str, tcs))} x QD {', '.join(map(str, qds))} "
        f"(TOC {min(tcs) * min(qds)} to {max(tcs) * max(qds)})"
        if tcs and qds
        else "demand-intensity sweep"
    )
    pc = first if first and first.get("step_id") != sweep.id else None
    if pc and pc.get("threads"):
        text += f"; preconditioning and pre-writes at TC {pc['threads']}, QD {pc['iodepth']}"
    return text


def _tested_bytes(steps: list[Step]) -> int | None:
    for s in steps:
        if s.params.get("role") == "precondition":
            return s.params.get("span_bytes")
    for s in steps:
        if s.params.get("capacity_bytes"):
            return int(s.params["capacity_bytes"])
    return None


def _hir(
    session: Session, run: Run, steps: list[Step], sections: list[dict[str, Any]]
) -> dict[str, Any]:
    """Host idle recovery on one clock (seconds since the first wait state began): each set's
    write periods with their IOPS, each return to baseline's IOPS, and the baseline's."""
    sets = [s for s in steps if s.params.get("role") == "pts-hir-wait"]
    baselines = {
        s.params.get("wait_s"): s for s in steps if s.params.get("role") == "pts-hir-baseline"
    }
    started = [s.started_at for s in sets if s.started_at is not None]
    t0 = min(started) if started else None
    baseline_section = next((s for s in sections if s["name"] == "rounds"), None)
    baseline_iops = None
    if baseline_section and baseline_section.get("table"):
        row = baseline_section["table"].get(baseline_section["track"]["element"]) or {}
        baseline_iops = row.get("write_iops")
    results = _results(session, [b.id for b in baselines.values()])
    out_sets = []
    for step in sets:
        wait = step.params.get("wait_s")
        rows = round_rows(session, step.id)
        offset = (step.started_at - t0).total_seconds() if (t0 and step.started_at) else 0.0
        bursts = [
            [offset + r.t_start_ms / 1000, offset + r.t_end_ms / 1000, pts.round_iops(r.summary)]
            for r in rows
        ]
        base = baselines.get(wait)
        base_offset = (
            (base.started_at - t0).total_seconds() if (base and t0 and base.started_at) else None
        )
        iops = [b[2] for b in bursts]
        out_sets.append(
            {
                "wait_s": wait,
                "step_id": step.id,
                "status": step.status,
                "cycles": len(rows),
                "planned_cycles": step.params.get("max_rounds"),
                "start_s": offset,
                "end_s": bursts[-1][1] + float(wait or 0) if bursts else offset,
                "bursts": bursts,
                "burst_iops": sum(iops) / len(iops) if iops else None,
                "baseline": None
                if base is None
                else {
                    "step_id": base.id,
                    "status": base.status,
                    "start_s": base_offset,
                    "seconds": base.params.get("runtime"),
                    "iops": results.get(base.id, {}).get("write_iops"),
                },
            }
        )
    return {"baseline_iops": baseline_iops, "sets": out_sets}


def _results(session: Session, step_ids: list[int]) -> dict[int, dict[str, float]]:
    out: dict[int, dict[str, float]] = {}
    if not step_ids:
        return out
    for r in session.scalars(select(Result).where(Result.step_id.in_(step_ids))):
        if r.step_id is not None:
            out.setdefault(r.step_id, {})[r.metric] = r.value
    return out


def is_rounds_step(step: Step) -> bool:
    return step.kind == "fio-rounds" and step.params.get("role") in ROUNDS_ROLES


XSR_POINTS = 300
XSR_SERIES = (
    ("mbps_series", "write_mbps"),
    ("lat_series", "write_lat_mean_us"),
    ("lat_max_series", "write_lat_max_us"),
)


def _xsr(session: Session, run: Run, steps: list[Step]) -> dict[str, Any]:
    """Cross-stimulus recovery on one clock (seconds since the first stimulus began): each
    stimulus's throughput, average and maximum response time per second (downsampled keeping
    every minimum and maximum), its figures from fio's totals, its levels and recovery time
    (backend.analysis.xsr, from its per-second samples: derived when the stimulus ends), and
    the transitions between stimuli."""
    stimuli = [s for s in steps if str(s.params.get("role", "")).startswith("xsr-")]
    started = [s.started_at for s in stimuli if s.started_at is not None]
    t0 = min(started) if started else None
    results = _results(session, [s.id for s in stimuli])
    out = []
    for step in stimuli:
        offset = (step.started_at - t0).total_seconds() if (t0 and step.started_at) else None
        figures = results.get(step.id, {})
        found = (step.analysis or {}).get("xsr")
        if found is None and step.status == "done":
            found = xsr_levels(session, step)  # a stimulus that ended before levels were kept
        entry: dict[str, Any] = {
            "step_id": step.id,
            "name": step.name,
            "role": step.params.get("role"),
            "label": step.params.get("label", step.name),
            "status": step.status,
            "start_s": offset,
            "seconds": step.params.get("runtime"),
            "mbps": figures.get("write_mbps"),
            "lat_mean_us": figures.get("write_lat_mean_us"),
            "lat_max_us": figures.get("write_lat_max_us"),
            "recovery_s": found["recovery_s"] if found else None,
            "settled_mbps": found["settled_mbps"] if found else None,
            "initial_mbps": found["initial_mbps"] if found else None,
            "held_s": found["held_s"] if found else None,
            "levels": found["levels"] if found else [],
            "min_time_s": found["min_time_s"] if found else None,
            "min_rel_change": found["min_rel_change"] if found else None,
            **{key: [] for key, _metric in XSR_SERIES},
        }
        if offset is not None and step.status != "pending":
            for key, metric in XSR_SERIES:
                data = series(session, run.id, step.id, metric, XSR_POINTS)
                entry[key] = [[offset + x, y] for x, y in data["points"]]
        out.append(entry)
    transitions = []
    pairs = xsr.transitions(
        [
            {"name": e["name"], "settled_rate": e["settled_mbps"], "recovery_s": e["recovery_s"]}
            for e in out
        ]
    )
    for (before, after), t in zip(zip(out, out[1:], strict=False), pairs, strict=True):
        transitions.append(
            {
                "from": t["from"],
                "to": t["to"],
                "label": f"{before['label'].split(',')[0]} to {after['label'].split(',')[0]}",
                "at_s": after["start_s"],
                "recovery_s": t["recovery_s"],
                "before_mbps": t["before_rate"],
                "settled_mbps": t["settled_rate"],
                "ratio": t["ratio"],
            }
        )
    return {"stimuli": out, "transitions": transitions}
