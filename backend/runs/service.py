"""Runs as reviewers see them: queue, read, cancel, samples, job files."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session, selectinload

from backend.audit import service as audit
from backend.core.db import utcnow
from backend.core.deps import AppState, after_commit
from backend.core.errors import Conflict, InvalidParams, NotFound
from backend.core.events import has_listeners, lab_channel, publish, run_channel
from backend.drives.models import DriveModel, DriveSample
from backend.drives.service import drive_label, get_drive, not_embargoed, under_embargo
from backend.plans import fio_check
from backend.plans.base import (
    DriveContext,
    Plan,
    StepSpec,
    fio_args,
    human_bytes,
    job_files_as_run,
)
from backend.plans.catalog import compile_plan
from backend.pts.models import StepRound
from backend.results.models import Result, StepLatency
from backend.results.names import measure_name
from backend.runs import queue
from backend.runs.models import SAMPLE_COLUMNS, SAMPLE_ROWS, PackedSamples, Run, Sample, Step
from backend.runs.schemas import (
    AsSsdFindings,
    BurstsFindings,
    CdmFindings,
    DemandIntensityFindings,
    DropoffFindings,
    FileCopyFindings,
    FullStateFindings,
    HdTachFindings,
    JobOut,
    MixedFindings,
    ResultOut,
    RunCreate,
    RunOut,
    RunSummary,
    SampleOut,
    SlcFindings,
    StallsFindings,
    StepFindings,
    StepOut,
    ThermalFindings,
)
from backend.traces.models import Trace
from backend.traces.service import get_trace
from backend.users.models import User


def _run_query():  # type: ignore[no-untyped-def]
    return select(Run).options(
        selectinload(Run.drive).selectinload(DriveSample.model),
        selectinload(Run.drive).selectinload(DriveSample.bench),
    )


def get_run(
    session: Session, run_id: int, *, with_steps: bool = True, hide_embargoed: bool = False
) -> Run:
    """The run; with hide_embargoed (a viewer), runs of drives under embargo do not exist."""
    query = _run_query().where(Run.id == run_id)
    if with_steps:
        query = query.options(selectinload(Run.steps))
    run = session.scalar(query)
    if run is None or (hide_embargoed and under_embargo(run.drive.model)):
        raise NotFound(f"run {run_id} does not exist")
    return run


def run_visible(session: Session, run_id: int, *, hide_embargoed: bool) -> bool:
    """Whether the run exists for someone who (with hide_embargoed) does not see drives under
    embargo: one small query, for the event streams that ask at every event."""
    query = (
        select(Run.id)
        .join(DriveSample, DriveSample.id == Run.drive_id)
        .join(DriveModel, DriveModel.id == DriveSample.model_id)
        .where(Run.id == run_id)
    )
    if hide_embargoed:
        query = query.where(not_embargoed())
    return session.scalar(query) is not None


def compile_for_drive(
    session: Session, plan_key: str, params: dict[str, Any] | None, drive: DriveSample
) -> tuple[Plan, dict[str, Any], list[StepSpec]]:
    """Validate the params and compile the plan against the drive, as queueing does: (plan,
    params with every default filled in, steps). Raises InvalidParams naming the field."""
    ctx = DriveContext(
        target_path=drive.target_path,
        capacity_bytes=drive.model.capacity_bytes,
        serial=drive.serial,
        logical_sector=drive.logical_sector,
    )
    plan, parsed, steps = compile_plan(plan_key, params, ctx)
    for spec in steps:
        if spec.params.get("trace_id"):
            trace = get_trace(session, int(spec.params["trace_id"]))
            check_trace_fits(trace, ctx)
            # The worker checks it again against the size of the device it opens.
            spec.params["trace_end_bytes"] = trace.end_bytes
    return plan, parsed, steps


def check_trace_fits(trace: Trace, drive: DriveContext) -> None:
    """A trace replays at its own offsets, whatever the span: refused when the drive is too
    small for it or its lengths are not whole logical sectors of the drive (fio would fail
    with ENOSPC or EINVAL after the fill had written the drive)."""
    if trace.end_bytes is None or trace.align_bytes is None:
        raise InvalidParams(
            f"trace {trace.id} was uploaded before drivelab recorded how far a trace reaches, "
            "and it cannot be read again: upload it again (POST /api/traces)",
            field="params.trace_id",
        )
    if trace.end_bytes > drive.capacity_bytes:
        raise InvalidParams(
            f"trace {trace.id} reaches byte {trace.end_bytes} ({human_bytes(trace.end_bytes)}) "
            f"but the drive holds {drive.capacity_bytes} bytes "
            f"({human_bytes(drive.capacity_bytes)}): it was recorded on a larger device; "
            "replay it on a drive at least that large",
            field="params.trace_id",
        )
    if trace.align_bytes < drive.logical_sector:
        raise InvalidParams(
            f"trace {trace.id} has reads or writes of a multiple of {trace.align_bytes} bytes "
            f"only, and the drive's logical sector is {drive.logical_sector} bytes: direct I/O "
            "would fail; replay it on a drive with smaller sectors",
            field="params.trace_id",
        )


def _check_with_fio(steps: list[StepSpec]) -> None:
    """fio's own judgement of the job files, when fio is installed here (the worker asks it
    again before the run's first write in any case)."""
    fio = fio_check.fio_on_this_host()
    if fio is None:
        return
    job_files = [
        pair
        for s in steps
        if s.job_file
        for pair in job_files_as_run(s.name, s.kind, s.params, s.job_file)
    ]
    bad = fio_check.rejected(job_files, fio_binary=fio)
    if bad:
        raise InvalidParams(
            f"fio rejects the job file of step {bad.step}: {bad.message}; correct the plan's "
            "parameters",
            field="params",
        )


