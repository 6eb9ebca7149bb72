"""Run real fio on an iolog and read back what it replayed, for comparing with drivelab's own
reading of the iolog (backend.traces.iolog).

fio replays onto a scratch file in a temporary directory, never a device: `replay_redirect`
points every I/O at it, with `replay_no_stall` as drivelab replays. The null ioengine issues
nothing to the file, so offsets no file could hold (2^64 - 1) replay too and the comparison
sees every I/O fio queued; how fio reads the iolog and what it does with the file's opens and
closes do not depend on the engine. `--debug=io` prints each I/O fio prepares (offset, length,
direction); a crash or an abort prints the signal, a refusal the error."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from backend.traces import iolog

FIO = shutil.which("fio")
# ddir in fio's debug output (fio's enum fio_ddir)
DDIR = {0: "read", 1: "write", 2: "trim", 3: "sync", 4: "datasync"}
PREP = re.compile(rb"prep: io_u 0x[0-9a-f]+: off=0x([0-9a-f]+),len=0x([0-9a-f]+),ddir=(\d+),")
TIMEOUT_S = 60


@dataclass(frozen=True)
class FioReplay:
    ios: list[tuple[str, int, int]]  # (direction, offset, length) in the order fio issued them
    refused: bool  # fio refused the iolog before replaying anything
    crashed: bool  # fio died of a signal (a crash or a failed assertion)
    output: str


def fio_replay(
    trace: bytes, workdir: Path, *, ioengine: str = "null", extra: tuple[str, ...] = ()
) -> FioReplay:
    assert FIO is not None
    log = workdir / "trace.iolog"
    log.write_bytes(trace)
    scratch = workdir / "scratch.img"
    scratch.unlink(missing_ok=True)
    with scratch.open("wb") as f:
        f.truncate(1 << 20)
    proc = subprocess.run(
        [
            FIO,
            "--name=replay",
            f"--read_iolog={log}",
            f"--replay_redirect={scratch}",
            "--replay_no_stall=1",
            f"--ioengine={ioengine}",
            "--iodepth=1",
            "--debug=io",
            "--output-format=terse",
            *extra,
        ],
        cwd=workdir,
        capture_output=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    out = proc.stdout + proc.stderr
    ios = [(DDIR[int(d)], int(off, 16), int(length, 16)) for off, length, d in PREP.findall(out)]
    text = out.decode("utf-8", errors="backslashreplace")
    return FioReplay(
        ios=ios,
        refused="failed initializing iolog" in text,
        crashed="got signal=" in text,
        output=text,
    )


@dataclass(frozen=True)
class Expected:
    ios: list[tuple[str, int, int]]
    refused: bool
    crashed: bool
    # fio stops replaying at a read or write of 0 bytes; what it does next (end, go on with
    # the rest after reopening the file, or abort) depends on the trace's byte totals, which
    # drivelab does not model: it refuses such a trace.
    open_ended: bool = False


def expected(trace: bytes) -> Expected:
    """What drivelab's reading of the iolog says fio does with it."""
    try:
        log = iolog.read(trace)
        iolog.check_has_io(log)
    except iolog.FioRefuses:
        return Expected([], refused=True, crashed=False)
    replayed = iolog.replay(log)
    ios = [(e.action, e.offset, e.length) for e in replayed.issued]
    open_ended = replayed.stop is not None and not replayed.crash
    return Expected(ios, refused=False, crashed=replayed.crash, open_ended=open_ended)


def compare(trace: bytes, workdir: Path) -> None:
    want = expected(trace)
    got = fio_replay(trace, workdir)
    detail = f"trace {trace!r}\nfio's output:\n{got.output[-3000:]}"
    if want.open_ended:
        assert not got.refused, detail
        assert got.ios[: len(want.ios)] == want.ios, detail
        return
    assert (got.refused, got.crashed) == (want.refused, want.crashed), detail
    if want.crashed:
        # The I/Os before the crash were issued; fio may lose the last lines of its output.
        assert got.ios == want.ios[: len(got.ios)], detail
    else:
        assert got.ios == want.ios, detail
