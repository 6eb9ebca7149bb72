"""How long the host held up the processes that use a simulated drive: part of its known
answer, measured by the kernel, not guessed.

fio measures a write as complete when it reaps the completion. A drive that resumes after a
stall while the host has fio runnable but not running (other work on its cores) shows fio a
stall that lasts until fio runs again; a step-down that comes while fio is held shows where fio
caught up. No fio output tells that from the drive, so the self-test must know it to judge
drivelab fairly: the kernel counts, per thread, the time it spent runnable and waiting for a
core (`/proc/PID/task/TID/schedstat`, its second field: run_delay, in ns; schedstats are kept
whenever the scheduler's statistics are built in, as in every distribution kernel).

The processes are the drive's cgroup's (the worker starts fio inside it). The controller reads
their run_delay every HELD_EVERY_S and takes, per reading, the largest increase of any one
thread (the thread that was held longest; fio's threads are held together by the same load,
and a sum would count that hold once per thread). Only a hold that filled at least HELD_SHARE
of the time since the previous reading counts: a thread woken for each completion waits a
little every time (a busy host: 0.1-0.3 s a second in waits of a millisecond or so), which
delays each write by that little and moves no stall's end; a hold of a whole reading or more
is fio not running at all. When the reader itself was held up (a reading READER_LATE_S or more
after the one before) the two cannot be told apart, and the whole increase counts: the truth
is then known no better than that. (In CI fio saw a stall end 0.3 s after the device's
counters did, on a host that held processes up ~1 s, with no hold counted.) The running total
goes into the trace (worker.sim.truth.fio_held reads it over any stretch of time).
"""

from __future__ import annotations

import os
from pathlib import Path

HELD_EVERY_S = 0.02
HELD_SHARE = 0.5
# A reading this late (the controller's reader itself held up by the host) cannot tell one
# hold from many small waits: all of the increase counts, as the room the truth has there.
READER_LATE_S = 0.1
# fio's threads come and go with its jobs: the list is read again this often.
TASKS_EVERY_S = 0.1


def run_delay_s(pid: int, tid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/task/{tid}/schedstat").read_text().split()
        return int(fields[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None  # the thread ended


class HeldUp:
    """The running total of how long the threads of the processes in `procs` (a cgroup's
    cgroup.procs) were held up, in seconds: `tick(now)` returns it."""

    def __init__(self, procs: Path) -> None:
        self.procs = procs
        self.total_s = 0.0
        self._tasks: list[tuple[int, int]] = []
        self._last: dict[tuple[int, int], float] = {}
        self._next = 0.0
        self._next_tasks = 0.0
        self._read_at: float | None = None

    def _list_tasks(self) -> None:
        try:
            pids = [int(p) for p in self.procs.read_text().split()]
        except (OSError, ValueError):
            pids = []
        tasks = []
        for pid in pids:
            try:
                tasks += [(pid, int(t)) for t in os.listdir(f"/proc/{pid}/task")]
            except (OSError, ValueError):
                continue
        self._tasks = tasks
        # A thread that left is forgotten; one seen for the first time counts from its start
        # (fio's threads begin in the cgroup: the worker moves the shell that becomes fio).
        self._last = {k: v for k, v in self._last.items() if k in set(tasks)}

    def tick(self, now: float) -> float:
        if now < self._next:
            return self.total_s
        self._next = now + HELD_EVERY_S
        if now >= self._next_tasks:
            self._next_tasks = now + TASKS_EVERY_S
            self._list_tasks()
        worst = 0.0
        for key in self._tasks:
            value = run_delay_s(*key)
            if value is None:
                continue
            worst = max(worst, value - self._last.get(key, 0.0))
            self._last[key] = value
        since = HELD_EVERY_S if self._read_at is None else now - self._read_at
        self._read_at = now
        if worst >= HELD_SHARE * since or since >= READER_LATE_S:
            self.total_s += worst
        return self.total_s
