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
