"""Ask fio itself whether it accepts a run's job files, before anything is written.

The plans' parameter schemas keep values to what fio takes, but fio is the judge: a job file it
rejects would otherwise fail its step only after the purge and the preconditioning had already
written the whole drive. `fio --parse-only` reads the options and runs no I/O. The api runs it
when queueing (when fio is installed on the api's host) and the worker always runs it before a
run's first write.

fio spends most of a start-up calibrating its clock, so every job file of a run is parsed in
one call; only when that fails is each file parsed alone, to name the step at fault.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

TIMEOUT_S = 60


@dataclass(frozen=True)
class Rejected:
    """A job file fio does not accept: the step's name and what fio said."""

    step: str
    message: str


def _parse(fio_binary: str, files: list[Path], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [fio_binary, "--parse-only", *(f.name for f in files)],
        cwd=cwd,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=TIMEOUT_S,
        check=False,
    )


def _message(done: subprocess.CompletedProcess[str]) -> str:
    lines = [ln.strip() for ln in (done.stderr or done.stdout).splitlines() if ln.strip()]
    return "; ".join(lines[-4:]) or f"fio exited with status {done.returncode}"


def rejected(
    job_files: list[tuple[str, str]], *, fio_binary: str = "fio", workdir: Path | None = None
) -> Rejected | None:
    """The first of `job_files` ((step name, job file text), in run order) that fio rejects, or
    None when fio accepts them all."""
    if not job_files:
        return None
    with tempfile.TemporaryDirectory(prefix="drivelab-parse-", dir=workdir) as tmp:
        cwd = Path(tmp)
        files = []
        for i, (name, text) in enumerate(job_files):
            path = cwd / f"{i:03d}-{name}.fio"
            path.write_text(text)
            files.append(path)
        if _parse(fio_binary, files, cwd).returncode == 0:
            return None
        for (name, _text), path in zip(job_files, files, strict=True):
            done = _parse(fio_binary, [path], cwd)
            if done.returncode != 0:
                return Rejected(name, _message(done))
        # Every file alone passes but not together: report the whole set.
        return Rejected(job_files[0][0], _message(_parse(fio_binary, files, cwd)))


def fio_on_this_host() -> str | None:
    return shutil.which("fio")
