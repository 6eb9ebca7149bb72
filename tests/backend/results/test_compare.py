"""Comparisons on a real PostgreSQL: 10 drives over the whole suite in four queries, sorted bars,
run-to-run variation of the runs measured alike, warnings about conditions and rows set apart."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from backend.benches.models import Bench
from backend.core.db import session_factory, utcnow
from backend.drives.models import DriveModel, DriveSample
from backend.results.compare import compare, compare_json, lower_is_better, pair
from backend.results.compare_parts import PLAIN
from backend.results.models import Result
from backend.results.schemas import Comparison
from backend.runs.models import Run, Step

STEPS = {
    "randread-4k-qd3": ("read_mbps", "MB/s"),
    "randwrite-4k-qd32": ("write_mbps", "MB/s"),
    "randwrite-4k-qd3": ("write_lat_p99_us", "µs"),
}


def add_drive(s: Session, bench: Bench, n: int, *, simulated: bool = True) -> DriveSample:
    model = DriveModel(
        vendor="drivelab", model=f"Simulated {n}", capacity_bytes=10**12, simulated=simulated
    )
    s.add(model)
    s.flush()
    drive = DriveSample(
        model_id=model.id,
        bench_id=bench.id,
        serial=f"SIM-{n}",
        target_path=f"/x/{n}.img",
        firmware="sim",
    )
    s.add(drive)
    s.flush()
    return drive


def add_run(
    s: Session,
    drive: DriveSample,
    values: dict[str, float],
    *,
    fio: str = "fio-3.33",
    age_s: int = 0,
    plan: str = "four-corners",
) -> Run:
    run = Run(
        plan=plan,
        drive_id=drive.id,
        params={"ioengine": "libaio"},
        status="done",
        environment={"host": {"fio_version": fio, "hostname": "bench1"}},
        finished_at=utcnow() - timedelta(seconds=age_s),
    )
    s.add(run)
    s.flush()
    for i, (name, (metric, unit)) in enumerate(STEPS.items()):
        step = Step(run_id=run.id, idx=i, kind="fio", name=name, params={}, status="done")
        s.add(step)
        s.flush()
        s.add(Result(run_id=run.id, step_id=step.id, metric=metric, value=values[name], unit=unit))
    return run


@pytest.fixture(scope="module")
def lab(engine: Engine) -> dict[str, list[int]]:
    with session_factory(engine)() as s:
        bench = Bench(name="bench1", host_info={})
        s.add(bench)
        s.flush()
        drives = [add_drive(s, bench, n) for n in range(10)]
        for n, d in enumerate(drives):
            add_run(
                s,
                d,
                {
                    "randread-4k-qd3": 100 + n,
                    "randwrite-4k-qd32": 200 + n,
                    "randwrite-4k-qd3": 50 - n,
                },
                age_s=100,
            )
        # Drive 0 ran twice: latest 130, mean 115.
        add_run(
            s, drives[0], {"randread-4k-qd3": 130, "randwrite-4k-qd32": 200, "randwrite-4k-qd3": 50}
        )
        s.commit()
        return {"drives": [d.id for d in drives]}


def test_ten_drives_in_four_queries(engine: Engine, lab: dict[str, list[int]]) -> None:
    statements: list[str] = []
    listener = lambda *args: statements.append(args[2])  # noqa: E731
    event.listen(engine, "before_cursor_execute", listener)
    try:
        with session_factory(engine)() as s:
            result = compare(s, lab["drives"], None, lab["drives"][3])
    finally:
        event.remove(engine, "before_cursor_execute", listener)
    selects = [q for q in statements if q.lstrip().upper().startswith("SELECT")]
    # The drives with their models, the runs' conditions, the steps' conditions, then the
    # results: never a query per drive, run or metric.
    assert len(selects) == 4, selects
    by = {m["metric"]: m for m in result["metrics"]}
    read = by["four-corners:randread-4k-qd3:read_mbps"]
    assert [r["value"] for r in read["rows"]] == sorted(
        (r["value"] for r in read["rows"]), reverse=True
    )
    assert read["rows"][0]["drive_id"] == lab["drives"][0] and read["rows"][0]["value"] == 130
    assert read["rows"][0]["runs"]["count"] == 2
    assert [r["under_review"] for r in read["rows"]].count(True) == 1
    lat = by["four-corners:randwrite-4k-qd3:write_lat_p99_us"]
    assert lat["lower_is_better"] and lat["rows"][0]["value"] == 41  # best (lowest) first
    assert read["warnings"] == []
    Comparison.model_validate(result)  # the api answers it as is: the response model accepts it


def test_mean_aggregate_and_pair(engine: Engine, lab: dict[str, list[int]]) -> None:
    a, b = lab["drives"][0], lab["drives"][1]
    with session_factory(engine)() as s:
        mean = compare(s, [a], ["four-corners:randread-4k-qd3:read_mbps"], None, "mean")
        assert mean["metrics"][0]["rows"][0]["value"] == pytest.approx(115)
        assert mean["metrics"][0]["rows"][0]["runs"]["spread_pct"] == pytest.approx(30 / 115 * 100)
        side = pair(s, a, b)
    row = next(m for m in side["metrics"] if m["metric"].endswith("randread-4k-qd3:read_mbps"))
    assert (row["a"], row["b"]) == (130, 101)
    assert row["diff_pct"] == pytest.approx((101 - 130) / 130 * 100)


def test_warns_when_conditions_differ(engine: Engine, lab: dict[str, list[int]]) -> None:
    with session_factory(engine)() as s:
        bench = s.query(Bench).filter_by(name="bench1").one()
        other = add_drive(s, bench, 99, simulated=False)
        add_run(
            s,
            other,
            {"randread-4k-qd3": 90, "randwrite-4k-qd32": 90, "randwrite-4k-qd3": 90},
            fio="fio-3.38",
        )
        s.flush()
        result = compare(
            s,
            [lab["drives"][2], other.id],
            ["four-corners:randread-4k-qd3:read_mbps", "nope:x:y"],
            None,
        )
        s.rollback()
    warnings = result["metrics"][0]["warnings"]
    assert any("fio version" in w and "fio-3.38" in w and "fio-3.33" in w for w in warnings)
    assert any("simulated drives are compared with real ones" in w for w in warnings)
    assert result["missing"] == ["nope:x:y"]


def test_unknown_drive_says_which(engine: Engine) -> None:
    with session_factory(engine)() as s, pytest.raises(Exception, match="no drive with id 987654"):
        compare(s, [987654], None, None)


def test_performance_per_dollar(engine: Engine, lab: dict[str, list[int]]) -> None:
    from datetime import date
    from decimal import Decimal

    from backend.prices.models import Price
    from backend.results.compare import per_dollar

    with session_factory(engine)() as s:
        bench = s.query(Bench).filter_by(name="bench1").one()
        cheap, dear = (
            add_drive(s, bench, 50, simulated=False),
            add_drive(s, bench, 51, simulated=False),
        )
        add_run(s, cheap, {"randread-4k-qd3": 100, "randwrite-4k-qd32": 1, "randwrite-4k-qd3": 1})
        add_run(s, dear, {"randread-4k-qd3": 300, "randwrite-4k-qd32": 1, "randwrite-4k-qd3": 1})
        prices = [
            (cheap, "shop a", "100.00", date(2026, 1, 1)),
            (cheap, "shop a", "50.00", date(2026, 2, 1)),  # newer: the current one
            (cheap, "shop b", "80.00", date(2026, 1, 15)),
            (dear, "shop a", "200.00", date(2026, 1, 1)),
        ]
        for d, shop, price, day in prices:
            model_id = s.get(DriveSample, d.id).model_id  # type: ignore[union-attr]
            s.add(
                Price(
                    model_id=model_id,
                    capacity_bytes=10**12,
                    retailer=shop,
                    price=Decimal(price),
                    currency="USD",
                    observed_on=day,
                    source="test",
                )
            )
        s.flush()
        out = per_dollar(
            s,
            [cheap.id, dear.id, lab["drives"][0]],
            "four-corners:randread-4k-qd3:read_mbps",
            "USD",
        )
        s.rollback()
    assert [r["drive_id"] for r in out["rows"]] == [cheap.id, dear.id]
    assert out["rows"][0]["price"] == 50 and out["rows"][0]["per_unit_price"] == 2.0
    assert out["rows"][1]["per_unit_price"] == 1.5
    assert out["unit"] == "MB/s per USD"
    assert len(out["unpriced"]) == 1 and "Simulated 0" in out["unpriced"][0]


def test_per_dollar_of_a_lower_is_better_zero_says_why_not(
    engine: Engine, lab: dict[str, list[int]]
) -> None:
    from backend.core.errors import InvalidParams
    from backend.results.compare import per_dollar

    with session_factory(engine)() as s:
        bench = s.query(Bench).filter_by(name="bench1").one()
        fast, none = add_drive(s, bench, 60), add_drive(s, bench, 61)
        add_run(s, fast, {"randread-4k-qd3": 1, "randwrite-4k-qd32": 1, "randwrite-4k-qd3": 80})
        add_run(s, none, {"randread-4k-qd3": 1, "randwrite-4k-qd32": 1, "randwrite-4k-qd3": 0})
        s.flush()
        with pytest.raises(InvalidParams, match="Simulated 61.* scored 0") as err:
            per_dollar(s, [fast.id, none.id], "four-corners:randwrite-4k-qd3:write_lat_p99_us",
                       "USD")  # fmt: skip
        assert err.value.field == "metric"
        s.rollback()


def test_warns_on_firmware_and_drive_state(engine: Engine, lab: dict[str, list[int]]) -> None:
    """Two samples of one model on different firmware; a drive pre-written before its test
    and one that was not. A drive's runs on other firmware are not pooled with its latest."""
    with session_factory(engine)() as s:
        five = s.get(DriveSample, lab["drives"][5])
        six = s.get(DriveSample, lab["drives"][6])
        assert five is not None and six is not None
        six.model_id = five.model_id
        run = add_run(
            s, five, {"randread-4k-qd3": 1, "randwrite-4k-qd32": 1, "randwrite-4k-qd3": 1}
        )
        run.environment = {**run.environment, "drive": {"firmware": "2B6Q"}}
        prewrite = Step(
            run_id=run.id, idx=-1, kind="fio", name="prewrite", params={}, status="done"
        )
        s.add(prewrite)
        s.flush()
        result = compare(
            s,
            [lab["drives"][5], lab["drives"][6]],
            ["four-corners:randread-4k-qd3:read_mbps"],
            None,
        )
        s.rollback()
    metric = result["metrics"][0]
    warnings = metric["warnings"]
    assert any(
        "Simulated 5 was measured with different firmware: 2B6Q, sim" in w for w in warnings
    ), warnings
    assert any(
        w.startswith("measured with different drive state before: ")
        and "as found" in w
        and "pre-written" in w
        for w in warnings
    ), warnings
    five_row = next(r for r in metric["rows"] if r["drive_id"] == lab["drives"][5])
    assert five_row["runs"]["count"] == 1 and five_row["other_runs"] == 1
    assert five_row["conditions"]["firmware"] == "2B6Q"
    assert five_row["conditions"]["drive state before"] == "pre-written"
    assert set(metric["differing"]) == {"firmware", "drive state before"}


