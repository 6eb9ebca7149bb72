"""GET /api/compare/article's answer (backend.results.article) on a real PostgreSQL: the
headline figures and the reviewed drive's differences, the findings in words from the analyses
stored on the steps (and "not measured" where a plan never ran), the appendix grouped and in
natural order with units scaled; and the units and ordering rules on their own."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from backend.analysis.mixed import summarize
from backend.benches.models import Bench
from backend.core.db import session_factory, utcnow
from backend.core.errors import InvalidParams
from backend.results import article as art
from backend.results import compare as cmp
from backend.results.models import Result
from backend.results.schemas import Article
from backend.runs.models import Run, Step
from tests.backend.results.test_compare import add_drive

FOUR_CORNERS = {
    # step -> [(metric, unit, value of drive 0, value of drive 1)]
    "randread-4k-qd3": [
        ("read_iops", "IOPS", 10_000.0, 20_000.0),
        ("read_lat_p99_us", "µs", 300.0, 150.0),
        ("read_lat_p99_9_us", "µs", 4_278_190.0, 900.0),
        ("read_lat_p99_99_us", "µs", 5_000_000.0, 1_500.0),
        ("read_lat_p99_999_us", "µs", 6_000_000.0, 2_000.0),
        ("read_lat_mean_us", "µs", 100.0, 50.0),
        ("bytes", "bytes", 4.0e9, 1.0e9),
        ("runtime_s", "s", 10.0, 60.0),
    ],
    "randwrite-4k-qd32-incompressible": [("write_iops", "IOPS", 40_000.0, 50_000.0)],
    "seqread-128k-qd1": [("read_mbps", "MB/s", 1000.0, 2000.0)],
}
MIXED = summarize(
    "random",
    [{"write_pct": 0, "read_mbps": 400.0}, {"write_pct": 100, "write_mbps": 200.0}],
)
STEP_DOWNS = [
    {"at_pct": 25.0, "at_gb": 1.0, "from_mbps": 400.0, "to_mbps": 200.0},
    {"at_pct": 80.0, "at_gb": 3.0, "from_mbps": 200.0, "to_mbps": 75.0},
]


def add_run(s: Session, drive_id: int, plan: str, age_s: int = 0) -> Run:
    run = Run(
        plan=plan,
        drive_id=drive_id,
        params={"ioengine": "libaio"},
        status="done",
        environment={"host": {"fio_version": "fio-3.33", "hostname": "bench1"}},
        finished_at=utcnow() - timedelta(seconds=age_s),
    )
    s.add(run)
    s.flush()
    return run


def add_step(
    s: Session, run: Run, idx: int, name: str, analysis: dict[str, Any] | None = None
) -> Step:
    step = Step(
        run_id=run.id, idx=idx, kind="fio", name=name, params={}, status="done", analysis=analysis
    )
    s.add(step)
    s.flush()
    return step


@pytest.fixture(scope="module")
def lab(engine: Engine) -> list[int]:
    """Two drives: both ran four corners; drive 0 also HD Tach (two step-downs) and write
    hitching (stalls); neither ran consistency or the PTS."""
    with session_factory(engine)() as s:
        bench = Bench(name="article-bench", host_info={})
        s.add(bench)
        s.flush()
        drives = [add_drive(s, bench, 700 + n) for n in range(2)]
        drives[1].firmware = None
        for n, d in enumerate(drives):
            run = add_run(s, d.id, "four-corners")
            for i, (name, rows) in enumerate(FOUR_CORNERS.items()):
                step = add_step(s, run, i, name)
                for metric, unit, *values in rows:
                    s.add(Result(run_id=run.id, step_id=step.id, metric=metric,
                                 value=values[n], unit=unit))  # fmt: skip
        run = add_run(s, drives[0].id, "hdtach")
        step = add_step(
            s,
            run,
            0,
            "hdtach-write",
            {"hdtach": {"average_mbps": 180.0}, "direction": "write", "step_downs": STEP_DOWNS},
        )
        s.add(Result(run_id=run.id, step_id=step.id, metric="hdtach_write_avg_mbps",
                     value=180.0, unit="MB/s"))  # fmt: skip
        run = add_run(s, drives[0].id, "write-hitching")
        add_step(
            s,
            run,
            0,
            "hitch-seq-128k-qd32",
            {"stalls": {"count": 3, "longest_s": 1.5, "total_s": 3.2, "period_s": 20.0}},
        )
        run = add_run(s, drives[0].id, "mixed")
        add_step(s, run, 0, "mixed-random-4k-qd4", {"mixed": MIXED})
        s.commit()
        return [d.id for d in drives]


@pytest.fixture(autouse=True)
def empty_caches() -> None:
    cmp._cache.clear()
    cmp._parts.clear()


def test_headline_with_the_reviewed_drives_differences(session: Session, lab: list[int]) -> None:
    a, b = lab
    out = art.article(session, [a, b], under_review=b)
    Article.model_validate(out)  # what the response model documents
    rows = {r["key"]: r for r in out["headline"]}
    # Only figures some drive has: no empty rows (no queue-depth sweep, no consistency run).
    assert "steady" not in rows and "randread-qd1" not in rows
    read = rows["randread"]
    assert read["values"] == {str(a): 10_000.0, str(b): 20_000.0}
    assert read["diff"][str(a)]["pct"] == pytest.approx(100.0)
    # One run each: a twofold lead, but no run-to-run noise to judge it against (issue 28).
    assert read["diff"][str(a)]["verdict"] == "1 run: significance unknown"
    assert read["diff"][str(a)]["low_pct"] is None
    assert read["cells"][str(b)]["best"] and not read["cells"][str(a)]["best"]
    # Lower latency is better; the row shares one unit, scaled to its largest value.
    p999 = rows["p999-qd-low"]
    assert p999["unit"] == "s"
    assert p999["cells"][str(a)]["text"] == "4.28\u00a0s"
    assert p999["cells"][str(b)]["text"] == "0.0009\u00a0s"
    assert p999["diff"][str(a)]["verdict"] == "1 run: significance unknown"
    assert p999["cells"][str(b)]["best"]
    # HD Tach: only drive 0 has one, so no difference (nothing to compare the reviewed with).
    assert rows["hdtach-write"]["values"] == {str(a): 180.0, str(b): None}
    assert rows["hdtach-write"]["diff"] == {}


def test_drives_capacity_and_firmware_one_way(session: Session, lab: list[int]) -> None:
    a, b = lab
    out = art.article(session, [a, b], under_review=None)
    drives = {d["id"]: d for d in out["drives"]}
    assert drives[a]["capacity"] == "1 TB" and drives[a]["capacity_gb"] == 1000.0
    assert drives[a]["name"] == "drivelab Simulated 700 1 TB"  # no serial
    assert drives[a]["firmware"] == "sim"
    assert drives[b]["firmware"] == "firmware not reported"
    assert drives[a]["price"] is None and drives[a]["price_text"] == "no price"
    # No drive under review: no differences.
    assert all(r["diff"] == {} for r in out["headline"])


def test_findings_in_words_and_what_was_not_measured(session: Session, lab: list[int]) -> None:
    a, b = lab
    out = art.article(session, [a, b], under_review=a)
    found = {f["drive_id"]: f["findings"] for f in out["findings"]}
    words = {f["topic"]: f["text"] for f in found[a]}
    assert words["hdtach"] == (
        "Write speed steps down at 25% of the span, from 400 to 200 MB/s; again at 80%, "
        "to 75.0 MB/s."
    )
    assert words["stalls"] == (
        "Sequential writes stall 3 times, for up to 1.5 s, about every 20.0 s."
    )
    assert "not measured" in words["consistency"]
    assert "not measured" in words["steady-state"]
    other = {f["topic"]: f["text"] for f in found[b]}
    assert "not measured" in other["hdtach"] and "not measured" in other["stalls"]
    # The mixed curve in its own words where the drive ran the plan, nothing where it did not.
    assert words["mixed"] == MIXED["note"]
    assert words["mixed"].startswith("4K random QD4: 300 MB/s on average over 2 shares")
    assert "mixed" not in other


def test_appendix_grouped_natural_order_only_performance_bold(
    session: Session, lab: list[int]
) -> None:
    a, b = lab
    out = art.article(session, [a, b], under_review=a)
    groups = {(g["plan"], g["test"]): g for g in out["appendix"]}
    read = groups["Four corners", "4K random read QD3"]
    labels = [r["label"] for r in read["rows"]]
    # Headline figures are not repeated; percentiles by value, not as strings.
    assert "IOPS" not in labels
    lat = [x for x in labels if "percentile" in x]
    assert lat == [
        "99th percentile latency",
        "99.999th percentile latency",
    ]  # p99.9 and p99.99 are headline figures
    assert labels.index("mean latency") < labels.index("99th percentile latency")
    by = {r["label"]: r for r in read["rows"]}
    # bytes moved and runtime: scaled, never bold
    assert by["bytes moved"]["unit"] == "GB"
    assert by["bytes moved"]["cells"][str(a)]["text"] == "4.00\u00a0GB"
    assert not any(c["best"] for c in by["bytes moved"]["cells"].values())
    assert not any(c["best"] for c in by["runtime"]["cells"].values())
    assert by["mean latency"]["cells"][str(b)]["best"]


def test_under_review_must_be_one_of_the_drives(session: Session, lab: list[int]) -> None:
    with pytest.raises(InvalidParams, match="not among the drives"):
        art.article(session, lab, under_review=10**6)


@pytest.mark.parametrize(
    ("values", "unit", "expected"),
    [
        ([72.0, 150.0], "µs", ("µs", 1.0)),
        ([72.0, 4_278_190.0], "µs", ("s", 1e6)),
        ([1500.0, 20.0], "µs", ("ms", 1e3)),
        ([0.5], "s", ("ms", 1e-3)),
        ([4.0e9, 1.0e6], "bytes", ("GB", 1e9)),
        ([300.0], "bytes", ("bytes", 1.0)),
        ([1.0e4], "IOPS", ("IOPS", 1.0)),
        ([None, None], "µs", ("µs", 1.0)),
    ],
    ids=["us", "s", "ms", "s-to-ms", "gb", "bytes", "iops", "empty"],
)
def test_scale(values: list[float | None], unit: str, expected: tuple[str, float]) -> None:
    name, div = art.scale(values, unit)
    assert name == expected[0]
    assert div == pytest.approx(expected[1])


def test_natural_order() -> None:
    measures = [
        "99.999th percentile latency",
        "99.99th percentile latency",
        "99th percentile latency",
        "99.9th percentile latency",
        "maximum latency",
        "IOPS",
        "mean latency",
        "MB/s",
    ]
    assert sorted(measures, key=art.measure_key) == [
        "MB/s",
        "IOPS",
        "mean latency",
        "99th percentile latency",
        "99.9th percentile latency",
        "99.99th percentile latency",
        "99.999th percentile latency",
        "maximum latency",
    ]
    tests = ["4K random write QD32", "128K sequential read QD1", "4K random write QD3"]
    assert sorted(tests, key=art.natural_key) == [
        "4K random write QD3",
        "4K random write QD32",
        "128K sequential read QD1",
    ]


def test_numbers_keep_their_unit_on_one_line() -> None:
    assert art.shown(72.0, "µs") == "72.0\u00a0µs"
    assert art.number(12345.4) == "12,345"
    assert art.number(None) == "—"
    assert art.shown(2.0, "stalls") == "2\u00a0stalls"  # counts are whole


@pytest.mark.parametrize(
    ("nbytes", "text"),
    [
        (256 * 1024**2, "0.268 GB"),
        (1024**3, "1.07 GB"),
        (16 * 1024**3, "17.18 GB"),
        (500_107_862_016, "500 GB"),
        (1_000_204_886_016, "1 TB"),
        (1_920_383_410_176, "1.92 TB"),
        (15_360_950_534_144, "15.36 TB"),
    ],
    ids=["256MiB", "1GiB", "16GiB", "500GB", "1TB", "1.92TB", "15.36TB"],
)
def test_capacity_one_way(nbytes: int, text: str) -> None:
    """The same rule as the frontend's formatCapacity (format-utils.test.ts has these)."""
    from backend.drives.service import capacity_label

    assert capacity_label(nbytes) == text


