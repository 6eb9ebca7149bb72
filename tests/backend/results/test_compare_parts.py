"""GET /api/compare's cache of each drive's part of an answer (compare_json, compare_parts) on a
real PostgreSQL: after each kind of change, only the drives that changed are computed again,
and the answer is byte for byte the one compare() computes without any cache, and the one
compare_json computes with both caches empty."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import delete, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from backend.benches.models import Bench
from backend.core.db import session_factory, utcnow
from backend.drives.models import DriveModel, DriveSample
from backend.results import compare as cmp
from backend.results import compare_parts as parts
from backend.results.models import Result
from backend.runs.models import Run, Step
from tests.backend.results.test_compare import add_drive, add_run

READ = "four-corners:randread-4k-qd3:read_mbps"


def values(n: float) -> dict[str, float]:
    return {"randread-4k-qd3": 100 + n, "randwrite-4k-qd32": 200 - n, "randwrite-4k-qd3": 50.0}


@pytest.fixture(scope="module")
def lab(engine: Engine) -> list[int]:
    """Four drives: two runs each (finished out of the drives' order), equal values between
    drives (ties keep the order the drives are met in), one drive with no run."""
    with session_factory(engine)() as s:
        bench = Bench(name="parts-bench", host_info={})
        s.add(bench)
        s.flush()
        drives = [add_drive(s, bench, 300 + n) for n in range(4)]
        for n, d in enumerate(drives[:3]):
            add_run(s, d, values(n % 2), age_s=1000 - n)
            add_run(s, d, values(n % 2 + 0.5), age_s=500 + n)
        s.commit()
        return [d.id for d in drives]


@pytest.fixture(autouse=True)
def empty_caches() -> None:
    """Each test starts with nothing cached: what another test's rolled-back changes left
    there would be found again when a test makes the same change (rightly)."""
    cmp._cache.clear()
    cmp._parts.clear()


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The drives whose part compare_json computes, in order."""
    drives: list[int] = []
    build = parts.build

    def spy(drive_id: int, *args: Any) -> parts.Part:
        drives.append(drive_id)
        return build(drive_id, *args)

    monkeypatch.setattr(parts, "build", spy)
    return drives


def uncached(s: Session, drives: list[int], *args: Any, **kw: Any) -> bytes:
    return cmp._PLAIN.dump_json(cmp.compare(s, drives, *args, **kw))


def cold(s: Session, drives: list[int], *args: Any, **kw: Any) -> bytes:
    """compare_json with both of its caches empty (and left as they were)."""
    saved = (cmp._cache.copy(), cmp._parts.copy())
    cmp._cache.clear()
    cmp._parts.clear()
    try:
        return cmp.compare_json(s, drives, *args, **kw)
    finally:
        cmp._cache.clear()
        cmp._cache.update(saved[0])
        cmp._parts.clear()
        cmp._parts.update(saved[1])


def same(
    s: Session,
    drives: list[int],
    metrics: list[str] | None = None,
    under_review: int | None = None,
    aggregate: str = "latest",
    **kw: Any,
) -> dict[str, Any]:
    """compare_json's answer now, checked against compare() and against empty caches."""
    args = (metrics, under_review, aggregate)
    body = cmp.compare_json(s, drives, *args, **kw)
    assert body == uncached(s, drives, *args, **kw)
    assert body == cold(s, drives, *args, **kw)
    result: dict[str, Any] = json.loads(body)
    return result


def read_row(result: dict[str, Any], drive_id: int) -> dict[str, Any]:
    metric = next(m for m in result["metrics"] if m["metric"] == READ)
    return next(r for r in metric["rows"] if r["drive_id"] == drive_id)


def model_of(s: Session, drive_id: int) -> DriveModel:
    drive = s.get(DriveSample, drive_id)
    assert drive is not None
    model = s.get(DriveModel, drive.model_id)
    assert model is not None
    return model


def latest_run(s: Session, drive_id: int) -> Run:
    return s.scalars(
        select(Run).where(Run.drive_id == drive_id).order_by(Run.finished_at.desc())
    ).first()  # type: ignore[return-value]


# Each kind of change: it changes drive `lab[1]` (or, for "another drive", lab[2]), and the
# next answer shows it. It returns the index in lab of the drive it changed.
def run_finishes(s: Session, lab: list[int]) -> int:
    drive = s.get(DriveSample, lab[1])
    assert drive is not None
    run = add_run(s, drive, values(7))
    run.status = "running"
    run.finished_at = None
    s.flush()
    run.status = "done"
    run.finished_at = utcnow()
    s.flush()
    return 1


def result_corrected(s: Session, lab: list[int]) -> int:
    run = latest_run(s, lab[1])
    s.execute(
        update(Result).where(Result.run_id == run.id, Result.metric == "read_mbps").values(value=9)
    )
    return 1


def result_deleted(s: Session, lab: list[int]) -> int:
    run = latest_run(s, lab[1])
    s.execute(delete(Result).where(Result.run_id == run.id, Result.metric == "read_mbps"))
    return 1


def run_deleted(s: Session, lab: list[int]) -> int:
    s.delete(latest_run(s, lab[1]))
    s.flush()
    return 1


def run_no_longer_done(s: Session, lab: list[int]) -> int:
    latest_run(s, lab[1]).status = "failed"
    s.flush()
    return 1


def step_renamed(s: Session, lab: list[int]) -> int:
    run = latest_run(s, lab[1])
    s.execute(
        update(Step)
        .where(Step.run_id == run.id, Step.name == "randread-4k-qd3")
        .values(name="randread-4k-qd3-renamed")
    )
    return 1


def drive_renamed(s: Session, lab: list[int]) -> int:
    drive = s.get(DriveSample, lab[1])
    assert drive is not None
    drive.serial = 'SIM-"renamed", \\ ü'
    s.flush()
    return 1


def model_renamed(s: Session, lab: list[int]) -> int:
    model = model_of(s, lab[1])
    model.model = "Simulated renamed"
    s.flush()
    return 1


def drive_embargoed(s: Session, lab: list[int]) -> int:
    model = model_of(s, lab[1])
    model.embargo_until = utcnow() + timedelta(days=1)
    s.flush()
    return 1


def drive_made_real(s: Session, lab: list[int]) -> int:
    model = model_of(s, lab[1])
    model.simulated = False
    s.flush()
    return 1


def drive_firmware_changed(s: Session, lab: list[int]) -> int:
    """The firmware registered with the drive: what its runs report none of."""
    drive = s.get(DriveSample, lab[1])
    assert drive is not None
    drive.firmware = "2B6Q"
    s.flush()
    return 1


def run_firmware_changed(s: Session, lab: list[int]) -> int:
    """The firmware the drive reported when its latest run started."""
    run = latest_run(s, lab[1])
    run.environment = {**run.environment, "drive": {"firmware": 'fw,"3"'}}
    s.flush()
    return 1


def run_conditions_changed(s: Session, lab: list[int]) -> int:
    run = latest_run(s, lab[1])
    run.environment = {
        **run.environment,
        "host": {"fio_version": "fio-3.38", "hostname": "bench2"},
        "resumes": 1,
    }
    run.params = {**run.params, "prewrite": True, "ioengine": "io_uring"}
    s.flush()
    return 1


def run_variant_changed(s: Session, lab: list[int]) -> int:
    """Its latest run had 25% over-provisioning: other metrics."""
    run = latest_run(s, lab[1])
    run.params = {**run.params, "op_percent": 25}
    s.flush()
    return 1


def drive_short_name_set(s: Session, lab: list[int]) -> int:
    drive = s.get(DriveSample, lab[1])
    assert drive is not None
    drive.short_name = 'Sim "one"'
    s.flush()
    return 1


def run_finish_time_changed(s: Session, lab: list[int]) -> int:
    """Its first run now finished after every other: the drives' order and the latest value
    change."""
    first = s.scalars(select(Run).where(Run.drive_id == lab[1]).order_by(Run.finished_at)).first()
    assert first is not None
    first.finished_at = utcnow()
    s.flush()
    return 1


def another_drive_changes(s: Session, lab: list[int]) -> int:
    run = latest_run(s, lab[2])
    s.execute(update(Result).where(Result.run_id == run.id).values(value=123.5))
    return 2


CHANGES: list[Callable[[Session, list[int]], int]] = [
    run_finishes,
    result_corrected,
    result_deleted,
    run_deleted,
    run_no_longer_done,
    step_renamed,
    drive_renamed,
    model_renamed,
    drive_embargoed,
    drive_made_real,
    drive_firmware_changed,
    run_firmware_changed,
    run_conditions_changed,
    run_variant_changed,
    drive_short_name_set,
    run_finish_time_changed,
    another_drive_changes,
]


@pytest.mark.parametrize("aggregate", ["latest", "mean"])
@pytest.mark.parametrize("change", CHANGES, ids=lambda f: f.__name__)
def test_a_change_recomputes_its_drive_only(
    session: Session,
    lab: list[int],
    built: list[int],
    change: Callable[[Session, list[int]], int],
    aggregate: str,
) -> None:
    before = same(session, lab, None, lab[0], aggregate)
    built.clear()
    changed = lab[change(session, lab)]
    after = same(session, lab, None, lab[0], aggregate)
    assert after != before
    # compare_json computed the changed drive's part, and took the others' from the cache
    # (then cold() computed them all: lab[3] has no finished run, so no part).
    assert built[0] == changed
    assert sorted(built[1:]) == sorted(lab[:3])


def test_a_change_to_one_plans_run_recomputes_that_plan_only(
    session: Session, lab: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A metric is one plan's: a drive's part of each plan is computed from its runs of that
    plan alone, and a change to one of them computes that part again, not the drive's
    others, and that plan's section of the answer, not the other plans'."""
    drive = session.get(DriveSample, lab[1])
    assert drive is not None
    other = add_run(session, drive, values(4), plan="transfer-size", age_s=50)
    session.flush()
    computed: list[tuple[int, str]] = []
    build = parts.build

    def spy(drive_id: int, *args: Any) -> parts.Part:
        part = build(drive_id, *args)
        assert {mid.partition(":")[0] for mid in part.metrics} == {part.plan}
        computed.append((drive_id, part.plan))
        return part

    sections: list[str] = []
    section = cmp._section

    def section_spy(names: Any, found: list[parts.Part], *args: Any) -> Any:
        sections.append(found[0].plan)
        return section(names, found, *args)

    monkeypatch.setattr(parts, "build", spy)
    monkeypatch.setattr(cmp, "_section", section_spy)
    before = same(session, lab)
    assert (lab[1], "transfer-size") in computed and (lab[1], "four-corners") in computed
    computed.clear()
    sections.clear()
    session.execute(update(Result).where(Result.run_id == other.id).values(value=77.0))
    after = cmp.compare_json(session, lab, None, None)
    assert computed == [(lab[1], "transfer-size")]
    assert sections == ["transfer-size"]  # the four-corners section taken from the cache
    assert after == uncached(session, lab, None, None) and json.loads(after) != before
    computed.clear()
    four_corners = session.scalars(
        select(Run.id).where(Run.drive_id == lab[1], Run.plan == "four-corners")
    ).first()
    session.execute(update(Result).where(Result.run_id == four_corners).values(value=78.0))
    assert cmp.compare_json(session, lab, None, None) == uncached(session, lab, None, None)
    assert computed == [(lab[1], "four-corners")]


def test_minus_zero_is_another_value(session: Session, lab: list[int], built: list[int]) -> None:
    """-0.0 equals 0.0 but is written -0.0: another answer, another digest."""
    run = latest_run(session, lab[1])
    session.execute(update(Result).where(Result.run_id == run.id).values(value=0.0))
    zero = same(session, lab)
    built.clear()
    session.execute(update(Result).where(Result.run_id == run.id).values(value=-0.0))
    assert json.loads(cmp.compare_json(session, lab, None, None)) == zero
    assert built == [lab[1]]
    assert b'"value":-0.0' in cmp.compare_json(session, lab, None, None)
    same(session, lab)


def test_the_answer_shows_each_change(session: Session, lab: list[int]) -> None:
    """What the parametrised test checks is equal is also what changed (a sample of it)."""
    run_finishes(session, lab)
    assert read_row(same(session, lab), lab[1])["value"] == 107
    result_corrected(session, lab)
    assert read_row(same(session, lab), lab[1])["value"] == 9
    drive_renamed(session, lab)
    assert 'SIM-"renamed", \\ ü' in read_row(same(session, lab), lab[1])["label"]
    run_firmware_changed(session, lab)
    assert read_row(same(session, lab), lab[1])["firmware"] == 'fw,"3"'
    run_conditions_changed(session, lab)
    warnings = next(m for m in same(session, lab)["metrics"] if m["metric"] == READ)["warnings"]
    assert any("fio-3.38" in w for w in warnings), warnings
    drive_embargoed(session, lab)
    assert read_row(same(session, lab), lab[1])["embargoed"] is True
    with pytest.raises(Exception, match="no drive with id"):
        cmp.compare_json(session, lab, None, None, hide_embargoed=True)


def test_a_run_that_is_not_finished_changes_nothing(
    session: Session, lab: list[int], built: list[int]
) -> None:
    before = same(session, lab)
    built.clear()
    drive = session.get(DriveSample, lab[1])
    assert drive is not None
    run = add_run(session, drive, values(9))
    run.status = "running"
    run.finished_at = None
    session.flush()
    assert cmp.compare_json(session, lab, None, lab[3]) == uncached(session, lab, None, lab[3])
    assert built == []  # another drive under review: the answer assembled from cached parts
    assert json.loads(cmp.compare_json(session, lab, None, None)) == before


@pytest.mark.parametrize(
    "request_",
    [
        {"under_review": None},
        {"under_review": 0},  # the drive's index in lab, turned into its id below
        {"aggregate": "mean", "under_review": 2},
        {"metrics": [READ, "four-corners:randwrite-4k-qd3:write_lat_p99_us", "no:such:metric"]},
        {"metrics": ["no:such:metric"], "aggregate": "mean"},
        {"drives": [3, 1, 1, 0]},  # another order, one twice, and a drive with no run
        {"drives": [3]},
    ],
)
def test_every_request_is_answered_as_compare_does(
    session: Session, lab: list[int], request_: dict[str, Any]
) -> None:
    drives = [lab[i] for i in request_.get("drives", range(len(lab)))]
    review = request_.get("under_review")
    args = (request_.get("metrics"), None if review is None else lab[review])
    kw = {"aggregate": request_.get("aggregate", "latest")}
    same(session, drives, *args, **kw)  # the first time: parts computed
    same(session, drives, *args, **kw)  # again: the sections cached
    cmp._cache.clear()
    same(session, drives, *args, **kw)  # from the cached parts


def test_values_that_are_not_plain_numbers(session: Session, lab: list[int]) -> None:
    """NaN (JSON null, left out of the variation), infinity, huge, tiny and negative zero
    values, a run without a finish time, and units that need escaping."""
    run = latest_run(session, lab[0])
    results = session.scalars(select(Result).where(Result.run_id == run.id)).all()
    for result, value in zip(results, [float("nan"), float("inf"), -0.0], strict=True):
        result.value = value
    results[0].unit = 'MB/s "µ"\n'
    other = latest_run(session, lab[2])
    session.execute(update(Result).where(Result.run_id == other.id).values(value=1e-300))
    first = session.scalars(select(Run).where(Run.drive_id == lab[1])).first()
    assert first is not None
    first.finished_at = None
    session.flush()
    same(session, lab)
    same(session, lab, None, lab[1], "mean")


def test_results_that_change_during_a_comparison_are_not_cached(
    session: Session, lab: list[int], built: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The results are read by a later statement than the runs the keys are made of: when a
    run has other results by then, the parts computed from them are not kept, nor is the
    answer; a run that finished meanwhile is left for the next answer."""
    # (The first statement after the runs' is the one reading their digests.)
    read = cmp.digests.read
    run = latest_run(session, lab[1])
    drive = session.get(DriveSample, lab[2])
    assert drive is not None

    def meanwhile(s: Session, runs: list[Any]) -> Any:
        s.execute(delete(Result).where(Result.run_id == run.id, Result.metric == "read_mbps"))
        add_run(s, drive, values(11))
        s.flush()
        return read(s, runs)

    monkeypatch.setattr(cmp.digests, "read", meanwhile)
    racing = json.loads(cmp.compare_json(session, lab, None, None))
    monkeypatch.setattr(cmp.digests, "read", read)
    assert len(cmp._parts) == 0 and len(cmp._cache) == 0
    assert read_row(racing, lab[2])["runs"]["count"] == 2  # the new run is not in it
    built.clear()
    after = same(session, lab)
    assert sorted(built[:3]) == sorted(lab[:3])  # computed again (lab[3] has no run)
    assert read_row(after, lab[2])["runs"]["count"] == 3
    assert read_row(after, lab[1])["runs"]["count"] == 1


def test_the_caches_are_bounded(
    session: Session, lab: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cmp, "PART_CACHE_SIZE", 3)
    monkeypatch.setattr(cmp, "CACHE_SIZE", 2)
    for n in range(6):
        another_drive_changes(session, lab)
        session.execute(
            update(Result)
            .where(Result.run_id == latest_run(session, lab[0]).id)
            .values(value=float(n))
        )
        same(session, lab, None, lab[n % 4])
        assert len(cmp._parts) <= 3 and len(cmp._cache) <= 2


def test_threads_share_the_caches(engine: Engine, lab: list[int]) -> None:
    """Requests served at once from the api's thread pool: each gets the answer compare()
    gives, and the caches stay within bounds."""
    factory = session_factory(engine)
    with factory() as s:
        expected = {n: uncached(s, lab, None, n) for n in [None, *lab]}
    start = threading.Barrier(8)

    def ask(n: int) -> list[bool]:
        start.wait()
        with factory() as s:
            review = [None, *lab][n % 5]
            return [cmp.compare_json(s, lab, None, review) == expected[review] for _ in range(20)]

    with ThreadPoolExecutor(8) as pool:
        answers = [ok for oks in pool.map(ask, range(8)) for ok in oks]
    assert all(answers) and len(answers) == 160
    assert len(cmp._parts) <= cmp.PART_CACHE_SIZE and len(cmp._cache) <= cmp.CACHE_SIZE


def test_a_rows_head_is_the_start_of_its_json() -> None:
    head = parts.head(7, 'a "label", µ\\', None, True, False)
    row = head + b"true" + b"}"
    assert json.loads(row) == {
        "drive_id": 7,
        "label": 'a "label", µ\\',
        "short_name": None,
        "simulated": True,
        "embargoed": False,
        "under_review": True,
    }


def test_parts_of_a_drive_model_shared_by_two_drives(session: Session, lab: list[int]) -> None:
    """Two samples of one model: the firmware warning names the model once, from both
    drives' runs (warnings are worked out per answer, never kept in a part)."""
    a = session.get(DriveSample, lab[0])
    b = session.get(DriveSample, lab[3])
    assert a is not None and b is not None
    b.model_id = a.model_id
    session.flush()
    run = add_run(session, b, values(3))
    run.environment = {**run.environment, "drive": {"firmware": "NEWFW"}}
    session.flush()
    result = same(session, [lab[0], lab[3]])
    warnings = next(m for m in result["metrics"] if m["metric"] == READ)["warnings"]
    assert any("different firmware" in w and "NEWFW" in w for w in warnings), warnings