def test_over_provisioning_is_another_metric(engine: Engine, lab: dict[str, list[int]]) -> None:
    """A run with 25% OP measures other metrics (their id says @op25), never pooled or
    ranked with the default ones; resumed runs are flagged."""
    with session_factory(engine)() as s:
        drive = s.get(DriveSample, lab["drives"][7])
        assert drive is not None
        run = add_run(
            s, drive, {"randread-4k-qd3": 1, "randwrite-4k-qd32": 1, "randwrite-4k-qd3": 1}
        )
        run.params = {**run.params, "op_percent": 25}
        run.environment = {**run.environment, "resumes": [{"at": "2026-11-21T10:00:00"}]}
        s.flush()
        result = compare(s, [lab["drives"][7], lab["drives"][8]], None, None)
        s.rollback()
    by = {m["metric"]: m for m in result["metrics"]}
    plain = by["four-corners:randread-4k-qd3:read_mbps"]
    op = by["four-corners:randread-4k-qd3@op25:read_mbps"]
    assert [r["drive_id"] for r in op["rows"]] == [lab["drives"][7]]
    assert op["rows"][0]["value"] == 1 and op["conditions"]["OP"] == "25%"
    assert op["names"]["test"] == "4K random read QD3, 25% OP"
    assert "some runs were resumed after an interruption: Simulated 7" in op["warnings"]
    assert {r["drive_id"] for r in plain["rows"]} == {lab["drives"][7], lab["drives"][8]}
    assert all(r["runs"]["count"] == 1 and r["value"] != 1 for r in plain["rows"])
    assert plain["warnings"] == [] and plain["conditions"]["OP"] == "0%"


