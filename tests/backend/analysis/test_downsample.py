from __future__ import annotations

import math

import numpy as np
import pytest

from backend.analysis.downsample import minmax_downsample


def reference(x: list[float], y: list[float], n_points: int) -> tuple[list[float], list[float]]:
    """Brute force: n_points // 2 buckets by index (sizes differ by at most one, larger first);
    from each, the first lowest and the first highest point, in index order."""
    n_buckets = n_points // 2
    size, extra = divmod(len(x), n_buckets)
    out: list[int] = []
    start = 0
    for b in range(n_buckets):
        end = start + size + (1 if b < extra else 0)
        idx = list(range(start, end))
        lo = min(idx, key=lambda i: (y[i], i))
        hi = max(idx, key=lambda i: (y[i], -i))
        out.extend(sorted({lo, hi}))
        start = end
    return [x[i] for i in out], [y[i] for i in out]


def consistency_series(seed: int = 4) -> tuple[list[float], list[float]]:
    """2000 s of IOPS around 3000 with one second at 0 (a stall) and one spike to 90000."""
    rng = np.random.default_rng(seed)
    t = np.arange(1, 2001, dtype=float)
    iops = 3000 * rng.uniform(0.7, 1.3, t.size)
    iops[776] = 0.0  # t = 777
    iops[1233] = 90000.0  # t = 1234
    return t.tolist(), iops.tolist()


def test_a_stall_and_a_spike_survive_650_points() -> None:
    x, y = consistency_series()
    dx, dy = minmax_downsample(x, y, 650)
    assert len(dx) == len(dy) <= 650
    points = set(zip(dx, dy, strict=True))
    assert (777.0, 0.0) in points
    assert (1234.0, 90000.0) in points
    assert min(dy) == 0.0 and max(dy) == 90000.0
    assert dx == sorted(dx)  # x order
    # Plain averaging over the same buckets would have hidden both.
    means = [float(np.mean(b)) for b in np.array_split(np.array(y), 325)]
    assert min(means) > 2000 and max(means) < 20000


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("n_points", [4, 5, 650, 651, 1999])
def test_every_bucket_min_and_max_as_the_brute_force_reference(seed: int, n_points: int) -> None:
    rng = np.random.default_rng(seed)
    n = 2000
    x = np.cumsum(rng.uniform(0.5, 1.5, n)).tolist()
    # Repeated values make ties, which keep the first point.
    y = rng.integers(0, 50, n).astype(float).tolist()
    got = minmax_downsample(x, y, n_points)
    assert got == reference(x, y, n_points)
    assert len(got[0]) <= n_points


def test_small_input_is_returned_unchanged() -> None:
    x = [1.0, 2.0, 3.0]
    y = [5.0, 0.0, 7.0]
    assert minmax_downsample(x, y, 650) == (x, y)
    x650 = [float(i) for i in range(650)]
    assert minmax_downsample(x650, x650, 650) == (x650, x650)


def test_missing_points_are_skipped() -> None:
    x = [float(i) for i in range(2000)]
    y: list[float | None] = [float(i % 7) for i in range(2000)]
    y[10] = None
    y[20] = math.nan
    x[30] = math.nan
    dx, dy = minmax_downsample(x, y, 100)
    assert all(math.isfinite(v) for v in dx + dy)
    assert 10.0 not in dx and 20.0 not in dx
    kept = [(a, b) for a, b in zip(x, y, strict=True) if b is not None and a == a and b == b]
    assert (dx, dy) == reference([a for a, _ in kept], [b for _, b in kept], 100)
    assert minmax_downsample([1.0, 2.0, None], [None, 3.0, 4.0], 10) == ([2.0], [3.0])


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        minmax_downsample([1.0] * 10, [1.0] * 10, 3)
    with pytest.raises(ValueError):
        minmax_downsample([1.0, 2.0], [1.0], 10)
