"""The AS-SSD-style preset's figures and scores (backend.plans.as_ssd). Pure: dicts in, dicts out.

The scores use the weights Tom's Hardware (2011) and ssd-tester.com publish for AS SSD
Benchmark, of the MB/s figures (AS SSD's own pages do not publish them):
    read  = 0.1 x Seq read  + 4K read  + 4K-64Thrd read
    write = 0.1 x Seq write + 4K write + 4K-64Thrd write
    total = 0.1 x Seq read + 0.15 x Seq write + 2 x 4K read + 4K write
            + 1.5 x 4K-64Thrd read + 4K-64Thrd write
"""

from __future__ import annotations

from collections.abc import Mapping

# (test, direction) -> weight, per score.
WEIGHTS: dict[str, dict[tuple[str, str], float]] = {
    "read": {("seq", "read"): 0.1, ("4k", "read"): 1.0, ("4k-64thrd", "read"): 1.0},
    "write": {("seq", "write"): 0.1, ("4k", "write"): 1.0, ("4k-64thrd", "write"): 1.0},
    "total": {
        ("seq", "read"): 0.1,
        ("seq", "write"): 0.15,
        ("4k", "read"): 2.0,
        ("4k", "write"): 1.0,
        ("4k-64thrd", "read"): 1.5,
        ("4k-64thrd", "write"): 1.0,
    },
}
SOURCE = (
    "weights as published for AS SSD Benchmark by Tom's Hardware (2011) and ssd-tester.com, "
    "of the MB/s figures; the access times are not in them"
)


def scores(mbps: Mapping[tuple[str, str], float]) -> dict[str, float | None]:
    """The read, write and total scores of the MB/s figures by (test, direction), e.g.
    ("4k-64thrd", "read"); a score is None when a figure it weighs is missing."""
    out: dict[str, float | None] = {}
    for name, weights in WEIGHTS.items():
        if all(k in mbps for k in weights):
            out[name] = sum(w * mbps[k] for k, w in weights.items())
        else:
            out[name] = None
    return out