def test_a_different_span_sets_rows_apart(engine: Engine, lab: dict[str, list[int]]) -> None:
    """The demo's four corners over 32 MiB for 1 s against a drive's over 1 GiB for 15 s:
    warned, and the rows measured unlike the drive under review are not ranked with it."""
    with session_factory(engine)() as s:
        drives = [s.get(DriveSample, lab["drives"][i]) for i in (1, 2, 3)]
        runs = []
        for d, span, runtime, value in zip(
            drives, ("32m", "1g", "32m"), (1, 15, 1), (500, 100, 300), strict=True
        ):
            assert d is not None
            run = add_run(
                s, d, {"randread-4k-qd3": value, "randwrite-4k-qd32": 1, "randwrite-4k-qd3": 1}
            )
            for step in s.query(Step).filter_by(run_id=run.id):
                step.params = {"rw": "randread", "bs": "4k", "iodepth": 3, "size": span,
                               "runtime": runtime, "time_based": True}  # fmt: skip
            runs.append(run)
        s.flush()
        ids = [d.id for d in drives if d is not None]
        reviewed = compare(s, ids, ["four-corners:randread-4k-qd3:read_mbps"], ids[1])
        unreviewed = compare(s, ids, ["four-corners:randread-4k-qd3:read_mbps"], None)
        side = pair(s, ids[1], ids[0])
        alike = pair(s, ids[0], ids[2])
        s.rollback()
    metric = reviewed["metrics"][0]
    assert [r["drive_id"] for r in metric["rows"]] == [ids[1], ids[0], ids[2]]
    assert [r["set_apart"] for r in metric["rows"]] == [
        None,
        "span 32 MiB, not 1 GiB",
        "span 32 MiB, not 1 GiB",
    ]
    assert metric["rows"][0]["conditions"]["runtime"] == "15 s"
    assert any(w.startswith("measured with different span: ") for w in metric["warnings"])
    assert any(w.startswith("measured with different runtime: ") for w in metric["warnings"])
    assert metric["differing"] == ["span", "runtime"]
    # No drive under review: the span most drives were measured over.
    rows = unreviewed["metrics"][0]["rows"]
    assert [(r["drive_id"], r["set_apart"]) for r in rows] == [
        (ids[0], None),
        (ids[2], None),
        (ids[1], "span 1 GiB, not 32 MiB"),
    ]
    # Side by side: neither better nor worse over another span, and said why.
    read = next(
        m for m in side["metrics"] if m["metric"] == "four-corners:randread-4k-qd3:read_mbps"
    )
    assert read["set_apart"] == "span 1 GiB vs 32 MiB"
    assert read["differing"]["runtime"] == ("15 s", "1 s")
    same = next(m for m in alike["metrics"] if m["metric"] == read["metric"])
    assert same["set_apart"] is None and same["differing"] == {}
    Comparison.model_validate(reviewed)