def create_run(session: Session, state: AppState, data: RunCreate, user: User | None) -> Run:
    """Queue the plan on the drive; with `repeat`, as the first run of a series of repeats."""
    if data.repeat is None:
        return queue_run(
            session, state, data.plan, data.drive_id, data.params, data.confirm_serial, user
        )
    from backend.runs import series  # the series queues its repeats through queue_run

    return series.start(session, state, data, user)


def queue_run(
    session: Session,
    state: AppState,
    plan_key: str,
    drive_id: int,
    given_params: dict[str, Any],
    confirm_serial: str | None,
    user: User | None,
    *,
    series_id: int | None = None,
    series_index: int | None = None,
) -> Run:
    drive = get_drive(session, drive_id)
    plan, params, steps = compile_for_drive(session, plan_key, given_params, drive)
    if plan.destructive and (confirm_serial or "").strip() != drive.serial:
        given = (confirm_serial or "").strip()
        problem = "is missing" if not given else f"{given!r} does not match this drive"
        raise InvalidParams(
            f"plan {plan.key} writes to drive #{drive.id} ({drive_label(drive)}) and erases what "
            f"is on it: confirm_serial {problem}; type the drive's serial to confirm",
            field="confirm_serial",
        )
    _check_with_fio(steps)
    queue.check_side_by_side(session, drive)
    queue.lock_drive(session, drive.id)
    run = Run(
        plan=plan.key,
        drive_id=drive.id,
        params=params,
        status="queued",
        confirmed_serial=(confirm_serial or "").strip() or None,
        created_by=user.id if user else None,
        # A series' next repeat goes ahead of the drive's other waiting runs: its repeats
        # follow one another, so that each starts from the state the one before left.
        queue_position=(
            queue.next_position(session, drive.id)
            if series_index is None or series_index == 1
            else queue.first_position(session, drive.id)
        ),
        series_id=series_id,
        series_index=series_index,
    )
    run.drive = drive
    run.steps = [
        Step(
            idx=i,
            kind=s.kind,
            name=s.name,
            params=s.params,
            job_file=s.job_file,
            estimate_s=s.estimate_s,
            status="pending",
        )
        for i, s in enumerate(steps)
    ]
    session.add(run)
    session.flush()
    if plan.destructive:
        audit.record(
            session,
            "run.queued",
            user or audit.SYSTEM,
            drive=drive,
            run_id=run.id,
            subject=f"run {run.id}",
            details={"plan": plan.key, "confirmed_serial": run.confirmed_serial},
        )
    # Runs for a busy drive wait in order; the drive's next run goes to its bench now.
    queue.dispatch_next(session, state, drive.id)
    run_id = run.id
    after_commit(
        session,
        lambda: publish(state.redis, lab_channel(state.channels), "runs", {"run_id": run_id}),
    )
    return run


