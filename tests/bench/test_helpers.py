"""The benchmarks' pure helpers: percentiles, verdicts, formatting, the printed table and the
README section. Cheap: no stack, no fio (the benchmarks themselves run with `make bench`)."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

from tests.bench import readme
from tests.bench.__main__ import ORDER as BENCHMARKS
from tests.bench.bench_fidelity import (
    SETTLED_DIRTY_BYTES,
    TARGET_RANGE,
    dirty_bytes,
    interval_done,
    median_ci,
    settle,
)
from tests.bench.common import Figure, Report, fmt, median, percentile, table


def test_percentile_interpolates_between_closest_ranks() -> None:
    assert percentile([], 95) is None
    assert percentile([3.0], 95) == 3.0
    values = [float(v) for v in range(1, 11)]  # 1..10, unsorted below
    assert percentile(values[::-1], 50) == pytest.approx(5.5)
    assert percentile(values, 95) == pytest.approx(9.55)
    assert percentile(values, 0) == 1.0 and percentile(values, 100) == 10.0
    assert median([0.99, 1.01, 0.97]) == pytest.approx(0.99)


def test_a_figure_is_met_on_the_side_of_its_target() -> None:
    assert Figure("ratio", 0.985, "ratio", 0.98, ">=").met is True
    assert Figure("ratio", 0.975, "ratio", 0.98, ">=").met is False
    assert Figure("p95", 50.0, "ms", 50.0, "<=").met is True
    assert Figure("p95", 50.1, "ms", 50.0, "<=").met is False
    assert Figure("no target", 1.0, "ms").met is None
    assert Figure("not measured", None, "ms", 1.0, "<=").met is None


def test_fmt() -> None:
    assert fmt(None) == "n/a"
    assert fmt(0.98, "ratio") == "0.9800"
    assert fmt(215_345.2, "samples/s") == "215,345 samples/s"
    assert fmt(123.4, "ms") == "123 ms"
    assert fmt(12.34, "ms") == "12.3 ms"
    assert fmt(0.5834, "s") == "0.583 s"
    assert fmt(0.585, "%") == "0.58 %"
    assert fmt(52.0, "nodes") == "52 nodes"


def test_table_prints_each_figure_next_to_its_target() -> None:
    r = Report("reads", "compare")
    r.add(Figure("p95", 61.0, "ms", 50.0, "<=", note="40 requests"), Figure("p50", 20.0, "ms"))
    text = table(r)
    assert "p95" in text and "61 ms" in text and "<= 50 ms" in text and "MISSED" in text
    assert "* p95: 40 requests" in text


def test_median_ci_matches_published_order_statistics() -> None:
    """The 95% interval of a median from order statistics (e.g. Hollander & Wolfe's table):
    [x(1), x(6)] at n = 6 (96.9%), [x(2), x(9)] at n = 10 (97.9%), [x(6), x(15)] at n = 20
    (95.9%); none at n = 5, where even [min, max] covers 93.75%."""
    assert median_ci([1.0, 2.0, 3.0, 4.0, 5.0]) is None
    assert median_ci([6.0, 1.0, 5.0, 2.0, 4.0, 3.0]) == pytest.approx((1.0, 6.0, 0.96875))
    lo, hi, coverage = median_ci([float(v) for v in range(10, 0, -1)]) or (0, 0, 0)
    assert (lo, hi) == (2.0, 9.0) and coverage == pytest.approx(0.9785, abs=1e-4)
    lo, hi, coverage = median_ci([float(v) for v in range(1, 21)]) or (0, 0, 0)
    assert (lo, hi) == (6.0, 15.0) and coverage == pytest.approx(0.9586, abs=1e-4)


def test_median_ci_matches_scipy() -> None:
    """Against scipy.stats.quantile_test's interval for the median, at every n from 6 to 79,
    on ratios drawn around 1.00; and its coverage is the binomial one."""
    np = pytest.importorskip("numpy")
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(7)
    for n in range(6, 80):
        x = rng.lognormal(0.0, 0.05, n)
        ref = stats.quantile_test(x, q=float(np.median(x)), p=0.5).confidence_interval(0.95)
        ci = median_ci([float(v) for v in x])
        assert ci is not None
        lo, hi, coverage = ci
        assert (lo, hi) == pytest.approx((ref.low, ref.high)), n
        k = sorted(x).index(lo) + 1
        assert coverage == pytest.approx(1 - 2 * stats.binom.cdf(k - 1, n, 0.5))
        assert coverage >= 0.95 and 1 - 2 * stats.binom.cdf(k, n, 0.5) < 0.95


def test_pairs_are_added_until_the_interval_is_narrower_than_one_percent() -> None:
    tight = [1.0, 0.995, 1.004, 0.998, 1.002, 1.006, 0.997]
    assert interval_done(tight)
    assert not interval_done(tight[:5])  # no interval yet
    assert not interval_done([1.0, 0.97, 1.03, 0.98, 1.02, 1.01, 0.99])


def test_a_confidence_interval_target_is_met_within_the_range_and_around_one() -> None:
    def fig(lo: float, hi: float) -> Figure:
        return Figure(
            "ratio", 1.0, "ratio", 1.0, "ci within", interval=(lo, hi), target_range=TARGET_RANGE
        )

    assert fig(0.992, 1.006).met is True
    assert fig(0.99, 1.01).met is True
    assert fig(0.985, 1.005).met is False  # wider than the range
    assert fig(0.992, 0.998).met is False  # within the range, but 1.00 outside it
    assert Figure("ratio", 1.0, "ratio", 1.0, "ci within", target_range=TARGET_RANGE).met is None
    r = Report("fidelity", "drivelab vs fio")
    r.add(fig(0.985, 1.005))
    text = table(r)
    assert "1.0000 [0.9850, 1.0050]" in text
    assert "CI within [0.9900, 1.0100], contains 1.0000  MISSED" in text
    row = readme.section({**SUMMARY, "benchmarks": {"fidelity": [fig(0.992, 1.006).as_dict()]}})
    assert (
        "| Fidelity against bare fio | ratio | 1.0000 [0.9920, 1.0060] "
        "| CI within [0.9900, 1.0100], contains 1.0000 | met |"
    ) in row


SUMMARY = {
    "date": "2026-11-21T16:00:00+00:00",
    "minutes": 12.5,
    "machine": {
        "git": "abc1234",
        "cores": 2,
        "cpu": "Some CPU",
        "memory_gib": 7.8,
        "os": "Debian GNU/Linux 12",
        "python": "3.11.7",
        "fio": "fio-3.33",
    },
    "benchmarks": {
        "ingest": [
            Figure("ingest rate", 210_000.0, "samples/s", 200_000, ">=").as_dict(),
            Figure("api CPU per sample", 4.2, "µs", headline=True).as_dict(),
            Figure("a detail", 1.0, "ms").as_dict(),
        ],
        "reads": [Figure("compare p95", 61.0, "ms", 50.0, "<=").as_dict()],
    },
    "load_avg_before": {"ingest": [0.12, 0.3, 0.4], "reads": [0.2, 0.3, 0.4]},
    "failed": [],
}


def test_readme_section_lists_targets_and_headlines_with_the_machine() -> None:
    text = readme.section(json.loads(json.dumps(SUMMARY)))
    assert text.startswith("## Performance\n")
    assert "at commit abc1234 on 2 cores (Some CPU), 7.8 GiB" in text
    assert "| Ingest | ingest rate | 210,000 samples/s | >= 200,000 samples/s | met |" in text
    assert "| Ingest | api CPU per sample | 4.2 µs |  |  |" in text
    assert "a detail" not in text
    assert "| **missed** |" in text
    assert "ingest 0.12, reads 0.20" in text


def test_readme_section_replaces_the_old_one_or_goes_before_layout() -> None:
    new = "## Performance\n\nnew\n"
    fresh = "# x\n\n## Demo\n\ntext\n\n## Layout\n\ntree\n"
    once = readme.replace_section(fresh, new)
    assert once == "# x\n\n## Demo\n\ntext\n\n## Performance\n\nnew\n\n## Layout\n\ntree\n"
    again = readme.replace_section(once, "## Performance\n\nnewer\n")
    assert again.count("## Performance") == 1 and "newer" in again and "\nnew\n" not in again
    assert again.endswith("## Layout\n\ntree\n")
    # A hand-written subsection of the section survives a rewrite of the figures.
    noted = again.replace("## Layout", "### What changed\n\nnotes\n\n## Layout")
    rewritten = readme.replace_section(noted, "## Performance\n\nnewest\n")
    assert "newest" in rewritten and "newer" not in rewritten
    assert rewritten.endswith(
        "## Performance\n\nnewest\n\n### What changed\n\nnotes\n\n## Layout\n\ntree\n"
    )


def test_settle_waits_until_a_write_is_on_disk(tmp_path: Path) -> None:
    """The fidelity benchmark's settle: what a write job left dirty is written back before
    the next run starts, so no run shares the CPUs with the writeback of the one before."""
    meminfo = {
        line.split(":")[0]: int(line.split()[1]) * 1024
        for line in Path("/proc/meminfo").read_text().splitlines()
    }
    before = dirty_bytes()
    assert before >= 0 and before <= meminfo["MemTotal"]
    data = tmp_path / "dirty.bin"
    with open(data, "wb") as f:  # written to the page cache only: no fsync
        f.write(b"\xa5" * (4 * SETTLED_DIRTY_BYTES))
    waited = settle(max_s=60)
    assert waited < 60, "the write was not on disk within a minute"
    assert dirty_bytes() <= SETTLED_DIRTY_BYTES


@pytest.mark.parametrize("name", BENCHMARKS)
def test_every_benchmark_imports(name: str) -> None:
    """`make bench` imports each benchmark when its turn comes: one that names a function the
    code no longer has would fail only there, after the benchmarks before it."""
    module = importlib.import_module(f"tests.bench.bench_{name}")
    assert callable(module.main)
