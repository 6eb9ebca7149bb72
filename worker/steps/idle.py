"""Leave the drive idle for a while (METHODS.md, plan 5: a pass "after a 30 min idle"), so its
firmware can run garbage collection; stoppable within a fraction of a second."""

from __future__ import annotations

import time
from collections.abc import Callable

_POLL_S = 0.1  # how often should_stop is asked


def idle(
    seconds: float,
    *,
    should_stop: Callable[[], bool],
    on_tick: Callable[[float], None] | None = None,
    tick_s: float = 1.0,
) -> tuple[float, bool]:
    """Wait `seconds`, calling `on_tick(progress)` (0..1) about every `tick_s` and once at the
    end, and returning early once `should_stop()` is true.

    Returns (seconds actually idled, whether it stopped early).
    """
    if seconds < 0:
        raise ValueError(f"cannot idle for a negative time ({seconds} s)")
    if tick_s <= 0:
        raise ValueError(f"tick_s must be positive, not {tick_s}")
    started = time.monotonic()
    deadline = started + seconds
    next_tick = started + tick_s
    while True:
        if should_stop():
            return time.monotonic() - started, True
        now = time.monotonic()
        if now >= deadline:
            break
        if on_tick is not None and now >= next_tick:
            on_tick(min((now - started) / seconds, 1.0))
            while next_tick <= now:
                next_tick += tick_s
        time.sleep(max(0.0, min(_POLL_S, deadline - now, next_tick - now)))
    if on_tick is not None:
        on_tick(1.0)
    return time.monotonic() - started, False