def _results_by_step(session: Session, run_ids: list[int]) -> dict[int, list[ResultOut]]:
    rows = session.execute(
        select(Result.step_id, Result.metric, Result.value, Result.unit)
        .where(Result.run_id.in_(run_ids))
        .order_by(Result.id)
    )
    out: dict[int, list[ResultOut]] = defaultdict(list)
    for step_id, metric, value, unit in rows:
        if step_id is None:
            continue
        out[step_id].append(
            ResultOut(metric=metric, name=measure_name(metric), value=value, unit=unit)
        )
    return out


def run_serial(run: Run) -> str | None:
    """The serial a run was measured on: the one typed to confirm it, else the one its worker
    recorded (when the environment is loaded); None: the drive's own. An old run keeps its
    serial after the drive sample is edited."""
    if run.confirmed_serial:
        return run.confirmed_serial
    env = run.__dict__.get("environment")  # not loaded for lists: not fetched for this
    drive = env.get("drive") if isinstance(env, dict) else None
    serial = drive.get("serial") if isinstance(drive, dict) else None
    return serial if isinstance(serial, str) and serial else None


def summary(run: Run, waiting_position: int | None = None) -> RunSummary:
    return RunSummary(
        id=run.id,
        plan=run.plan,
        drive_id=run.drive_id,
        drive_label=drive_label(run.drive, run_serial(run)),
        simulated=run.drive.model.simulated,
        emulated=run.drive.model.emulated,
        embargoed=under_embargo(run.drive.model),
        status=run.status,  # type: ignore[arg-type]
        progress=run.progress,
        error=run.error,
        waiting_position=waiting_position,
        created_at=run.created_at,
        started_at=run.started_at,
        finished_at=run.finished_at,
        series_id=run.series_id,
        series_index=run.series_index,
    )


def findings(analysis: dict[str, Any] | None) -> StepFindings | None:
    """The step's findings from its stored analysis, None when it has none to show."""
    if not analysis:
        return None
    out = StepFindings()
    if "step_downs" in analysis:
        out.hdtach = HdTachFindings.model_validate(analysis)
    if analysis.get("stalls"):
        out.stalls = StallsFindings.model_validate(analysis["stalls"])
    if analysis.get("dropoff"):
        out.dropoff = DropoffFindings.model_validate(analysis["dropoff"])
    if analysis.get("cdm"):
        out.cdm = CdmFindings.model_validate(analysis["cdm"])
    if analysis.get("asssd"):
        out.asssd = AsSsdFindings.model_validate(analysis["asssd"])
    if analysis.get("thermal"):
        out.thermal = ThermalFindings.model_validate(analysis["thermal"])
    if analysis.get("slc"):
        out.slc = SlcFindings.model_validate(analysis["slc"])
    if analysis.get("bursts"):
        out.bursts = BurstsFindings.model_validate(analysis["bursts"])
    if analysis.get("mixed"):
        out.mixed = MixedFindings.model_validate(analysis["mixed"])
    if analysis.get("file_copy"):
        out.file_copy = FileCopyFindings.model_validate(analysis["file_copy"])
    di = (analysis.get("pts") or {}).get("di")
    if di and di.get("finding"):
        out.demand_intensity = DemandIntensityFindings.model_validate(di)
    if analysis.get("fullstate"):
        out.fullstate = FullStateFindings.model_validate(analysis["fullstate"])
    found = (
        out.hdtach, out.stalls, out.dropoff, out.cdm, out.thermal, out.slc, out.bursts, out.mixed,
        out.file_copy, out.asssd, out.fullstate,
    )  # fmt: skip
    return out if any(found) or out.demand_intensity else None


