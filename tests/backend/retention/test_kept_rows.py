"""Which samples a compacted step keeps: every chart's extremes per bucket, the first and last
rows, and the same folding of a short last interval as the full series (no database)."""

from __future__ import annotations

import random
from types import SimpleNamespace

from backend.analysis.intervals import fold_short_tail
from backend.results.series import log_points
from backend.retention.service import compact_logs, kept_sample_rows


def _rows(dts: list[int], seed: int = 1) -> list[SimpleNamespace]:
    rng = random.Random(seed)
    rows, t = [], 0
    for dt in dts:
        t += dt
        ios = rng.randint(1000, 5000) * dt // 1000
        rows.append(
            SimpleNamespace(
                t_ms=t, dt_ms=dt, read_bytes=0, write_bytes=ios * 4096, read_ios=0,
                write_ios=ios, read_lat_mean_us=None, write_lat_mean_us=rng.uniform(50, 500),
                read_lat_p99_us=None, write_lat_p99_us=rng.uniform(500, 5000),
                read_lat_max_us=None, write_lat_max_us=rng.uniform(1000, 90000),
                temp_dc=rng.randint(350, 780),
            )
        )  # fmt: skip
    return rows


def _folds(rows: list[SimpleNamespace]) -> bool:
    t, _dt, _ = fold_short_tail([r.t_ms for r in rows], [r.dt_ms for r in rows])
    return len(t) < len(rows)


def test_every_extreme_and_both_ends_are_kept() -> None:
    rows = _rows([1000] * 2000 + [30])
    kept = kept_sample_rows(rows, 650)
    assert kept[0] == 0 and kept[-2:] == [1999, 2000]
    assert len(kept) < len(rows)
    for column in ("write_ios", "write_lat_max_us", "write_lat_p99_us", "temp_dc"):
        values = [getattr(r, column) for r in rows]
        chosen = {getattr(rows[i], column) for i in kept}
        assert max(values) in chosen and min(values) in chosen


def _chart(rows: list[SimpleNamespace], column: str) -> set[tuple[float, float]]:
    """The points a rate chart draws (backend.results.series): short tail folded."""
    t, dt, (counts,) = fold_short_tail(
        [r.t_ms for r in rows], [r.dt_ms for r in rows], [getattr(r, column) for r in rows]
    )
    return {(a, c / d) for a, c, d in zip(t, counts, dt, strict=True)}


def test_a_short_tail_of_extreme_rate_does_not_hide_the_charts_extremes() -> None:
    # fio's final summary: 30 ms with almost no I/O (a rate far below any real second), or a
    # burst (far above). It is folded into the second before it on the chart, so it must not
    # take a bucket's min or max slot from the second the chart really draws lowest or highest.
    for seed in range(20):
        for tail_ios in (0, 1, 400):
            rows = _rows([1000] * 24 + [30], seed)
            rows[-1].write_ios = tail_ios
            full = _chart(rows, "write_ios")
            kept = kept_sample_rows(rows, 4)
            now = _chart([rows[i] for i in kept], "write_ios")
            assert now <= full
            lo, hi = min(full, key=lambda p: p[1]), max(full, key=lambda p: p[1])
            assert lo in now and hi in now, (seed, tail_ios)
            lat = [r.write_lat_max_us for r in rows[:-1]]  # the tail's latency is not drawn
            chosen = {rows[i].write_lat_max_us for i in kept}
            assert min(lat) in chosen and max(lat) in chosen


def test_a_short_step_is_kept_whole() -> None:
    rows = _rows([1000] * 20)
    assert kept_sample_rows(rows, 650) == list(range(20))


def test_the_last_interval_folds_as_in_the_full_series() -> None:
    # Intervals of a loaded machine (fio's status late or early), where the rows of extreme
    # rate are the short and long ones: the kept rows' median interval is not the full one's.
    for seed in range(40):
        rng = random.Random(seed)
        dts = [rng.choice([300, 400, 1000, 1000, 1000, 1700]) for _ in range(60)]
        for last in (180, 260, 450, 520, 900):
            rows = _rows([*dts, last], seed)
            kept = kept_sample_rows(rows, 4)
            assert _folds([rows[i] for i in kept]) == _folds(rows), (seed, last)


def test_a_compacted_window_log_draws_its_extremes_and_gaps() -> None:
    t_ms = [100 * (i + 1) for i in range(300)] + [100 * (i + 1) for i in range(320, 400)]
    write = [float(1000 + (i * 37) % 500) for i in range(len(t_ms))]
    write[150] = 5.0
    logs = {"window_ms": 100, "bw": {"window_ms": 100, "t_ms": t_ms, "write": write,
                                     "read": [0.0] * len(t_ms)}}  # fmt: skip
    full = log_points(logs, "bw", "write")
    assert full is not None
    compacted, before, after = compact_logs(logs, 20)
    assert before == len(t_ms) and 0 < after <= 40
    xs, ys = log_points(compacted, "bw", "write") or ([], [])
    assert len(xs) <= 20 and set(zip(xs, ys, strict=True)) <= set(zip(*full, strict=True))
    assert 0.0 in ys and 5.0 in ys and max(write) in ys  # the gap at 0, the dip, the peak
    assert compacted["bw"]["rows"] == len(t_ms)
    assert compact_logs(compacted, 20)[1] == 0  # compacted once
