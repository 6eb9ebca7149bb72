from __future__ import annotations

from fastapi import APIRouter

from backend.benches.service import get_bench_by_name, is_online
from backend.core.deps import CurrentUser, Reviewer, SessionDep, StateDep, after_commit
from backend.core.errors import NotFound
from backend.core.events import visibility_changed
from backend.drives import service
from backend.drives.models import DriveSample
from backend.drives.schemas import BenchRef, DriveCreate, DriveModelOut, DriveOut, DriveUpdate
from backend.runs import queue
from backend.runs import service as runs_service

router = APIRouter(prefix="/api/drives", tags=["drives"])


def drive_out(
    drive: DriveSample, active_run_id: int | None, waiting: list[int] | None = None
) -> DriveOut:
    m = drive.model
    return DriveOut(
        id=drive.id,
        serial=drive.serial,
        firmware=drive.firmware,
        target_path=drive.target_path,
        simulated=m.simulated,
        label=service.drive_label(drive),
        short_name=drive.short_name,
        bench=BenchRef(id=drive.bench.id, name=drive.bench.name, online=is_online(drive.bench)),
        model=DriveModelOut(
            id=m.id,
            vendor=m.vendor,
            model=m.model,
            capacity_bytes=m.capacity_bytes,
            interface=m.interface,
            controller=m.controller,
            nand=m.nand,
            dram=m.dram,
            embargo_until=m.embargo_until,
        ),
        active_run_id=active_run_id,
        waiting_run_ids=waiting or [],
        embargoed=service.under_embargo(m),
    )


@router.get("", response_model=list[DriveOut])
def list_drives(session: SessionDep, user: CurrentUser) -> list[DriveOut]:
    """Drive samples with their model, capacity, bench and the run using them now (for a
    viewer, without drives whose model is under embargo)."""
    active = queue.active_runs(session)
    waiting = runs_service.waiting_by_drive(session)
    hide = not service.sees_embargoed(user)
    drives = service.list_drives(session, hide_embargoed=hide)
    return [drive_out(d, active.get(d.id), waiting.get(d.id)) for d in drives]


@router.get("/{drive_id}", response_model=DriveOut)
def get_drive(drive_id: int, session: SessionDep, user: CurrentUser) -> DriveOut:
    drive = service.get_drive(session, drive_id, hide_embargoed=not service.sees_embargoed(user))
    waiting = runs_service.waiting_by_drive(session).get(drive_id)
    return drive_out(drive, queue.active_runs(session).get(drive_id), waiting)


@router.post("", response_model=DriveOut, status_code=201)
def add_drive(data: DriveCreate, session: SessionDep, _user: Reviewer) -> DriveOut:
    """Register a drive sample (a whole block device, or a file in the bench's sandbox)."""
    bench = get_bench_by_name(session, data.bench)
    if bench is None:
        raise NotFound(
            f"bench {data.bench!r} does not exist: start its worker first", field="bench"
        )
    model = service.get_or_create_model(
        session,
        vendor=data.vendor,
        model=data.model,
        capacity_bytes=data.capacity_bytes,
        interface=data.interface,
        simulated=data.simulated,
    )
    drive = service.register_drive(
        session,
        bench=bench,
        model=model,
        serial=data.serial,
        target_path=data.target_path,
        firmware=data.firmware,
        logical_sector=data.logical_sector,
    )
    if data.short_name and data.short_name.strip():
        drive.short_name = data.short_name.strip()
    return drive_out(service.get_drive(session, drive.id), None)


@router.patch("/{drive_id}", response_model=DriveOut)
def edit_drive(
    drive_id: int, data: DriveUpdate, session: SessionDep, state: StateDep, _user: Reviewer
) -> DriveOut:
    """Edit a drive sample; refused while a run uses the drive."""
    changes = data.model_dump(exclude_unset=True)
    if "model_id" in changes:  # another model, maybe under embargo: streams check again
        after_commit(session, lambda: visibility_changed(state.redis, state.channels))
    drive = service.update_drive(session, drive_id, changes)
    return drive_out(drive, queue.active_runs(session).get(drive_id))