def run_out(session: Session, run: Run) -> RunOut:
    results = _results_by_step(session, [run.id])
    steps = [
        StepOut(
            id=s.id,
            idx=s.idx,
            kind=s.kind,
            name=s.name,
            label=str(s.params.get("label", s.name)),
            params=s.params,
            status=s.status,  # type: ignore[arg-type]
            progress=s.progress,
            estimate_s=s.estimate_s,
            started_at=s.started_at,
            finished_at=s.finished_at,
            error=s.error,
            stderr=s.stderr,
            results=results.get(s.id, []),
            findings=findings(s.analysis),
        )
        for s in run.steps
    ]
    place = queue.wait_positions(session, [run.id]).get(run.id)
    return RunOut(
        **summary(run, place).model_dump(),
        params=run.params,
        environment=run.environment,
        steps=steps,
    )


def list_runs(
    session: Session,
    *,
    limit: int,
    drive_id: int | None,
    status: str | None,
    hide_embargoed: bool = False,
) -> list[RunSummary]:
    query = _run_query().order_by(Run.id.desc()).limit(limit)
    if hide_embargoed:
        query = (
            query.join(DriveSample, DriveSample.id == Run.drive_id)
            .join(DriveModel, DriveModel.id == DriveSample.model_id)
            .where(not_embargoed())
        )
    if drive_id is not None:
        query = query.where(Run.drive_id == drive_id)
    if status is not None:
        query = query.where(Run.status == status)
    runs = list(session.scalars(query))
    places = queue.wait_positions(session, [r.id for r in runs])
    return [summary(r, places.get(r.id)) for r in runs]


def waiting_by_drive(session: Session) -> dict[int, list[int]]:
    """drive id -> the ids of the runs waiting for it (queued, not yet handed to the bench),
    in the order they will run."""
    rows = session.execute(
        select(Run.drive_id, Run.id)
        .where(Run.status == "queued", Run.dispatched_at.is_(None))
        .order_by(Run.drive_id, Run.queue_position, Run.id)
    )
    out: dict[int, list[int]] = defaultdict(list)
    for drive_id, run_id in rows:
        out[drive_id].append(run_id)
    return dict(out)


def publish_run(session: Session, state: AppState, run_id: int) -> None:
    """After the commit, publish the run as GET /api/runs/{id} returns it (to its viewers) and
    that it changed (to the lab)."""

    def send() -> None:
        channel = run_channel(state.channels, run_id)
        # Reading and serialising the whole run costs milliseconds: only when someone watches.
        if has_listeners(state.redis, channel):
            with state.sessions() as s:
                data = run_out(s, get_run(s, run_id)).model_dump(mode="json")
            publish(state.redis, channel, "run", data)
        publish(state.redis, lab_channel(state.channels), "runs", {"run_id": run_id})

    after_commit(session, send)


def publish_progress(session: Session, state: AppState, run: Run, step: Step) -> None:
    """After the commit, publish how far the run and its step are: a `progress` event, which
    viewers apply to the run they hold. Sample batches and heartbeats move progress every
    second of every running run; rebuilding the whole run for them cost the api most of its
    CPU with many watched runs (and took it from fio on a bench that runs the api too)."""
    run_id = run.id
    data = {
        "run_id": run_id,
        "progress": run.progress,
        "step_id": step.id,
        "step_progress": step.progress,
    }

    def send() -> None:
        publish(state.redis, run_channel(state.channels, run_id), "progress", data)
        publish(state.redis, lab_channel(state.channels), "runs", {"run_id": run_id})

    after_commit(session, send)


def cancel_run(session: Session, state: AppState, run_id: int, user: User | None = None) -> Run:
    """Cancel a waiting run or stop a running one, recorded in the audit log."""
    run = get_run(session, run_id)
    was = run.status
    if run.status == "queued":
        # Never started: nothing to stop. The worker's claim will find it cancelled.
        run.status = "cancelled"
        run.finished_at = utcnow()
        for step in run.steps:
            if step.status == "pending":
                step.status = "cancelled"
        session.flush()
        from backend.runs import series

        series.after_run(session, state, run)
        queue.dispatch_next(session, state, run.drive_id)
    elif run.status == "running":
        # The worker learns it from the reply to its next post (within a second) and stops fio.
        run.cancel_requested = True
    else:
        raise Conflict(f"run {run.id} is already {run.status}: there is nothing to cancel")
    audit.record(
        session,
        "run.cancelled",
        user or audit.SYSTEM,
        drive=run.drive,
        run_id=run.id,
        subject=f"run {run.id}",
        details={"plan": run.plan, "was": was},
    )
    publish_run(session, state, run.id)
    return run


