"""fio dies while a job process it forked lives on (killed, crashed): the worker notices, and
ends the job processes with it, instead of waiting for ever on the pipe they hold (a file copy
whose fio was killed as it forked a job stayed 'running' for good)."""

from __future__ import annotations

import os
import shutil
import signal
import threading
import time
from pathlib import Path

import pytest

from tests.worker.fio.procs import fio_stats, long_write
from worker.fio.runner import run_fio

pytestmark = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")


def _fio_pids(workdir: Path) -> dict[int, int]:
    """pid -> parent pid of every fio process running in `workdir`."""
    return {pid: int(fields[1]) for pid, fields in fio_stats(workdir).items()}


def test_a_killed_fio_does_not_leave_its_jobs_running(tmp_path: Path) -> None:
    # A job that would run ten minutes: only fio's own process is killed, its job process not.
    job, workdir = long_write(tmp_path, 600)
    killed: list[int] = []
    jobs: list[int] = []

    def kill_fio_only() -> bool:
        procs = _fio_pids(workdir)
        mains = [pid for pid, parent in procs.items() if parent not in procs]
        children = [pid for pid, parent in procs.items() if parent in procs]
        if not killed and mains and children:
            jobs.extend(children)
            os.kill(mains[0], signal.SIGKILL)
            killed.append(mains[0])
        return False  # never a stop request: fio's death is all the worker is told

    result: list[object] = []
    runner = threading.Thread(
        target=lambda: result.append(
            run_fio(job, workdir, "w", on_samples=lambda *_a: None, should_stop=kill_fio_only)
        ),
        daemon=True,
    )
    runner.start()
    runner.join(300)  # far beyond the ~2 s it takes; the job itself would run 600 s
    try:
        assert not runner.is_alive(), "run_fio still waits on the pipe of fio's job process"
        assert killed and jobs
        (outcome,) = result
        assert outcome.returncode == -signal.SIGKILL, outcome  # type: ignore[attr-defined]
        assert not outcome.ok  # type: ignore[attr-defined]
        # Not one of fio's job processes is left writing to the drive.
        for _ in range(50):
            if not _fio_pids(workdir):
                break
            time.sleep(0.1)
        assert _fio_pids(workdir) == {}
    finally:
        for pid in _fio_pids(workdir):
            os.kill(pid, signal.SIGKILL)
