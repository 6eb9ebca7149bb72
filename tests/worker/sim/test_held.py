"""The time the host held a simulated drive's processes up (worker.sim.held), read from the
kernel's per-thread run_delay: a process that waits for a core is counted, one that sleeps is
not, and truth.fio_held reads the total over any stretch of the trace."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from worker.sim import truth
from worker.sim.held import HeldUp

SPIN = "import time\nend = time.monotonic() + 3\nwhile time.monotonic() < end: pass\n"


def _on_core0(nice: int) -> subprocess.Popen:
    def pin() -> None:
        os.sched_setaffinity(0, {0})
        os.nice(nice)

    return subprocess.Popen([sys.executable, "-c", SPIN], preexec_fn=pin)  # noqa: PLW1509


def _held_over(procs: Path, seconds: float) -> tuple[float, float]:
    """(held, wall seconds it was measured over)."""
    held = HeldUp(procs)
    begin = time.monotonic()
    while time.monotonic() < begin + seconds:
        held.tick(time.monotonic())
        time.sleep(0.005)
    total = held.tick(time.monotonic() + 1.0)
    return total, time.monotonic() - begin


def test_a_process_waiting_for_a_core_is_held_and_a_sleeping_one_is_not(tmp_path: Path) -> None:
    procs = tmp_path / "cgroup.procs"
    # Two spinners on one core, one at the lowest priority: it waits most of the time. A
    # thread is counted from its start (the controller's cgroup is new, and so is fio in it).
    begin = time.monotonic()
    hog, starved = _on_core0(0), _on_core0(19)
    try:
        time.sleep(0.2)
        procs.write_text(f"{starved.pid}\n")
        held, _ = _held_over(procs, 1.0)
        wall = time.monotonic() - begin
    finally:
        for p in (hog, starved):
            p.kill()
            p.wait()
    assert 0.5 <= held <= wall, (held, wall)
    sleeper = subprocess.Popen(["sleep", "3"])
    try:
        procs.write_text(f"{sleeper.pid}\n")
        assert _held_over(procs, 1.0)[0] < 0.05
    finally:
        sleeper.kill()
        sleeper.wait()
    # Threads that ended, and a cgroup that is gone, count nothing more.
    procs.unlink()
    assert _held_over(procs, 0.1)[0] == 0.0


def test_fio_held_reads_the_total_between_two_times() -> None:
    lines = [f"{100 + i * 0.1:.4f} {i * 1000} {i} 0 {0.05 * max(0, i - 10):.4f}" for i in range(30)]
    trace = truth.load_trace(lines)
    assert trace.shape == (30, truth.TRACE_COLUMNS)
    assert truth.fio_held(trace, 100.0, 100.9) == 0.0
    assert np.isclose(truth.fio_held(trace, 101.0, 102.0), 0.5)
    # An older trace without the column: nothing is known to have been held.
    old = truth.load_trace([" ".join(line.split()[:4]) for line in lines])
    assert truth.fio_held(old, 100.0, 103.0) == 0.0


def test_stalls_fio_was_held_up_between_are_one_stall_to_fio() -> None:
    """A device stall, 0.4 s of writing, another stall: fio held up through those 0.4 s reaped
    nothing in between and saw one stall; held up 0.1 s of them, it saw two."""
    from worker.sim.selftest import _joined_by_holds

    stalls = [{"start_s": 1.0, "duration_s": 1.5}, {"start_s": 2.9, "duration_s": 0.3}]

    def trace(held_from: float, held_to: float) -> np.ndarray:
        # 10 ms readings from wall 100 s (the job's start); the held total grows in between.
        t = np.arange(0.0, 5.0, 0.01)
        held = np.clip(t, held_from, held_to) - held_from
        return np.column_stack([100 + t, t * 1e6, t * 100, 0 * t, held])

    one = _joined_by_holds(stalls, trace(2.5, 2.9), 100.0)
    assert len(one) == 1 and one[0]["joined"] == 2
    assert one[0]["start_s"] == 1.0 and np.isclose(one[0]["duration_s"], 2.2)
    two = _joined_by_holds(stalls, trace(2.5, 2.6), 100.0)
    assert [d["start_s"] for d in two] == [1.0, 2.9] and "joined" not in two[0]


def test_a_late_reading_counts_the_whole_increase(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Readings 20 ms apart count only a hold that filled half the time since the one before
    (many small waits are not a hold); a reading late by READER_LATE_S or more (the reader
    held up itself) cannot tell them apart, and counts all of it."""
    from worker.sim import held as held_module

    delays = iter([0.0, 0.005, 0.3])
    monkeypatch.setattr(held_module, "run_delay_s", lambda _pid, _tid: next(delays))
    h = HeldUp(Path("/nonexistent"))
    monkeypatch.setattr(h, "_list_tasks", lambda: None)
    h._tasks = [(1, 1)]
    assert h.tick(10.0) == 0.0  # first reading: counted from the thread's start (0)
    assert h.tick(10.02) == 0.0  # 5 ms of small waits in 20 ms: not a hold
    assert np.isclose(h.tick(11.0), 0.295)  # the reader ~1 s late: all of 0.295 s counts