def run_step(session: Session, run_id: int, step_id: int) -> Step:
    """A step of the run by its id. Step ids are global (unique across runs, as steps[].id of
    GET /api/runs/{id} gives them), not a step's position in its run: a 404 for a number that
    is a position says which step sits there."""
    step = session.scalar(select(Step).where(Step.id == step_id, Step.run_id == run_id))
    if step is not None:
        return step
    at = session.execute(
        select(Step.id, Step.name).where(Step.run_id == run_id, Step.idx == step_id)
    ).first()
    hint = (
        f": step ids are global, not positions (steps[].id of GET /api/runs/{run_id}); "
        f"its step at index {step_id} is step {at.id} ({at.name})"
        if at is not None
        else f": see steps[].id of GET /api/runs/{run_id}"
    )
    raise NotFound(f"run {run_id} has no step {step_id}{hint}", field="step_id")


def list_samples(
    session: Session, run_id: int, step_id: int | None, *, hide_embargoed: bool = False
) -> list[SampleOut]:
    get_run(session, run_id, with_steps=False, hide_embargoed=hide_embargoed)
    # Through the run's steps: the primary key (step_id, t_ms) finds each step's rows; run_id
    # has only a BRIN index (runs' rows are stored in the order they arrive).
    steps = select(Step.id).where(Step.run_id == run_id).scalar_subquery()
    c = SAMPLE_ROWS.c
    query = select(*(c[name] for name in SAMPLE_COLUMNS)).where(
        c.step_id.in_(steps), c.run_id == run_id
    )
    if step_id is not None:
        query = query.where(c.step_id == step_id)
    query = query.order_by(c.step_id, c.t_ms)
    return [
        sample_out(dict(zip(SAMPLE_COLUMNS, row, strict=True))) for row in session.execute(query)
    ]


def sample_rates(row: dict[str, Any]) -> dict[str, Any]:
    """Rates of one stored interval, as SampleOut's fields: MB/s = bytes / dt / 10^6,
    IOPS = ios / dt. A plain dict: the live stream sends thousands of them per batch."""
    secs = row["dt_ms"] / 1000.0
    return {
        "step_id": row["step_id"],
        "t": row["t_ms"] / 1000.0,
        "dt": secs,
        "read_mbps": row["read_bytes"] / secs / 1e6,
        "write_mbps": row["write_bytes"] / secs / 1e6,
        "read_iops": row["read_ios"] / secs,
        "write_iops": row["write_ios"] / secs,
        "read_lat_mean_us": row["read_lat_mean_us"],
        "write_lat_mean_us": row["write_lat_mean_us"],
        "read_lat_p99_us": row["read_lat_p99_us"],
        "write_lat_p99_us": row["write_lat_p99_us"],
        "read_lat_max_us": row.get("read_lat_max_us"),
        "write_lat_max_us": row.get("write_lat_max_us"),
        "temp_c": temp_c(row.get("temp_dc")),
    }


def temp_c(temp_dc: int | None) -> float | None:
    """A stored temperature (tenths of a degree) in °C; None (no sensor) stays None."""
    return None if temp_dc is None else temp_dc / 10.0


def sample_out(row: dict[str, Any]) -> SampleOut:
    return SampleOut(**sample_rates(row))


def fio_command(job_name: str, status_interval_ms: int = 1000) -> str:
    return " ".join(("fio", *fio_args(status_interval_ms), f"{job_name}.fio"))


def list_jobs(session: Session, run_id: int, *, hide_embargoed: bool = False) -> list[JobOut]:
    run = get_run(session, run_id, hide_embargoed=hide_embargoed)
    return [
        JobOut(
            step_id=s.id,
            idx=s.idx,
            name=s.name,
            job_file=s.job_file,
            command=s.command
            or fio_command(s.name, int(s.params.get("status_interval_ms") or 1000)),
        )
        for s in run.steps
        if s.job_file
    ]


