"""A DIRTH/ECW sweep's dedicated point runs in its report: the histograms at the three IOPS
points come from those runs once they have ended, and the report says where they come from;
a run made before those runs existed keeps the sweep's and says so. No database: the steps
are as the report reads them."""

from __future__ import annotations

from typing import Any

from backend.analysis import pts
from backend.plans.pts_dirth import POINTS_ROLE
from backend.pts.report import _point_histograms
from backend.runs.models import Step

HIST = {"tc1-qd1": {"write": [[10.0, 100.0]], "all": [[10.0, 100.0]]}}
PERCENTILES = {"tc1-qd1": {"all": {"ios": 3001}}}


def sweep(**params: Any) -> Step:
    return Step(
        id=3, name="rounds", kind="fio-rounds", status="done", params={"di": True, **params}
    )


def points(status: str, analysis: dict | None = None) -> Step:
    return Step(
        id=4,
        name="point-runs",
        kind="fio-points",
        status=status,
        params={"role": POINTS_ROLE, "sweep": "rounds", "point_s": 600},
        analysis=analysis,
    )


def test_a_run_made_before_the_point_runs_keeps_the_sweeps_histograms_and_says_so() -> None:
    out = _point_histograms(sweep(), [sweep()])
    # Only the words: the section's histograms stay the sweep's window's.
    assert list(out) == ["histograms_source"]
    assert out["histograms_source"].startswith("from those points' I/O in the sweep's")
    assert "made before drivelab ran them" in out["histograms_source"]


def test_the_histograms_come_from_the_finished_point_runs() -> None:
    runs = [{"round": 1, "name": "tc1-qd1", "iops": 1000.0}]
    done = points("done", {"pts": {"histograms": HIST, "percentiles": PERCENTILES, "runs": runs}})
    out = _point_histograms(sweep(point_s=600), [sweep(point_s=600), done])
    assert out["histograms"] == HIST and out["percentiles"] == PERCENTILES
    assert out["histograms_source"] == (
        "from a dedicated 600-second run at each point, as the PTS specifies"
    )
    assert out["point_runs"] == {"step_id": 4, "status": "done", "point_s": 600, "runs": runs}


def test_before_the_point_runs_end_there_are_no_histograms_and_the_words_say_why() -> None:
    for status, words in (("pending", "not started yet"), ("cancelled", "cancelled")):
        out = _point_histograms(sweep(point_s=600), [sweep(point_s=600), points(status)])
        assert out["histograms"] is None and out["percentiles"] is None
        assert out["histograms_source"].endswith(f"(those runs: {words})")


def test_points_that_coincide_are_run_once_maximum_first() -> None:
    def point(tc: int, qd: int) -> dict[str, Any]:
        return {"name": f"tc{tc}-qd{qd}", "tc": tc, "qd": qd, "toc": tc * qd}

    di = {"max": point(2, 1), "mid": point(2, 1), "min": point(1, 1)}
    assert pts.point_runs(di) == [
        {**point(2, 1), "points": ["max", "mid"]},
        {**point(1, 1), "points": ["min"]},
    ]
    # No point within the ceiling: only the minimum is run.
    assert pts.point_runs({"max": None, "mid": None, "min": point(1, 1)}) == [
        {**point(1, 1), "points": ["min"]}
    ]
