"""The window's percentiles of a PTS latency element: fio's rule on its histogram, and a
percentile the I/O count cannot support left out with the reason."""

from __future__ import annotations

from backend.pts.derive import _percentiles


def test_five_nines_need_100000_ios_and_say_so_when_missing() -> None:
    # 99,990 I/Os at 100 µs and 9 at 5 ms: the slowest 0.009%.
    few = {100_000: 99_990, 5_000_000: 9}
    got = _percentiles(few)
    assert got["ios"] == 99_999
    # 99.99% of 99,999 I/Os is 99,989.1: reached within the 100 µs bucket.
    assert got["99.99"] == 100.0
    assert got["99.999"] is None
    assert "99,999 completed" in got["unsupported"]["99.999"]
    assert "100,000" in got["unsupported"]["99.999"]
    # One more I/O: five nines can be told, and it is the slow bucket.
    enough = {100_000: 99_990, 5_000_000: 10}
    got = _percentiles(enough)
    assert got["99.999"] == 5000.0 and got["unsupported"] == {}