def step_logs(
    session: Session, run_id: int, step_id: int, *, hide_embargoed: bool = False
) -> dict[str, Any]:
    get_run(session, run_id, with_steps=False, hide_embargoed=hide_embargoed)
    step = run_step(session, run_id, step_id)
    if step.logs is None:
        raise NotFound(
            f"step {step_id} ({step.name}) has no logs: it is {step.status}, and only "
            "steps with a log window, purge, TRIM and steady-state steps have them"
        )
    return step.logs


def step_output(
    session: Session, run_id: int, step_id: int, *, hide_embargoed: bool = False
) -> str:
    get_run(session, run_id, with_steps=False, hide_embargoed=hide_embargoed)
    step = run_step(session, run_id, step_id)
    if step.output is None:
        raise NotFound(f"step {step_id} ({step.name}) has no fio output yet: it is {step.status}")
    return step.output


def move_run(session: Session, state: AppState, run_id: int, position: int) -> Run:
    run = get_run(session, run_id)
    queue.move(session, run, position)
    publish_run(session, state, run.id)
    return run


RESUMABLE = ("cancelled", "failed", "lost")


def resume_run(session: Session, state: AppState, run_id: int, user: User | None = None) -> Run:
    """Queue an interrupted run again from its first unfinished step.

    The steps already done (purge, preconditioning...) are kept; the worker refuses to resume
    if anything wrote to the drive since the last of them ended. The interrupted step starts
    over, so its partial samples, PTS rounds and results are removed. The resume is recorded
    in the run's environment.
    """
    run = get_run(session, run_id)
    if run.status not in RESUMABLE:
        raise Conflict(
            f"run {run.id} is {run.status}: only a cancelled, failed or lost run can be resumed"
        )
    done = [s for s in run.steps if s.status == "done"]
    todo = [s for s in run.steps if s.status != "done"]
    if not done:
        raise Conflict(f"run {run.id} has no completed step to resume from: queue it again")
    if not todo:
        raise Conflict(f"run {run.id} has no step left to run")
    queue.lock_drive(session, run.drive_id)
    # The drive as the worker left it when the run stopped (the interrupted step may have
    # written too): the resumed run goes on only if the drive still looks exactly like this.
    reported = [
        (s.finished_at, s.fingerprint) for s in run.steps if s.fingerprint and s.finished_at
    ]
    last_seen = max(reported, key=lambda pair: pair[0])[1] if reported else None
    redo = [s.id for s in todo]
    session.execute(delete(Sample).where(Sample.step_id.in_(redo)))
    session.execute(delete(PackedSamples).where(PackedSamples.step_id.in_(redo)))
    session.execute(delete(Result).where(Result.step_id.in_(redo)))
    # A PTS step's rounds are stored as each ends: the redone step's start again at round 1
    # (a round already stored is kept as sent once, so the old ones would stand for the new).
    session.execute(delete(StepRound).where(StepRound.step_id.in_(redo)))
    session.execute(delete(StepLatency).where(StepLatency.step_id.in_(redo)))
    for step in todo:
        step.status = "pending"
        step.progress = 0.0
        step.error = step.output = step.stderr = None
        step.logs = step.fingerprint = None
        step.started_at = step.finished_at = None
    history = list(run.environment.get("resumes", []))
    history.append(
        {
            "at": utcnow().isoformat(),
            "previous_status": run.status,
            "previous_error": run.error,
            "from_step": todo[0].idx,
            "from_step_name": todo[0].name,
            "fingerprint": last_seen,
        }
    )
    run.environment = {**run.environment, "resumes": history}
    audit.record(
        session,
        "run.resumed",
        user or audit.SYSTEM,
        drive=run.drive,
        run_id=run.id,
        subject=f"run {run.id}",
        details={"plan": run.plan, "from_step": todo[0].name},
    )
    run.status = "queued"
    run.error = None
    run.finished_at = None
    run.cancel_requested = False
    run.dispatched_at = None
    # First in line: a resumed run continues before runs queued after it.
    run.queue_position = (
        min(
            [r.queue_position for r in queue.waiting_runs(session, run.drive_id)]
            + [run.queue_position + 1]
        )
        - 1
    )
    session.flush()
    queue.dispatch_next(session, state, run.drive_id)
    publish_run(session, state, run.id)
    return run
