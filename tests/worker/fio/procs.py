"""The fio processes a test's run_fio started, read from /proc (by their working directory)."""

from __future__ import annotations

import os
from pathlib import Path


def fio_stats(workdir: Path) -> dict[int, list[str]]:
    """pid -> the fields of /proc/PID/stat after the command name (state, ppid, ...) of every
    live fio process whose working directory is `workdir`."""
    found: dict[int, list[str]] = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if Path(f"/proc/{pid}/cwd").resolve() != workdir:
                continue
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if "(fio)" in stat and fields[0] != "Z":
            found[int(pid)] = fields
    return found


def long_write(tmp_path: Path, runtime_s: int) -> tuple[str, Path]:
    """A random-write job of `runtime_s` seconds on a 16 MiB sparse file, and the empty working
    directory to run it in (where `fio_stats` finds its processes)."""
    target = tmp_path / "target.img"
    with target.open("wb") as f:
        f.truncate(16 << 20)
    job = (
        f"[global]\nioengine=psync\ntime_based=1\nruntime={runtime_s}\n"
        f"[w]\nfilename={target}\nrw=randwrite\nbs=4k\nsize=16m\n"
    )
    workdir = (tmp_path / "run").resolve()
    workdir.mkdir()
    return job, workdir
