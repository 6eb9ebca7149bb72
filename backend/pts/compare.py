"""SNIA PTS results of several drives side by side: each drive's latest finished run of each
PTS test, reduced to what the reports' tables show (IOPS by block size and mix, MB/s by block
size, response times by element, write saturation and host idle recovery figures, each
cross-stimulus recovery stimulus's MB/s, recovery time and response times), with each
drive's difference from the drive under review."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.core.errors import InvalidParams
from backend.drives.service import drive_label
from backend.pts import report as pts_report
from backend.pts.service import PTS_PLANS
from backend.results.compare import _drives
from backend.runs.models import Run


def _latest_runs(session: Session, drive_ids: list[int]) -> dict[tuple[int, str], int]:
    rows = session.execute(
        select(Run.id, Run.drive_id, Run.plan)
        .where(Run.drive_id.in_(drive_ids), Run.plan.in_(PTS_PLANS), Run.status == "done")
        .order_by(Run.finished_at)
    )
    latest: dict[tuple[int, str], int] = {}
    for run_id, drive_id, plan in rows:
        latest[(drive_id, plan)] = run_id  # the last finished wins
    return latest


def _values(plan: str, report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """{row key: {column: value}} of a drive's report for one test."""
    out: dict[str, dict[str, Any]] = {}
    for section in report["sections"]:
        table = section.get("table") or {}
        for e in section["elements"]:
            row = table.get(e["name"])
            if row is None:
                continue
            if plan == "pts-iops":
                out.setdefault(e["bs"], {})[e["mix"]] = row.get("iops")
            elif plan == "pts-throughput":
                direction = "read" if e["read_pct"] == 100 else "write"
                out.setdefault(e["bs"], {})[direction] = row.get(f"{direction}_mbps")
            elif plan == "pts-latency":
                five = ((section.get("percentiles") or {}).get(e["name"]) or {}).get("all", {})
                out[e["name"]] = {
                    "label": e["label"],
                    "mean": row.get("lat_mean_us"),
                    "max": row.get("lat_max_us"),
                    "p99999": five.get("99.999"),
                    "ios": five.get("ios"),
                    "p99999_note": (five.get("unsupported") or {}).get("99.999"),
                }
            elif plan in ("pts-wsat", "pts-hir") and section["name"] == "rounds":
                out.setdefault("steady", {})["iops"] = row.get("write_iops")
    if plan == "pts-xsr" and report.get("xsr"):
        for s in report["xsr"]["stimuli"]:
            out[s["name"]] = {
                "label": s["label"],
                "mbps": s["mbps"],
                "settled_mbps": s["settled_mbps"],
                "recovery_s": s["recovery_s"] if s["role"] != "xsr-1" else None,
                "lat_mean_us": s["lat_mean_us"],
                "lat_max_us": s["lat_max_us"],
            }
    if plan in ("pts-dirth", "pts-ecw"):
        # Each drive's demand-intensity points (TOC: IOPS and ART) and its three IOPS points.
        for section in report["sections"]:
            di = section.get("di")
            if not di:
                continue
            for p in di["points"]:
                out[p["name"]] = {
                    "label": f"TC{p['tc']}/QD{p['qd']}",
                    "toc": p["toc"],
                    "iops": p["iops"],
                    "art_us": p["art_us"],
                }
            for key in ("max", "mid", "min"):
                if di.get(key):
                    out[f"{key}-iops"] = {
                        "label": f"{key} IOPS point, TC{di[key]['tc']}/QD{di[key]['qd']}",
                        "toc": di[key]["toc"],
                        "iops": di[key]["iops"],
                        "art_us": di[key]["art_us"],
                    }
    if plan == "pts-cbw":
        for section in report["sections"]:
            row = (section.get("table") or {}).get("cbw")
            if row:
                p9999 = ((section.get("percentiles") or {}).get("cbw") or {}).get("all", {})
                out["cbw"] = {
                    "label": section.get("stimulus") or "composite",
                    "iops": row.get("iops"),
                    "mbps": row.get("mbps"),
                    "lat_mean_us": row.get("lat_mean_us"),
                    "lat_max_us": row.get("lat_max_us"),
                    "p9999": p9999.get("99.99"),
                }
    if plan == "pts-hir" and report.get("hir"):
        for s in report["hir"]["sets"]:
            out[f"wait-{float(s['wait_s']):g}s"] = {"iops": s["burst_iops"]}
    return out


def compare_pts(
    session: Session, drive_ids: list[int], under_review: int | None, *, hide_embargoed: bool
) -> dict[str, Any]:
    if not drive_ids:
        raise InvalidParams("choose at least one drive: ?drives=1,2,3", field="drives")
    drives = _drives(session, drive_ids, hide_embargoed)
    latest = _latest_runs(session, drive_ids)
    reference = under_review if under_review in drives else drive_ids[0]
    tests = []
    for plan in PTS_PLANS:
        entries = []
        for drive_id in drive_ids:
            run_id = latest.get((drive_id, plan))
            if run_id is None:
                continue
            report = pts_report.report(session, run_id, hide_embargoed=hide_embargoed)
            entries.append(
                {
                    "drive_id": drive_id,
                    "label": drive_label(drives[drive_id]),
                    "under_review": drive_id == reference,
                    "run_id": run_id,
                    "simulated": report["simulated"],
                    "profile": report["header"]["profile"],
                    "steady": all(s["convergence"]["steady"] for s in report["sections"]),
                    "values": _values(plan, report),
                }
            )
        if entries:
            tests.append({"plan": plan, "title": pts_report.plan_title(plan), "drives": entries})
    return {"reference": reference, "tests": tests}
