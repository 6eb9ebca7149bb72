from __future__ import annotations

import pytest

from backend.analysis.as_ssd import scores


def test_the_published_weights_of_each_score() -> None:
    mbps = {
        ("seq", "read"): 500.0,
        ("seq", "write"): 400.0,
        ("4k", "read"): 40.0,
        ("4k", "write"): 100.0,
        ("4k-64thrd", "read"): 300.0,
        ("4k-64thrd", "write"): 250.0,
    }
    got = scores(mbps)
    assert got["read"] == pytest.approx(50 + 40 + 300)
    assert got["write"] == pytest.approx(40 + 100 + 250)
    assert got["total"] == pytest.approx(50 + 60 + 80 + 100 + 450 + 250)


def test_a_score_without_one_of_its_figures_is_none() -> None:
    got = scores({("seq", "read"): 500.0, ("4k", "read"): 40.0, ("4k-64thrd", "read"): 300.0})
    assert got["read"] == pytest.approx(390.0)
    assert got["write"] is None and got["total"] is None
