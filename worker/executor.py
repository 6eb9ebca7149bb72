"""Execute one run on this bench: claim, interlock, record the environment, run the steps.

A run's steps are a plain loop (no Celery chains), easy to read and to resume.
"""

from __future__ import annotations

import logging
import socket
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from backend.plans import fio_check
from backend.plans.base import job_files_as_run
from worker.client import ApiClient, ApiError, ApiUnreachable, RunHeartbeat
from worker.devices import DeviceInfo
from worker.driveinfo import drive_record, smart, unchanged_since, write_fingerprint
from worker.fio.runner import priority
from worker.guard import HeldTarget
from worker.hostchanges import host_changes
from worker.hostinfo import host_info
from worker.safety import InterlockError
from worker.spans import span_refusal
from worker.step_runner import RUNNERS, WRITE_CACHE_RECORD, StepContext, StepReport
from worker.steps import StepError
from worker.steps.write_cache import restore_recorded

log = logging.getLogger("drivelab.worker")


@dataclass
class WorkerContext:
    client: ApiClient
    bench: str
    data_dir: Path
    sandbox: Path
    fio_binary: str = "fio"
    fio_nice: int = 0
    # Set when the worker process is shutting down: running fio jobs are stopped.
    shutdown: threading.Event = field(default_factory=threading.Event)

    @property
    def name(self) -> str:
        return f"{self.bench}@{socket.gethostname()}"


class RunStopped(Exception):
    """The reviewer cancelled the run, or the worker is shutting down."""


@dataclass
class _RunControl:
    cancel: threading.Event = field(default_factory=threading.Event)

    def update(self, reply: dict[str, Any] | None) -> None:
        if reply and reply.get("cancel"):
            self.cancel.set()


def execute_run(ctx: WorkerContext, run_id: int) -> str:
    """Run `run_id` to its end; returns the final status ('skipped' if not claimable)."""
    try:
        spec = ctx.client.post(f"/api/worker/runs/{run_id}/claim", {"worker": ctx.name})
    except ApiError as exc:
        # Already claimed (a redelivered task), cancelled while queued, or not ours.
        log.info("run %s not claimed: %s", run_id, exc.detail)
        return "skipped"
    log.info("run %s claimed: plan %s on %s", run_id, spec["plan"], spec["drive"]["target_path"])
    control = _RunControl()
    try:
        with RunHeartbeat(ctx.client, run_id, control.update):
            status, error = _execute(ctx, spec, control)
    except ApiUnreachable as exc:
        # Nothing more can be reported; the api marks the run lost when heartbeats stop.
        log.error("run %s abandoned: %s", run_id, exc)
        return "lost"
    except Exception as exc:  # noqa: BLE001 - any bug must still end the run visibly
        log.exception("run %s failed unexpectedly", run_id)
        status, error = "failed", f"worker error: {exc.__class__.__name__}: {exc}"
    try:
        ctx.client.post(f"/api/worker/runs/{run_id}/finish", {"status": status, "error": error})
    except (ApiError, ApiUnreachable) as exc:
        log.error("could not report the end of run %s: %s", run_id, exc)
    log.info("run %s %s%s", run_id, status, f": {error}" if error else "")
    return status


def _execute(
    ctx: WorkerContext, spec: dict[str, Any], control: _RunControl
) -> tuple[str, str | None]:
    drive = spec["drive"]
    try:
        target = HeldTarget.acquire(
            drive["target_path"],
            registered_serial=drive["serial"],
            sandbox=ctx.sandbox,
            data_dir=ctx.data_dir,
            destructive=spec["destructive"],
            confirmed_serial=spec["confirmed_serial"],
        )
    except InterlockError as exc:
        return "failed", f"safety interlock: {exc.message}"
    with target:
        return _execute_held(ctx, spec, control, target)


def _execute_held(
    ctx: WorkerContext, spec: dict[str, Any], control: _RunControl, target: HeldTarget
) -> tuple[str, str | None]:
    run_id = spec["run_id"]
    drive = spec["drive"]
    info = target.info
    too_far = span_refusal(spec["steps"], info.size_bytes, drive["target_path"])
    if too_far:
        return "failed", too_far
    if spec.get("resumed"):
        refusal = _resume_refusal(spec, info)
        if refusal:
            return "failed", refusal
    workdir = ctx.data_dir / "runs" / str(run_id)
    refused = _fio_refusal(ctx, spec, target, workdir)
    if refused:
        return "failed", refused
    changes_at_start = host_changes()
    environment = {
        "drive": drive_record(info),
        "host": {**host_info(ctx.fio_binary, info), "fio_nice": priority(ctx.fio_nice)},
        "worker": ctx.name,
        "target": target.record(),
        "host_changes": {"start": changes_at_start},
    }
    ctx.client.post(f"/api/worker/runs/{run_id}/environment", {"environment": environment})
    status, error = "done", None
    for step in spec["steps"]:
        if step["status"] != "pending":
            continue
        status, error = _execute_step(ctx, run_id, step, target, workdir, control)
        if status != "done":
            break
    if status != "done":
        _put_back_write_cache(ctx, run_id, target, workdir)
    after = smart(target.info)
    at_end: dict[str, Any] = {
        "host_changes": {"start": changes_at_start, "end": host_changes()},
    }
    if after is not None:
        at_end["smart_after"] = after
    ctx.client.post(f"/api/worker/runs/{run_id}/environment", {"environment": at_end})
    return status, error


