"""A short last interval (fio's final summary) folded into the one before: one interval from
the start of the one before to the job's end, every other interval as it was."""

from __future__ import annotations

from backend.analysis.intervals import fold_short_tail


def test_the_short_tail_joins_the_interval_before_it_at_the_jobs_end() -> None:
    t, dt, (ios,) = fold_short_tail(
        [877, 1877, 2877, 3877, 4000], [877, 1000, 1000, 1000, 123], [10, 20, 30, 40, 5]
    )
    assert t == [877, 1877, 2877, 4000]  # in order; the others keep their own times
    assert dt == [877, 1000, 1000, 1123]
    assert ios == [10, 20, 30, 45]


def test_a_last_interval_of_normal_length_is_kept() -> None:
    t, dt, (ios,) = fold_short_tail([1000, 2000, 3000], [1000, 1000, 900], [1, 2, 3])
    assert (t, dt, ios) == ([1000, 2000, 3000], [1000, 1000, 900], [1, 2, 3])
