"""One drive's firmware versions as an article (GET /api/compare/article?drives=ID&firmware=A&
firmware=B, backend.results.article.firmware_article) on a real PostgreSQL: each version's
column holds the figures of that version's runs alone, the same figures, intervals and
verdicts as an article of two drives that ran exactly those runs, the verdicts the ones
backend.analysis.significance gives; and the requests it refuses, with what to fix."""

from __future__ import annotations

import statistics
from datetime import date
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy.orm import Session

from backend.analysis import significance
from backend.benches.models import Bench
from backend.core.errors import InvalidParams
from backend.drives.models import DriveModel, DriveSample
from backend.prices.models import Price
from backend.results import article as art
from backend.results import compare as cmp
from backend.results.firmware import history
from backend.results.models import Result
from backend.results.schemas import Article, FirmwareHistory
from backend.runs.models import Run, Step
from tests.backend.results.test_firmware import new_run

NOISE = (0.0, -4.0, 4.0, -2.0, 2.0)
# step -> [(metric, unit, firmware 1.00's value, firmware 1.01's value)], NOISE added per run
STEPS = {
    "randread-4k-qd3": [
        ("read_iops", "IOPS", 10_000.0, 11_000.0),  # 10% more: an improvement
        ("read_lat_p99_9_us", "µs", 300.0, 360.0),  # 20% slower: a regression
        ("read_lat_mean_us", "µs", 100.0, 100.1),  # within noise (appendix)
    ],
    "seqread-128k-qd1": [("read_mbps", "MB/s", 1000.0, 1000.5)],  # within noise
}
HDTACH = {
    "hdtach": {"average_mbps": 180.0},
    "direction": "write",
    "step_downs": [{"at_pct": 25.0, "at_gb": 1.0, "from_mbps": 400.0, "to_mbps": 200.0}],
}


def add_run(
    s: Session, drive: DriveSample, firmware: str | None, column: int, e: float, age: int
) -> Run:
    """A four-corners run that recorded `firmware` (None: the drive reported none), with the
    values of STEPS' column (0: 1.00's, 1: 1.01's) plus e."""
    run = new_run(s, drive, firmware, age)
    for i, (name, rows) in enumerate(STEPS.items()):
        step = Step(run_id=run.id, idx=i, kind="fio", name=name, params={}, status="done")
        s.add(step)
        s.flush()
        for metric, unit, *values in rows:
            s.add(Result(run_id=run.id, step_id=step.id, metric=metric,
                         value=values[column] + e, unit=unit))  # fmt: skip
    return run


def add_hdtach(s: Session, drive: DriveSample, firmware: str, age: int) -> None:
    run = new_run(s, drive, firmware, age, plan="hdtach")
    step = Step(run_id=run.id, idx=0, kind="fio", name="hdtach-write", params={}, status="done",
                analysis=HDTACH)  # fmt: skip
    s.add(step)
    s.flush()
    s.add(Result(run_id=run.id, step_id=step.id, metric="hdtach_write_avg_mbps", value=180.0,
                 unit="MB/s"))  # fmt: skip


def lab(s: Session) -> dict[str, Any]:
    """Drive X (a real model: simulated ones have no price) ran four corners five times on
    firmware 1.00, five times on 1.01, once reporting no firmware (its registered one, "sim",
    counts), and HD Tach on 1.01. Twins A and B (of another model) ran exactly X's 1.00 and
    1.01 runs: the article of two drives that the firmware article must equal."""
    bench = Bench(name="fw-article-bench", host_info={})
    model = DriveModel(vendor="drivelab", model="FW article", capacity_bytes=10**12,
                       simulated=False)  # fmt: skip
    twins = DriveModel(vendor="drivelab", model="FW twins", capacity_bytes=10**12, simulated=False)
    s.add_all([bench, model, twins])
    s.flush()
    x = DriveSample(model_id=model.id, bench_id=bench.id, serial="FWA-X", target_path="/x/fwa",
                    firmware="sim", short_name="Drive X")  # fmt: skip
    a = DriveSample(model_id=twins.id, bench_id=bench.id, serial="FWA-A", target_path="/x/a",
                    short_name="Twin A")  # fmt: skip
    b = DriveSample(model_id=twins.id, bench_id=bench.id, serial="FWA-B", target_path="/x/b",
                    short_name="Twin B")  # fmt: skip
    s.add_all([x, a, b])
    s.flush()
    age = 10_000
    for column, fw in enumerate(("1.00", "1.01")):
        for e in NOISE:
            age -= 10
            add_run(s, x, fw, column, e, age)
            add_run(s, (a, b)[column], fw, column, e, age)
    add_run(s, x, None, 1, 500.0, age - 5)  # the registered firmware: in neither column
    add_hdtach(s, x, "1.01", age - 8)
    add_hdtach(s, b, "1.01", age - 8)
    s.add(Price(model_id=model.id, capacity_bytes=10**12, retailer="shop", price=Decimal("80.00"),
                currency="USD", observed_on=date(2026, 11, 1), source="test"))  # fmt: skip
    s.flush()
    return {"x": x, "a": a, "b": b, "model": model}


