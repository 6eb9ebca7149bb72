"""Run one fio job file and stream its per-second samples.

The job file is exactly the one stored with the run; the only arguments added are the output
options in FIO_ARGS, so a reviewer reproduces the step by hand with the same command.
"""

from __future__ import annotations

import logging
import os
import selectors
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from backend.plans.base import fio_args
from worker.fio.pin import PIN_FAILED, Pin, argv_prefix
from worker.fio.stream import JsonStreamDecoder, Sample, SampleStream, progress_of

log = logging.getLogger("drivelab.worker.fio")

# After SIGINT fio finishes in-flight I/O and prints its final JSON; past this it is killed.
STOP_GRACE_S = 1.5
# fio has exited but its pipe is still open: a job process it forked holds it. Past this the
# job processes are killed (a job forked as fio died waits for fio's go-ahead for ever).
ORPHAN_GRACE_S = 2.0


@dataclass
class FioOutcome:
    returncode: int
    final_text: str | None  # fio's last JSON document, verbatim
    stderr: str
    stopped: bool  # stopped on request (cancel or shutdown)
    samples: list[Sample] = field(default_factory=list)
    command: str = ""

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and self.final_text is not None and not self.stopped


def fio_version(binary: str = "fio") -> str | None:
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None


def _dies_with_worker() -> list[str]:
    """A prefix that makes fio stop when the worker dies (killed, out of memory): otherwise its
    job processes keep writing to the drive while the api hands it to the next run. setpriv
    (util-linux) sends fio SIGTERM when its parent goes; fio then stops its jobs and exits.
    SIGPIPE stays ignored (restore_signals=False), or fio would die writing its status to the
    dead worker's pipe before stopping the jobs, which then run on as orphans."""
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "TERM"] if setpriv else []


def _in_cgroup(procs: Path | None) -> list[str]:
    """A prefix that puts fio into a cgroup before it starts (so before its first I/O): a shell
    writes its own pid into the cgroup's `cgroup.procs`, then becomes fio. A simulated drive's
    speed is the kernel's block throttle of its cgroup (worker.sim), which applies only to the
    processes in it."""
    if procs is None:
        return []
    return ["sh", "-c", 'echo $$ > "$0" && exec "$@"', str(procs)]


def priority(nice: int) -> int:
    """The nice value fio will get: `nice`, or this process's own where raising the priority
    is not permitted (not root). A lower value is a higher priority."""
    own = os.getpriority(os.PRIO_PROCESS, 0)
    if nice < own and os.geteuid() != 0:
        return own
    return nice


def _with_priority(nice: int) -> list[str]:
    """A prefix that starts fio at CPU priority `nice` (worker.fio.runner.priority). fio's
    threads issue the I/O: one held up by other work on the host issues nothing meanwhile, and
    the drive looks stalled for as long (a window log cannot tell the two apart)."""
    value = priority(nice)
    if value == os.getpriority(os.PRIO_PROCESS, 0) or shutil.which("nice") is None:
        return []
    own = os.getpriority(os.PRIO_PROCESS, 0)
    return ["nice", "-n", str(value - own)]


def _holds(pid: int | str, link: str) -> bool:
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
        return any(os.readlink(f"/proc/{pid}/fd/{fd}") == link for fd in fds)
    except OSError:
        return False  # gone, or not ours to read


def _end_fio(proc: subprocess.Popen[bytes], pipe_inode: int) -> None:
    """SIGKILL fio and every job process it forked: the processes holding fio's output pipe
    (each job process calls setsid, so no process group or session reaches them all; the pipe
    they inherited does), each signalled through a pidfd taken before checking it still holds
    the pipe (a pid can be reused)."""
    if proc.poll() is None:
        proc.kill()
    link = f"pipe:[{pipe_inode}]"
    own = os.getpid()
    for pid in [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != own]:
        if not _holds(pid, link):
            continue
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            continue
        try:
            if _holds(pid, link):  # still the same process
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
        except OSError:
            pass
        finally:
            os.close(pidfd)