def test_a_smaller_spread_is_better() -> None:
    assert lower_is_better("consistency:consistency-4k-qd32:iops_stddev_last400", "IOPS")
    assert not lower_is_better("consistency:consistency-4k-qd32:iops_mean_last400", "IOPS")


def test_differences_are_called_only_when_significant(session: Session) -> None:
    """The drive under review against the others: a 3% lead over five runs with 0.3% noise is
    better, a slower latency worse, a 0.1% difference within noise, one run unknown; the cached
    answer says the same as the one computed afresh."""
    bench = Bench(name="bench-sig", host_info={})
    session.add(bench)
    session.flush()
    review, other, single = (add_drive(session, bench, 100 + n) for n in range(3))
    noise = (0.0, -0.4, 0.4, -0.1, 0.1)
    for i, e in enumerate(noise):
        add_run(
            session,
            review,
            {"randread-4k-qd3": 103 + e, "randwrite-4k-qd32": 200 + e, "randwrite-4k-qd3": 45 + e},
            age_s=100 - i,
        )
        add_run(
            session,
            other,
            {
                "randread-4k-qd3": 100 - e,
                "randwrite-4k-qd32": 200.2 - e,
                "randwrite-4k-qd3": 41 - e,
            },
            age_s=100 - i,
        )
    add_run(
        session, single, {"randread-4k-qd3": 90, "randwrite-4k-qd32": 150, "randwrite-4k-qd3": 60}
    )
    session.flush()
    drives = [review.id, other.id, single.id]
    result = compare(session, drives, None, review.id)
    Comparison.model_validate(result)
    by = {m["metric"]: {r["drive_id"]: r for r in m["rows"]} for m in result["metrics"]}
    read = by["four-corners:randread-4k-qd3:read_mbps"]
    assert read[review.id]["versus_review"] is None
    vs = read[other.id]["versus_review"]
    assert vs["verdict"] == "better" and (vs["review_runs"], vs["runs"]) == (5, 5)
    assert vs["low_pct"] < 3.0 < vs["high_pct"] and vs["q"] < 0.05
    assert read[review.id]["runs"]["low"] < 103 < read[review.id]["runs"]["high"]
    lat = by["four-corners:randwrite-4k-qd3:write_lat_p99_us"]
    assert lat[other.id]["versus_review"]["verdict"] == "worse"  # 45 µs against 41: lower wins
    write = by["four-corners:randwrite-4k-qd32:write_mbps"]
    assert write[other.id]["versus_review"]["verdict"] == "within noise"  # -0.1%
    assert read[single.id]["versus_review"]["verdict"] == "1 run: significance unknown"
    assert read[single.id]["versus_review"]["diff_pct"] is None
    # The cached answer, assembled from each drive's parts, is byte for byte the one computed.
    assert compare_json(session, drives, None, review.id) == PLAIN.dump_json(result)
    none = compare(session, drives, None, None)
    assert all(r["versus_review"] is None for m in none["metrics"] for r in m["rows"])
    side = pair(session, other.id, review.id)
    read_pair = next(m for m in side["metrics"] if m["metric"].endswith("read_mbps"))
    assert read_pair["versus"]["verdict"] == "better"  # B (the review drive) over A
    # Of the means of the runs pooled (103 against 100), where diff_pct is of the latest runs.
    assert read_pair["versus"]["diff_pct"] == pytest.approx(3.0)