@pytest.fixture(autouse=True)
def empty_caches() -> None:
    cmp._cache.clear()
    cmp._parts.clear()


def test_each_version_is_a_column_of_its_own_runs(session: Session) -> None:
    d = lab(session)
    x = d["x"]
    out = art.article(session, [x.id], None, firmware=["1.00", "1.01"])
    Article.model_validate(out)
    assert out["by_firmware"] == x.id and out["under_review"] == 2
    cols = {c["id"]: c for c in out["drives"]}
    assert [c["name"] for c in out["drives"]] == ["Drive X (fw 1.00)", "Drive X (fw 1.01)"]
    assert [c["firmware"] for c in out["drives"]] == ["1.00", "1.01"]
    assert all(c["drive_id"] == x.id for c in out["drives"])
    assert cols[2]["under_review"] and not cols[1]["under_review"]
    assert cols[1]["label"].endswith(", firmware 1.00")
    # The drive's price in both columns.
    assert cols[1]["price"] == cols[2]["price"] == 80.0
    rows = {r["key"]: r for r in out["headline"]}
    # Each column: the mean of that version's runs alone (not the "sim" run's 11,500).
    for key, step, metric in (
        ("randread", "randread-4k-qd3", "read_iops"),
        ("seqread", "seqread-128k-qd1", "read_mbps"),
        ("p999-qd-low", "randread-4k-qd3", "read_lat_p99_9_us"),
    ):
        made = next(r for r in STEPS[step] if r[0] == metric)
        for column in (1, 2):
            expected = statistics.fmean(float(made[1 + column]) + e for e in NOISE)
            assert rows[key]["values"][str(column)] == pytest.approx(expected, rel=1e-12), key
        assert "conditions" in rows[key] and rows[key]["conditions"] is None  # firmware expected
    read = rows["randread"]["diff"]["1"]
    assert read["pct"] == pytest.approx(10.0)
    assert read["verdict"] == "better" and read["low_pct"] < 10 < read["high_pct"]
    assert rows["p999-qd-low"]["diff"]["1"]["verdict"] == "worse"
    assert rows["seqread"]["diff"]["1"]["verdict"] == "within noise"
    assert rows["price-per-gb"]["diff"]["1"]["verdict"] == "same"
    # The appendix: a figure pooled the same way; the "sim" run is in no column.
    mean = next(
        row for g in out["appendix"] for row in g["rows"]
        if row["key"] == "four-corners:randread-4k-qd3:read_lat_mean_us"
    )  # fmt: skip
    assert mean["values"] == {
        "1": pytest.approx(100.0, rel=1e-12),
        "2": pytest.approx(100.1, rel=1e-12),
    }
    # The findings of each version's own latest runs.
    found = {f["drive_id"]: {x["topic"]: x["text"] for x in f["findings"]}
             for f in out["findings"]}  # fmt: skip
    assert found[2]["hdtach"].startswith("Write speed steps down at 25% of the span")
    assert found[1]["hdtach"] == (
        "Write speed across the span: not measured (no HD Tach run on this firmware)."
    )
    # Each column's name is its own in warnings: no "measured with different firmware".
    warnings = [w for g in out["appendix"] for w in g["warnings"]]
    assert not any("different firmware" in w for w in warnings), warnings


def test_the_same_as_two_drives_that_ran_those_runs(session: Session) -> None:
    d = lab(session)
    split = art.article(session, [d["x"].id], None, firmware=["1.00", "1.01"])
    twins = art.article(session, [d["a"].id, d["b"].id], d["b"].id)
    as_column = {str(d["a"].id): "1", str(d["b"].id): "2"}
    same = {"1": "1", "2": "2"}

    def keyed(row: dict[str, Any], as_column: dict[str, str]) -> dict[str, Any]:
        return {
            "values": {as_column[k]: v for k, v in row["values"].items()},
            "cells": {as_column[k]: v for k, v in row["cells"].items()},
            "diff": {as_column[k]: v for k, v in row["diff"].items()},
            "set_apart": {as_column[k]: v for k, v in row.get("set_apart", {}).items()},
        }

    measured = [r for r in twins["headline"] if not r["key"].startswith(("price", "per-dollar"))]
    assert {r["key"] for r in measured} == {"randread", "seqread", "p999-qd-low", "hdtach-write"}
    split_rows = {r["key"]: r for r in split["headline"]}
    for row in measured:
        assert keyed(split_rows[row["key"]], same) == keyed(row, as_column), row["key"]
    split_appendix = {r["key"]: r for g in split["appendix"] for r in g["rows"]}
    twin_appendix = {r["key"]: r for g in twins["appendix"] for r in g["rows"]}
    assert split_appendix.keys() == twin_appendix.keys()
    for key, row in twin_appendix.items():
        assert keyed(split_appendix[key], same) == keyed(row, as_column), key


