"""Summarise a py-spy raw (collapsed) profile: the functions with the most samples, inclusive
and self. `python -m tests.bench.pyspy_top tests/bench/results/ingest-api.pyspy [N] [FILTER]`
(FILTER keeps only the stacks that contain it, e.g. a route's function name)."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path


def summary(path: Path, n: int = 30, only: str | None = None) -> str:
    inclusive: Counter[str] = Counter()
    own: Counter[str] = Counter()
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or (only and only not in stack):
            continue
        k = int(count)
        total += k
        frames = [f.strip() for f in stack.split(";") if not f.startswith("thread")]
        frames = [f.split(" (", 1)[0] + " " + f.rsplit("/", 1)[-1].split(":")[0] for f in frames]
        for f in set(frames):
            inclusive[f] += k
        if frames:
            own[frames[-1]] += k
    lines = [f"{total} samples{f' containing {only!r}' if only else ''}", "inclusive:"]
    lines += [f"  {100 * c / total:5.1f}%  {f}" for f, c in inclusive.most_common(n)]
    lines.append("self:")
    lines += [f"  {100 * c / total:5.1f}%  {f}" for f, c in own.most_common(n)]
    return "\n".join(lines)


if __name__ == "__main__":
    print(
        summary(
            Path(sys.argv[1]),
            int(sys.argv[2]) if len(sys.argv) > 2 else 30,
            sys.argv[3] if len(sys.argv) > 3 else None,
        )
    )