def _put_back_write_cache(
    ctx: WorkerContext, run_id: int, target: HeldTarget, workdir: Path
) -> None:
    """A run that stops before its write-cache-restore step (failed, cancelled, the worker
    stopping) still puts the drive's write cache back, and says so in its environment."""
    try:
        target.verify("before putting the write cache back")
        done = restore_recorded(workdir / WRITE_CACHE_RECORD, target.info)
    except (InterlockError, StepError) as exc:
        log.error("run %s: the write cache was not put back: %s", run_id, exc)
        done = {"restored": False, "detail": str(exc)}
    if done is not None:
        log.info("run %s stopped early: write cache put back (%s)", run_id, done.get("detail"))
        try:
            ctx.client.post(
                f"/api/worker/runs/{run_id}/environment",
                {"environment": {"write_cache_put_back": done}},
            )
        except ApiError as exc:
            log.warning("run %s: could not record the write cache put back: %s", run_id, exc)


def _fio_refusal(
    ctx: WorkerContext, spec: dict[str, Any], target: HeldTarget, workdir: Path
) -> str | None:
    """fio's own verdict on every job file the run still has to run, and whether it can use
    their ioengines on this bench, before anything is written: a parameter fio rejects must
    not fail the run after the purge and the fill."""
    job_files = [
        pair
        for step in spec["steps"]
        if step["status"] == "pending" and step.get("job_file")
        for pair in job_files_as_run(
            step["name"], step["kind"], step.get("params") or {}, target.job_file(step["job_file"])
        )
    ]
    workdir.mkdir(parents=True, exist_ok=True)
    bad = fio_check.rejected(job_files, fio_binary=ctx.fio_binary, workdir=workdir)
    if bad is not None:
        return f"step {bad.step}: fio rejects its job file ({bad.message}); nothing was written"
    for engine in sorted({e for _name, job in job_files for e in fio_check.ioengines(job)}):
        problem = fio_check.engine_problem(engine, fio_binary=ctx.fio_binary, workdir=workdir)
        if problem:
            return (
                f"fio cannot do I/O with ioengine {engine} on this bench ({problem}): queue the "
                "plan again with another ioengine (libaio); nothing was written"
            )
    return None


def _resume_refusal(spec: dict[str, Any], info: DeviceInfo) -> str | None:
    """A resumed run keeps its completed steps only if nothing wrote to the drive since the run
    stopped (the api sends the drive's state as the worker last reported it)."""
    done = [s for s in spec["steps"] if s["status"] == "done"]
    last = done[-1]["name"]
    seen = spec.get("resume_fingerprint")
    if not seen:
        return (
            f"resume refused: the state of {info.path} when the run stopped is unknown (the "
            "worker did not report it), so writes since then cannot be ruled out; queue the "
            "plan again"
        )
    if not unchanged_since(seen, write_fingerprint(info)):
        return (
            f"resume refused: {info.path} was written after the run stopped, so the "
            f"completed steps (up to {last}) no longer describe the drive; queue the plan "
            "again"
        )
    return None


# Steps that write to the drive: the target is verified again immediately before each.
WRITING_KINDS = frozenset(
    {"fio", "fio-rounds", "fio-points", "purge", "trim", "write-cache", "file-copy"}
)


def _execute_step(
    ctx: WorkerContext,
    run_id: int,
    step: dict[str, Any],
    target: HeldTarget,
    workdir: Path,
    control: _RunControl,
) -> tuple[str, str | None]:
    name = step["name"]
    if step["kind"] in WRITING_KINDS:
        try:
            target.verify(f"before step {name}")
        except InterlockError as exc:
            return "failed", f"safety interlock: {exc.message}"
    if step.get("job_file"):
        step = {**step, "job_file": target.job_file(step["job_file"])}
    reply = ctx.client.post(
        f"/api/worker/runs/{run_id}/steps/{step['id']}/start",
        {"command": None, "job_file": step.get("job_file")},
    )
    control.update(reply)
    if control.cancel.is_set():
        return "cancelled", None
    if ctx.shutdown.is_set():
        return "failed", f"the worker stopped before step {name}"
    runner = RUNNERS.get(step["kind"])
    if runner is None:
        report = StepReport(
            "failed",
            error=f"step kind {step['kind']} is not supported by "
            "this worker: update drivelab on the bench",
        )
    else:
        sc = StepContext(
            client=ctx.client,
            run_id=run_id,
            step=step,
            target=target,
            workdir=workdir,
            spool_dir=ctx.data_dir / "spool",
            should_stop=lambda: control.cancel.is_set() or ctx.shutdown.is_set(),
            on_control=control.update,
            fio_binary=ctx.fio_binary,
            fio_nice=ctx.fio_nice,
        )
        try:
            report = runner(sc)
        except InterlockError as exc:
            report = StepReport("failed", error=f"safety interlock: {exc.message}")
    ctx.client.post(
        f"/api/worker/runs/{run_id}/steps/{step['id']}/finish",
        report.body(write_fingerprint(target.info)),
    )
    if report.status == "done":
        if step["kind"] == "idle":
            # Drives are swapped while a plan idles: say so now, not at the next write.
            try:
                target.verify(f"at the end of step {name}")
            except InterlockError as exc:
                return "failed", f"safety interlock: {exc.message}"
        return "done", None
    if report.status == "cancelled" or control.cancel.is_set():
        if control.cancel.is_set():
            return "cancelled", None
        return "failed", f"the worker stopped during step {name}"
    if report.error and report.error.startswith("safety interlock: "):
        return "failed", report.error
    return "failed", f"step {name}: {report.error}"