def test_the_verdicts_are_welchs_over_each_plans_figures(session: Session) -> None:
    """Recomputed here from the runs with backend.analysis.significance: Welch's test of 1.01
    against 1.00 for every four-corners figure, Benjamini-Hochberg over them together."""
    d = lab(session)
    out = art.article(session, [d["x"].id], None, firmware=["1.00", "1.01"])
    figures = [(step, m, unit, v) for step, rows in STEPS.items() for m, unit, *v in rows]
    tests = [
        significance.welch([v[1] + e for e in NOISE], [v[0] + e for e in NOISE])
        for _s, _m, _u, v in figures
    ]
    qs = significance.adjust([t["p_practical"] if t else None for t in tests])
    headline = {r["key"]: r for r in out["headline"]}
    headline_of = {
        "read_iops": "randread",
        "read_mbps": "seqread",
        "read_lat_p99_9_us": "p999-qd-low",
    }
    verdicts = []
    for (_step, metric, unit, _v), test, q in zip(figures, tests, qs, strict=True):
        if metric not in headline_of:
            continue  # the appendix shows values, not differences
        expected = significance.verdict(test, q, unit != "µs")
        assert test is not None
        diff = headline[headline_of[metric]]["diff"]["1"]
        assert diff["verdict"] == expected, metric
        assert diff["low_pct"] == pytest.approx(test["low_pct"], rel=1e-9)
        assert diff["high_pct"] == pytest.approx(test["high_pct"], rel=1e-9)
        verdicts.append(str(expected))
    assert sorted(verdicts) == ["better", "within noise", "worse"]


@pytest.mark.parametrize(
    ("drives", "review", "firmware", "message"),
    [
        (2, None, ["1.00", "1.01"], "compared on one drive"),
        (1, 1, ["1.00", "1.01"], "leave out under_review"),
        (1, None, ["1.00"], "give two firmware versions"),
        (1, None, ["1.00", "1.00"], "1.00 is given more than once"),
        (
            1,
            None,
            ["1.00", "9.99"],
            "no finished run on firmware 9.99: its runs recorded firmware 1.00, 1.01, sim",
        ),
    ],
    ids=["two-drives", "under-review", "one-version", "twice", "not-run"],
)
def test_refused_with_what_to_fix(
    session: Session, drives: int, review: int | None, firmware: list[str], message: str
) -> None:
    d = lab(session)
    ids = [d["x"].id, d["a"].id][:drives]
    with pytest.raises(InvalidParams, match=message) as caught:
        art.article(session, ids, ids[0] if review else None, firmware=firmware)
    assert caught.value.status_code == 422


def test_a_run_keeps_the_firmware_registered_when_it_ran(session: Session) -> None:
    """A drive that reports no firmware (a file): its runs count to the version registered as
    each started (the api records it: worker_service.set_environment), not to today's."""
    d = lab(session)
    x = d["x"]
    for e in NOISE[:2]:
        run = add_run(session, x, None, 0, e, 1)
        run.environment = {**run.environment, "registered_firmware": "0.9"}
    session.flush()
    out = history(session, d["model"].id)
    assert out["drives"][0]["firmwares"] == ["1.00", "1.01", "sim", "0.9"]
    art_out = art.article(session, [x.id], None, firmware=["0.9", "1.00"])
    read = next(r for r in art_out["headline"] if r["key"] == "randread")
    assert read["values"]["1"] == pytest.approx(statistics.fmean(10_000 + e for e in NOISE[:2]))


def test_the_firmware_history_lists_each_drives_versions(session: Session) -> None:
    d = lab(session)
    out = FirmwareHistory.model_validate(history(session, d["model"].id)).model_dump()
    assert out["drives"] == [
        {"drive_id": d["x"].id, "name": "Drive X", "firmwares": ["1.00", "1.01", "sim"]}
    ]
