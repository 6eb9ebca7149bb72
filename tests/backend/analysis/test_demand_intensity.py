"""backend.analysis.pts.demand_intensity: the points, the maximum/middle/minimum IOPS points
and the knee, on tables whose answer is worked out by hand."""

from __future__ import annotations

from backend.analysis.pts import demand_intensity


def _elements(points: list[tuple[int, int]]) -> list[dict]:
    return [{"name": "prewrite"}] + [
        {"name": f"tc{t}-qd{q}", "tc": t, "qd": q, "toc": t * q} for t, q in points
    ]


def test_a_drive_limited_to_2000_iops_saturates_and_its_points_are_chosen() -> None:
    # A drive that serves 2000 IOPS at most and 1 ms per I/O: IOPS = min(TOC / 1 ms, 2000);
    # Little's law gives the ART: TOC / IOPS.
    grid = [(t, q) for t in (4, 2, 1) for q in (8, 4, 1)]
    table = {"prewrite": {"iops": 5000.0, "lat_mean_us": 1.0}}
    for t, q in grid:
        toc = t * q
        iops = min(toc / 0.001, 2000.0)
        table[f"tc{t}-qd{q}"] = {"iops": iops, "lat_mean_us": toc / iops * 1e6, "lat_max_us": 9e3}
    di = demand_intensity(table, _elements(grid), art_ceiling_us=5000.0)
    assert [p["toc"] for p in di["points"]] == [1, 2, 4, 4, 8, 8, 16, 16, 32]
    assert "prewrite" not in [p["name"] for p in di["points"]]
    # TOC 32 and 16 run at 16 and 8 ms, beyond the ceiling; TOC 2 is the first at the limit.
    assert di["min"]["name"] == "tc1-qd1" and di["min"]["iops"] == 1000.0
    assert di["max"]["name"] == "tc2-qd1" and di["max"]["iops"] == 2000.0
    assert di["saturation_toc"] == 2 and di["peak_iops"] == 2000.0
    # The middle, 1500, is as far from 1000 as from 2000: the smaller TOC is taken.
    assert di["mid"]["toc"] == 1
    assert "within the 5 ms ceiling" in di["finding"]


def test_the_hockey_stick_knee_and_the_middle_point() -> None:
    # 1 ms per I/O, at most 10,000 IOPS: TOC 1 -> 1000, 2 -> 2000, 4 -> 4000, 8 -> 8000,
    # 16 -> 10,000, 32 -> 10,000.
    grid = [(1, q) for q in (32, 16, 8, 4, 2, 1)]
    table = {}
    for _t, q in grid:
        iops = min(q / 0.001, 10_000.0)
        table[f"tc1-qd{q}"] = {"iops": iops, "lat_mean_us": q / iops * 1e6, "lat_max_us": 1e4}
    di = demand_intensity(table, _elements(grid), art_ceiling_us=2500.0)
    # TOC 32 at 3.2 ms is beyond 2.5 ms; TOC 16 (1.6 ms) gives the maximum, 10,000 IOPS.
    assert di["max"]["toc"] == 16 and di["max"]["iops"] == 10_000.0
    # Halfway between 10,000 and 1000 is 5500: TOC 4 (4000) is 1500 away, TOC 8 (8000) 2500.
    assert di["mid"]["toc"] == 4
    # 95% of 10,000 first at TOC 16.
    assert di["saturation_toc"] == 16
    assert "at TOC 16" in di["finding"] and "without more IOPS" in di["finding"]


def test_no_point_within_the_ceiling_is_said_and_no_maximum_is_made_up() -> None:
    table = {"tc1-qd1": {"iops": 100.0, "lat_mean_us": 10_000.0}}
    di = demand_intensity(table, _elements([(1, 1)]), art_ceiling_us=5000.0)
    assert di["max"] is None and di["mid"] is None and di["min"]["iops"] == 100.0
    assert di["finding"].startswith("no TC/QD point kept its average response time within 5 ms")
    assert demand_intensity({}, _elements([(1, 1)]), 5000.0)["points"] == []


def test_the_article_and_the_run_page_say_the_finding() -> None:
    from backend.results.article import _findings
    from backend.runs.models import Step
    from backend.runs.service import findings

    grid = [(1, q) for q in (4, 1)]
    table = {
        f"tc1-qd{q}": {"iops": 1000.0, "lat_mean_us": q * 1000.0, "lat_max_us": 9e3}
        for _t, q in grid
    }
    di = demand_intensity(table, _elements(grid), art_ceiling_us=5000.0)
    step = Step(
        run_id=7,
        idx=3,
        kind="fio-rounds",
        name="rounds",
        params={"stimulus": "random 4 KiB, 0/100 R/W"},
        status="done",
        analysis={"pts": {"di": di}},
    )
    said = _findings({(1, "pts-dirth"): 7}, {7: [step]}, 1)
    [line] = [f["text"] for f in said if f["topic"] == "demand-intensity"]
    assert line.startswith("SNIA PTS DIRTH (random 4 KiB, 0/100 R/W): maximum 1000 IOPS at TC1/QD1")
    assert not [f for f in _findings({}, {}, 1) if f["topic"] == "demand-intensity"]
    found = findings(step.analysis)
    assert found is not None and found.demand_intensity is not None
    assert found.demand_intensity.max is not None and found.demand_intensity.max.toc == 1
    assert found.demand_intensity.finding == di["finding"]