def test_slc_cache_and_thermal_runs_in_words(session: Session, engine: Engine) -> None:
    """A drive that ran the SLC cache and thermal plans gets their findings in words; a drive
    that did not gets no line about them (optional plans are not "not measured")."""
    bench = Bench(name="article-slc-thermal", host_info={})
    session.add(bench)
    session.flush()
    drive, other = add_drive(session, bench, 790), add_drive(session, bench, 791)
    run = add_run(session, drive.id, "slc-cache")
    heat = {"heat": "not thermal", "words": "41 °C, below WCTEMP 70 °C"}
    fill = {"kind": "fill", "cache_gb": 12.34, "cache_mbps": 3100.0, "after_mbps": 900.0,
            "resolution_gb": 0.2}  # fmt: skip
    down = {"at_pct": 12.0, "at_gb": 12.34, "from_mbps": 3100.0, "to_mbps": 900.0, "heat": heat}
    add_step(session, run, 0, "slc-fill", {"slc": fill, "step_downs": [down]})
    refills = [
        {"kind": "refill", "idle_s": 10, "idle_measured_s": 11.2, "recovered_gb": 0.0,
         "resolution_gb": 0.05, "at_least": False},
        {"kind": "refill", "idle_s": 15, "idle_measured_s": 16.1, "recovered_gb": 5.2,
         "resolution_gb": 0.05, "at_least": False},
        {"kind": "refill", "idle_s": 25, "idle_measured_s": None, "recovered_gb": 25.0,
         "resolution_gb": 0.05, "at_least": True},
    ]  # fmt: skip
    for i, r in enumerate(refills, start=1):
        add_step(session, run, i, f"slc-refill-after-{r['idle_s']}s", {"slc": r, "step_downs": []})
    run = add_run(session, drive.id, "thermal")
    throttle = {"at_s": 94.2, "from_mbps": 6800.0, "to_mbps": 2100.0, "temp_c": 78.4}
    add_step(session, run, 0, "thermal-heat-1", {"thermal": {
        "kind": "heat", "direction": "write", "first_throttle": throttle, "peak_c": 82.1,
        "mean_mbps": 3000.0, "duration_s": 300.0}})  # fmt: skip
    add_step(session, run, 1, "thermal-cool-1", {"thermal": {
        "kind": "cool", "target_c": 45.0, "within_c": 5.0, "recovered": True, "recover_s": 40.0,
        "duration_s": 120.0}})  # fmt: skip
    add_step(session, run, 2, "thermal-heat-2", {"thermal": {
        "kind": "heat", "direction": "write", "first_throttle": None, "peak_c": 66.0,
        "mean_mbps": 2500.0, "duration_s": 60.0}})  # fmt: skip
    session.flush()
    out = art.article(session, [drive.id, other.id], under_review=None)
    Article.model_validate(out)  # the topics are ones the response model documents
    found = {f["drive_id"]: f["findings"] for f in out["findings"]}
    words = [(f["topic"], f["text"]) for f in found[drive.id]]
    slc = [t for k, t in words if k == "slc-cache"]
    assert slc == [
        "SLC cache: 12.3 GB written at 3,100 MB/s before writes fall to 900 MB/s (not heat: 41 °C, "
        "below WCTEMP 70 °C); recovered after 11.2 s idle: none (under 0.05 GB), "
        "after 16.1 s idle: 5.2 GB, after 25.0 s idle: at least 25 GB (the whole refill)."
    ]
    thermal = [t for k, t in words if k == "thermal"]
    assert thermal == [
        "Sustained writes throttle after 94.2 s at 78 °C, from 6,800 to 2,100 MB/s; peak 82 °C; "
        "back within 5 °C of the start in 40.0 s.",
        "Sustained writes hold 2,500 MB/s for 60.0 s with no throttle; peak 66 °C.",
    ]
    assert not {f["topic"] for f in found[other.id]} & {"slc-cache", "thermal"}


