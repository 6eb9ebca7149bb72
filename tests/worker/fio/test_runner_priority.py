"""fio runs at the bench's fio priority (WorkerSettings.fio_nice): read from the running fio
process itself, not from the command the worker built."""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path

import pytest

from tests.worker.fio.procs import fio_stats, long_write
from worker.fio.runner import priority, run_fio

pytestmark = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")


def _fio_nice(workdir: Path, stop: threading.Event, seen: list[int]) -> None:
    """The nice value (field 19 of /proc/PID/stat) of the fio process running in `workdir`."""
    while not stop.is_set():
        seen += [int(fields[16]) for fields in fio_stats(workdir).values()]
        time.sleep(0.05)


@pytest.mark.parametrize("nice", [-10, 5])
def test_fio_runs_at_the_priority_asked_for(tmp_path: Path, nice: int) -> None:
    # Long enough for a watcher scanning /proc on a busy host to see it; stopped once it has,
    # three times (CI: a 2 s job ended before one scan found it).
    job, workdir = long_write(tmp_path, 60)
    seen: list[int] = []
    stop = threading.Event()
    watcher = threading.Thread(target=_fio_nice, args=(workdir, stop, seen), daemon=True)
    watcher.start()
    try:
        outcome = run_fio(
            job,
            workdir,
            "w",
            on_samples=lambda *_a: None,
            should_stop=lambda: len(seen) >= 3,
            nice=nice,
        )
    finally:
        stop.set()
        watcher.join(5)
    # Stopped once seen (a SIGINT before fio's own handler is set ends it at once: CI).
    assert outcome.stopped, outcome
    assert seen, "never saw fio running"
    want = priority(nice)
    if nice < os.getpriority(os.PRIO_PROCESS, 0) and os.geteuid() != 0:
        assert want == os.getpriority(os.PRIO_PROCESS, 0)  # not permitted: left as it is
    else:
        assert want == nice
    assert set(seen) == {want}
