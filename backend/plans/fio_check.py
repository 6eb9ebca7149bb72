"""Ask fio itself whether it accepts a run's job files, before anything is written.

The plans' parameter schemas keep values to what fio takes, but fio is the judge: a job file it
rejects would otherwise fail its step only after the purge and the preconditioning had already
written the whole drive. `fio --parse-only` reads the options and runs no I/O. The api runs it
when queueing (when fio is installed on the api's host) and the worker always runs it before a
run's first write.

fio spends most of a start-up checking its clocks (about 0.15 s), so every job file of a run is
parsed in one call; only when that fails is each file parsed alone, to name the step at fault.
A set of job files that a given fio binary accepted is remembered, so queueing the same plan
again does not pay for it twice.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

TIMEOUT_S = 60
_REMEMBERED = 512
_accepted: OrderedDict[str, None] = OrderedDict()
_lock = threading.Lock()


@dataclass(frozen=True)
class Rejected:
    """A job file fio does not accept: the step's name and what fio said."""

    step: str
    message: str


def _fio(fio_binary: str, args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [fio_binary, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=TIMEOUT_S,
        check=False,
    )


def _parse(fio_binary: str, files: list[Path], cwd: Path) -> subprocess.CompletedProcess[str]:
    return _fio(fio_binary, ["--parse-only", *(f.name for f in files)], cwd)


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
    key = _key(fio_binary, job_files)
    with _lock:
        if key is not None and key in _accepted:
            _accepted.move_to_end(key)
            return None
    found = _rejected(job_files, fio_binary, workdir)
    if found is None and key is not None:
        with _lock:
            _accepted[key] = None
            while len(_accepted) > _REMEMBERED:
                _accepted.popitem(last=False)
    return found


def _key(fio_binary: str, job_files: list[tuple[str, str]]) -> str | None:
    """What fio's verdict depends on: the binary (by path, size and time) and the texts."""
    path = shutil.which(fio_binary)
    if path is None:
        return None
    st = os.stat(path)
    digest = hashlib.sha256(f"{os.path.realpath(path)}:{st.st_size}:{st.st_mtime_ns}".encode())
    for _name, text in job_files:
        digest.update(b"\0" + text.encode())
    return digest.hexdigest()


def _rejected(
    job_files: list[tuple[str, str]], fio_binary: str, workdir: Path | None
) -> Rejected | None:
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


_engines_work: set[str] = set()


def ioengines(job_file: str) -> set[str]:
    """The ioengines a job file names."""
    return {
        line.split("=", 1)[1].strip()
        for line in job_file.split("\n")
        if line.startswith("ioengine=")
    }


def engine_problem(
    engine: str, *, fio_binary: str = "fio", workdir: Path | None = None
) -> str | None:
    """Why fio cannot do I/O with `engine` here, or None. fio's parse accepts any engine it was
    built with; whether the kernel lets it run is known only when it runs (io_uring is refused
    by older kernels, by kernel.io_uring_disabled and by Docker's default seccomp profile).
    So a small write and read of a scratch file in `workdir` (never the target), once per fio
    binary and engine for the life of the process."""
    key = f"{_key(fio_binary, []) or fio_binary}:{engine}"
    with _lock:
        if key in _engines_work:
            return None
    args = ["--name=probe", "--filename=probe.img", "--size=64k", "--bs=4k", "--rw=randrw"]
    with tempfile.TemporaryDirectory(prefix="drivelab-engine-", dir=workdir) as tmp:
        try:
            done = _fio(
                fio_binary, [*args, f"--ioengine={engine}", "--output-format=terse"], Path(tmp)
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"{fio_binary} did not run: {exc}"
    if done.returncode != 0:
        return _message(done)
    with _lock:
        _engines_work.add(key)
    return None
