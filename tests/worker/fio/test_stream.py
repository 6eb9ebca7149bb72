"""The fio stream parser against recorded fio 3.33 outputs (tests/fixtures/fio-3.33)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from backend.analysis.fio_results import direction_summary
from worker.fio.stream import (
    JsonStreamDecoder,
    SampleStream,
    percentile_from_bins,
    progress_of,
    samples_from_text,
    sum_samples,
    totals,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "fio-3.33"
RECORDINGS = ["randread-4k-qd3.json", "seqwrite-128k-qd1.json", "late-snapshot.json"]


def load(name: str) -> str:
    return (FIXTURES / name).read_text()


@pytest.mark.parametrize("name", RECORDINGS)
def test_documents_split_whatever_the_chunking(name: str) -> None:
    text = load(name)
    whole = JsonStreamDecoder().feed(text)
    assert len(whole) >= 4
    for chunk_size in (1, 7, 4096):
        dec = JsonStreamDecoder()
        docs = []
        for i in range(0, len(text), chunk_size):
            docs.extend(dec.feed(text[i : i + chunk_size]))
        assert [d.data["timestamp_ms"] for d in docs] == [d.data["timestamp_ms"] for d in whole]
        assert dec.pending() == ""
    # The last document's text is fio's final JSON, verbatim.
    assert json.loads(whole[-1].text) == whole[-1].data
    assert whole[-1].text in text


def test_noise_between_documents_is_skipped() -> None:
    text = load("randread-4k-qd3.json")
    docs = JsonStreamDecoder().feed(
        "fio: some notice\n" + text.replace("\n}\n{", "\n}\nnote\n{", 1)
    )
    assert len(docs) == len(JsonStreamDecoder().feed(text))


@pytest.mark.parametrize("name", RECORDINGS)
def test_samples_add_up_to_fio_totals(name: str) -> None:
    samples, docs = samples_from_text(load(name))
    final = docs[-1].data
    assert sum_samples(samples) == totals(final)
    # One sample per snapshot, in time order, covering the job from its start.
    assert len(samples) == len(docs)
    assert all(b.t_ms > a.t_ms for a, b in zip(samples, samples[1:], strict=False))
    assert samples[0].t_ms == samples[0].dt_ms
    assert samples[-1].t_ms == sum(s.dt_ms for s in samples)


def test_rates_match_fio_average() -> None:
    samples, docs = samples_from_text(load("randread-4k-qd3.json"))
    fio = direction_summary(docs[-1].data, "read")
    assert fio is not None
    full = [s for s in samples if s.dt_ms >= 900]
    mean_mbps = sum(s.rate("read")[0] * s.dt_ms for s in full) / sum(s.dt_ms for s in full)
    assert mean_mbps == pytest.approx(fio["mbps"], rel=0.05)
    assert all(s.write_bytes == 0 and s.write_lat_mean_us is None for s in samples)
    assert all(
        s.read_lat_p99_us is not None and s.read_lat_p99_us >= s.read_lat_mean_us * 0.5
        for s in samples
    )


def test_late_snapshot_is_one_long_interval_not_missing_data() -> None:
    samples, docs = samples_from_text(load("late-snapshot.json"))
    gaps = [s.dt_ms for s in samples]
    # fio's clock of the counters (job_runtime) went from 1894 to 4545 ms.
    assert max(gaps) == 4545 - 1894
    late = samples[gaps.index(4545 - 1894)]
    # Only fio's reporting process was frozen; the job kept doing I/O. The late snapshot must
    # give one 2.65 s interval at the job's normal rate: no interval lost, nothing counted twice.
    normal = [s.rate("read")[0] for s in samples if 900 <= s.dt_ms <= 1100]
    assert min(normal) * 0.8 < late.rate("read")[0] < max(normal) * 1.25
    assert late.read_bytes > 2 * min(s.read_bytes for s in samples if 900 <= s.dt_ms <= 1100)
    assert sum_samples(samples) == totals(docs[-1].data)


def test_interval_latency_comes_from_histogram_difference() -> None:
    first = {
        "timestamp_ms": 2000,
        "jobs": [
            {
                "job_runtime": 1000,
                "read": {
                    "io_bytes": 4096 * 100,
                    "total_ios": 100,
                    "clat_ns": {"N": 100, "mean": 1000.0, "bins": {"1000": 100}},
                },
            }
        ],
    }
    second = {
        "timestamp_ms": 3000,
        "jobs": [
            {
                "job_runtime": 2000,
                "read": {
                    "io_bytes": 4096 * 200,
                    "total_ios": 200,
                    "clat_ns": {"N": 200, "mean": 5500.0, "bins": {"1000": 100, "10000": 100}},
                },
            }
        ],
    }
    stream = SampleStream()
    a = stream.update(first)
    b = stream.update(second)
    assert a is not None and b is not None
    assert (a.t_ms, a.dt_ms, a.read_ios) == (1000, 1000, 100)
    assert a.read_lat_mean_us == pytest.approx(1.0)
    # Second interval: only 10 µs completions, whatever the cumulative mean says.
    assert b.read_lat_mean_us == pytest.approx(10.0)
    assert b.read_lat_p99_us == pytest.approx(10.0)


def test_percentile_from_bins() -> None:
    bins = {10: 98, 20: 1, 30: 1}
    assert percentile_from_bins(bins, 50) == 10
    assert percentile_from_bins(bins, 99) == 20
    assert percentile_from_bins(bins, 99.5) == 30
    assert percentile_from_bins({}, 99) is None


def test_progress_from_fio_eta() -> None:
    assert progress_of({"jobs": [{"elapsed": 3, "eta": 1}]}) == pytest.approx(0.75)
    assert progress_of({"jobs": [{"elapsed": 3, "eta": 2147483647}]}) is None


@pytest.mark.parametrize("name", ["randread-4k-qd3.json", "seqwrite-128k-qd1.json"])
def test_last_interval_ends_when_the_job_stopped(name: str) -> None:
    """fio prints its final summary after tearing the job down; measured to the print time,
    the last interval of every step would look ~40% slower than the others."""
    samples, docs = samples_from_text(load(name))
    direction = "read" if "read" in name else "write"
    steady = [s.rate(direction)[0] for s in samples[:-1]]
    last = samples[-1].rate(direction)[0]
    assert min(steady) * 0.85 < last < max(steady) * 1.15
    runtime = max(int(j["job_runtime"]) for j in docs[-1].data["jobs"])
    assert samples[-1].t_ms == runtime


def test_progress_of_a_time_based_job_counts_from_the_start() -> None:
    doc = {
        "jobs": [
            {
                "elapsed": 1,
                "eta": 2147483647,
                "job_runtime": 900,
                "job options": {"time_based": "1", "runtime": "3"},
            }
        ]
    }
    assert progress_of(doc) == pytest.approx(0.3)


def test_first_snapshot_that_contradicts_the_next_sets_no_clock() -> None:
    """An HD Tach pass's 100 ms snapshots (fio 3.33 on a simulated drive): the first says 130 ms
    with 0 bytes and 4 I/Os issued, the second 105 ms with 2.4 MB. The first interval runs from
    the job's start to the second; none is negative, none holds two intervals' bytes."""
    samples, docs = samples_from_text(load("first-snapshot-100ms.json"))
    first = docs[0].data["jobs"][0]
    assert first["job_runtime"] == 130 and first["write"]["io_bytes"] == 0
    assert docs[1].data["jobs"][0]["job_runtime"] == 105
    assert samples[0].t_ms == samples[0].dt_ms == 105
    assert all(s.dt_ms > 0 for s in samples)
    rates = sorted(s.rate("write")[0] for s in samples)
    median = rates[len(rates) // 2]
    assert samples[0].rate("write")[0] < 1.5 * median  # no start-of-pass spike
    assert sum_samples(samples) == totals(docs[-1].data)


def test_snapshots_printed_late_keep_the_instant_fio_sampled_them() -> None:
    """During the simulated drive's 1.5 s stalls fio printed snapshots 0.6-1.4 s late, with the
    job_runtime and bytes of the instant it sampled them: the intervals follow job_runtime."""
    samples, docs = samples_from_text(load("sim-hitching-3-stalls.json"))
    late = [d.data["timestamp_ms"] - d.data["jobs"][0]["job_runtime"] for d in docs[:-1]]
    assert max(late) - min(late) > 500  # printed at least half a second late once
    runtimes = [d.data["jobs"][0]["job_runtime"] for d in docs]
    assert [s.t_ms for s in samples] == runtimes
    assert sum_samples(samples) == totals(docs[-1].data)


def test_stonewalled_elements_add_their_own_clocks() -> None:
    """A SNIA PTS round is one job file of stonewalled elements. Waiting jobs report fio's
    time since the start of the whole run (0 bytes); an element's clock starts at its first
    bytes, and the interval in which one element ends and the next starts holds the end of the
    first and the start of the second, not one of them."""
    samples, docs = samples_from_text(load("stonewalled-round-stream.json"))
    final = docs[-1].data["jobs"]
    assert sum_samples(samples) == totals(docs[-1].data)
    by_group: dict[int, int] = {}
    for job in final:
        by_group[job["groupid"]] = max(by_group.get(job["groupid"], 0), job["job_runtime"])
    assert len(by_group) == 3
    assert samples[-1].t_ms == sum(by_group.values())  # 2503 + 2500 + 2500 ms
    assert all(0 < s.dt_ms <= 1010 for s in samples)
    # Snapshot 3: the read element ran from 1882 to 2503 ms, the mix element its first 71 ms.
    assert samples[2].dt_ms == (2503 - 1882) + 71
    assert samples[2].write_bytes > 0 and samples[2].read_bytes > 0
    # While the mix element runs, its rate is its own: about 65% reads.
    mix = samples[3]
    assert mix.dt_ms == 1000
    assert 0.6 < mix.read_ios / (mix.read_ios + mix.write_ios) < 0.7


@pytest.mark.parametrize("name", RECORDINGS)
def test_per_second_max_is_fio_own_maximum_where_it_rose(name: str) -> None:
    """The largest per-second maximum is fio's own maximum of the job (exact, not a bucket);
    each interval's maximum is at least its p99 and never above the job's maximum so far."""
    samples, docs = samples_from_text(load(name))
    final = docs[-1].data
    for d in ("read", "write"):
        clat = [j[d]["clat_ns"] for j in final["jobs"] if j[d]["clat_ns"]["N"]]
        peaks = [getattr(s, f"{d}_lat_max_us") for s in samples]
        if not clat:
            assert all(p is None for p in peaks)
            continue
        assert max(p for p in peaks if p is not None) == max(c["max"] for c in clat) / 1000
        for s in samples:
            p99 = getattr(s, f"{d}_lat_p99_us")
            peak = getattr(s, f"{d}_lat_max_us")
            assert (peak is None) == (p99 is None)
            if peak is not None:
                # p99 is a bucket value (within 1/128 of the latencies it holds).
                assert peak >= p99 * (1 - 1 / 128)


def test_a_group_reported_job_runs_on_its_threads_clock_not_their_sum() -> None:
    """group_reporting (the AS-SSD-style 4K-64Thrd test): fio reports the group's job_runtime
    as the sum of its threads' (8 threads of 3 s: about 24 s). The samples run on one thread's
    clock: they cover the job's 3 s, one a second, and add up to fio's group totals."""
    samples, docs = samples_from_text(load("group-reporting-8-threads.json"))
    final = docs[-1].data
    (group,) = final["jobs"]
    assert int(group["job_runtime"]) > 7 * int(group["read"]["runtime"])
    assert sum_samples(samples) == totals(final)
    assert len(samples) == len(docs) >= 3
    covered = sum(s.dt_ms for s in samples)
    assert covered == pytest.approx(int(group["read"]["runtime"]), rel=0.05)
    fio = direction_summary(final, "read")
    assert fio is not None
    full = [s for s in samples if s.dt_ms >= 900]
    mean_mbps = sum(s.rate("read")[0] * s.dt_ms for s in full) / sum(s.dt_ms for s in full)
    assert mean_mbps == pytest.approx(fio["mbps"], rel=0.1)