def run_fio(
    job_file: str,
    workdir: Path,
    name: str,
    *,
    on_samples: Callable[[list[Sample], float | None], None],
    should_stop: Callable[[], bool],
    fio_binary: str = "fio",
    status_interval_ms: int = 1000,
    cgroup_procs: Path | None = None,
    nice: int = 0,
    pins: list[Pin] | None = None,
    namespace: bool = False,
    enter: list[str] | None = None,
    enter_fds: tuple[int, ...] = (),
) -> FioOutcome:
    """Run fio on `job_file`, call `on_samples` for every status snapshot, stop on request.
    With `cgroup_procs`, fio runs in that cgroup (a simulated drive's). `pins` are the held
    descriptors fio must open under the names the job file gives them (worker.fio.pin): passed
    to fio, and bound at those names in a mount namespace of its own when `namespace`.
    `enter` is a prefix that puts fio into an existing namespace instead (a file copy's, where
    the held device's filesystem is mounted: worker.fio.pin.join_prefix), with the
    descriptors `enter_fds` passed to it.

    Parsing never waits for anything but fio: `on_samples` must only queue.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / f"{name}.fio"
    path.write_text(job_file)
    argv = [fio_binary, *fio_args(status_interval_ms), path.name]
    pins = pins or []
    proc = subprocess.Popen(
        [
            *_dies_with_worker(),
            *_in_cgroup(cgroup_procs),
            *_with_priority(nice),
            *argv_prefix(pins, namespace=namespace),
            *(enter or []),
            *argv,
        ],
        pass_fds=[*(pin.fd for pin in pins), *enter_fds],
        cwd=workdir,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        restore_signals=False,
    )
    stderr_chunks: list[bytes] = []
    err_thread = threading.Thread(
        target=lambda: stderr_chunks.append(proc.stderr.read() if proc.stderr else b""),
        daemon=True,
    )
    err_thread.start()
    decoder = JsonStreamDecoder()
    stream = SampleStream()
    samples: list[Sample] = []
    last_text: str | None = None
    stopped = False
    stop_deadline: float | None = None
    exited_at: float | None = None
    eof = False
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    pipe_inode = os.fstat(fd).st_ino  # what fio and its job processes write to (_end_fio)
    os.set_blocking(fd, False)
    sel = selectors.DefaultSelector()
    sel.register(fd, selectors.EVENT_READ)
    try:
        while True:
            events = sel.select(timeout=0.2)
            eof = False
            if events:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    eof = True
                else:
                    for doc in decoder.feed(chunk.decode("utf-8", errors="replace")):
                        last_text = doc.text
                        sample = stream.update(doc.data)
                        if sample is not None:
                            samples.append(sample)
                            on_samples([sample], progress_of(doc.data))
            if eof:
                break
            if exited_at is None and proc.poll() is not None:
                exited_at = time.monotonic()
            if exited_at is not None and time.monotonic() - exited_at > ORPHAN_GRACE_S:
                log.error(
                    "fio (%s) exited (status %s) but its job processes still run: killing them",
                    name,
                    proc.returncode,
                )
                break  # _end_fio below
            if not stopped and should_stop():
                stopped = True
                stop_deadline = time.monotonic() + STOP_GRACE_S
                log.info("stopping fio (%s) on request", name)
                proc.send_signal(signal.SIGINT)
            if (
                stop_deadline is not None
                and time.monotonic() > stop_deadline
                and proc.poll() is None
            ):
                log.warning("fio (%s) did not stop within %.1f s: killing it", name, STOP_GRACE_S)
                _end_fio(proc, pipe_inode)
                stop_deadline = None
    finally:
        sel.close()
        if not eof:
            # Left before fio's output ended (its job processes outlived it, or an error
            # here): not one of them may go on writing to the drive.
            _end_fio(proc, pipe_inode)
        returncode = proc.wait()
        err_thread.join(timeout=5)
    stderr = b"".join(stderr_chunks).decode("utf-8", errors="replace")
    if returncode == PIN_FAILED and last_text is None:
        log.error("fio (%s) was not started: %s", name, stderr.strip())
    return FioOutcome(
        returncode=returncode,
        final_text=last_text,
        stderr=stderr,
        stopped=stopped,
        samples=samples,
        command=" ".join(argv),
    )
