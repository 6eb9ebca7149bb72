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

from worker.client import ApiClient, ApiError, ApiUnreachable, SampleOutbox
from worker.fio.runner import FioOutcome, run_fio
from worker.hostinfo import host_info
from worker.safety import InterlockError, check_target

log = logging.getLogger("drivelab.worker")


@dataclass
class WorkerContext:
    client: ApiClient
    bench: str
    data_dir: Path
    sandbox: Path
    fio_binary: str = "fio"
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
    run_id = spec["run_id"]
    drive = spec["drive"]
    try:
        info = check_target(
            drive["target_path"],
            registered_target=drive["target_path"],
            registered_serial=drive["serial"],
            sandbox=ctx.sandbox,
            data_dir=ctx.data_dir,
            destructive=spec["destructive"],
            confirmed_serial=spec["confirmed_serial"],
        )
    except InterlockError as exc:
        return "failed", f"safety interlock: {exc.message}"
    environment = {
        "drive": info.as_dict(),
        "host": host_info(ctx.fio_binary, info),
        "worker": ctx.name,
    }
    ctx.client.post(f"/api/worker/runs/{run_id}/environment", {"environment": environment})
    workdir = ctx.data_dir / "runs" / str(run_id)
    for step in spec["steps"]:
        if step["status"] != "pending":
            continue
        reply = ctx.client.post(
            f"/api/worker/runs/{run_id}/steps/{step['id']}/start", {"command": None}
        )
        control.update(reply)
        if control.cancel.is_set():
            return "cancelled", None
        if ctx.shutdown.is_set():
            return "failed", f"the worker stopped before step {step['name']}"
        if step["kind"] != "fio":
            _finish_step(
                ctx,
                run_id,
                step,
                {"status": "failed", "error": f"step kind {step['kind']} not supported"},
            )
            return "failed", f"step {step['name']}: kind {step['kind']} is not supported"
        outcome = _run_fio_step(ctx, run_id, step, workdir, control)
        if outcome.stopped:
            _finish_step(ctx, run_id, step, _step_report(outcome, "cancelled"))
            if control.cancel.is_set():
                return "cancelled", None
            return "failed", f"the worker stopped during step {step['name']}"
        if not outcome.ok:
            message = _fio_error(outcome)
            _finish_step(ctx, run_id, step, {**_step_report(outcome, "failed"), "error": message})
            return "failed", f"step {step['name']}: {message}"
        _finish_step(ctx, run_id, step, _step_report(outcome, "done"))
    return "done", None


def _run_fio_step(
    ctx: WorkerContext, run_id: int, step: dict[str, Any], workdir: Path, control: _RunControl
) -> FioOutcome:
    outbox = SampleOutbox(
        ctx.client,
        run_id,
        step["id"],
        control.update,
        spool=ctx.data_dir / "spool" / f"run-{run_id}-step-{step['id']}.jsonl",
    )
    outbox.start()
    try:
        outcome = run_fio(
            step["job_file"],
            workdir,
            f"{step['idx']:02d}-{step['name']}",
            on_samples=lambda samples, progress: outbox.add(
                [s.as_dict() for s in samples], progress
            ),
            should_stop=lambda: (
                control.cancel.is_set() or ctx.shutdown.is_set() or outbox.error is not None
            ),
            fio_binary=ctx.fio_binary,
        )
    finally:
        outbox.close()
    if outbox.error is not None:
        if isinstance(outbox.error, ApiError) and outbox.error.status == 409:
            control.cancel.set()  # the run ended on the api side (e.g. marked lost)
        else:
            raise ApiUnreachable(str(outbox.error))
    return outcome


def _step_report(outcome: FioOutcome, status: str) -> dict[str, Any]:
    return {"status": status, "output": outcome.final_text, "stderr": outcome.stderr[-20000:]}


def _fio_error(outcome: FioOutcome) -> str:
    lines = [ln for ln in outcome.stderr.strip().splitlines() if ln.strip()]
    detail = "; ".join(lines[-5:]) if lines else "no message on stderr"
    if outcome.final_text is None and outcome.returncode == 0:
        return f"fio printed no JSON result ({detail})"
    return f"fio exited with status {outcome.returncode}: {detail}"


def _finish_step(
    ctx: WorkerContext, run_id: int, step: dict[str, Any], report: dict[str, Any]
) -> None:
    ctx.client.post(f"/api/worker/runs/{run_id}/steps/{step['id']}/finish", report)