def test_a_file_copy_is_said_where_it_was_run(session: Session, lab: list[int]) -> None:
    a, b = lab
    words = [
        "the first copy did not stand still (480 MB/s on average)",
        "the repeated copy stood still 4 times for 12.0 s in all, the longest 4.0 s (210 MB/s on "
        "average) after 10.7 GB were deleted",
        "after the deletions the copy stood still 12.0 s, against 0.0 s before them",
    ]
    run = add_run(session, a, "file-copy")
    add_step(session, run, 0, "file-copy", {"file_copy": {"words": words}})
    session.flush()
    out = art.article(session, [a, b], under_review=a)
    found = {f["drive_id"]: f["findings"] for f in out["findings"]}
    said = [f["text"] for f in found[a] if f["topic"] == "file-copy"]
    assert said == [f"File copy: {words[0]}; {words[1]}."]
    # A drive without one is not told it lacks one: few reviews run it.
    assert not [f for f in found[b] if f["topic"] == "file-copy"]
    Article.model_validate(out)


def test_the_as_ssd_table_is_a_finding_in_words_where_a_drive_ran_it(session: Session) -> None:
    """An as-ssd-style run's score step says the table and the score's source; a drive that
    never ran it has no such line (a preset few reviews run: no "not measured")."""
    bench = Bench(name="article-asssd-bench", host_info={})
    session.add(bench)
    session.flush()
    ran, other = add_drive(session, bench, 792), add_drive(session, bench, 793)
    run = add_run(session, ran.id, "as-ssd-style")
    words = "Seq 50.00 / 30.00 MB/s · Acc.time 0.496 / 0.115 ms · score: read 74 (read / write)"
    add_step(session, run, 0, "asssd-score", {
        "asssd": {"tests": [], "words": words, "score_source": "weights as published by X"},
    })  # fmt: skip
    session.flush()
    out = art.article(session, [ran.id, other.id], under_review=ran.id)
    Article.model_validate(out)
    found = {f["drive_id"]: {x["topic"]: x["text"] for x in f["findings"]} for f in out["findings"]}
    assert found[ran.id]["as-ssd"] == (
        f"AS-SSD-style: {words}; the score's weights as published by X."
    )
    assert "as-ssd" not in found[other.id]


def test_every_topic_the_findings_say_is_one_the_answer_documents() -> None:
    """Each plan's words in the Report carry a topic; one missing from the response model
    would fail every article of a drive that ran the plan (a 500 instead of the Report)."""
    import re
    import typing
    from pathlib import Path

    from backend.results.schemas import ArticleFinding

    source = Path(art.__file__).read_text()
    said = set(re.findall(r'"topic": "([a-z0-9-]+)"', source))
    documented = set(typing.get_args(ArticleFinding.model_fields["topic"].annotation))
    assert said and said <= documented, sorted(said - documented)
