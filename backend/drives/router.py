from __future__ import annotations

from fastapi import APIRouter, Response
from pydantic_core import to_json
from sqlalchemy.orm import Session

from backend.audit import service as audit
from backend.benches.service import ONLINE_WITHIN, get_bench_by_name, is_online
from backend.core.db import utcnow
from backend.core.deps import CurrentUser, Reviewer, SessionDep, StateDep, after_commit
from backend.core.errors import Conflict, InvalidParams, NotFound
from backend.core.events import visibility_changed
from backend.core.jsonbody import FiniteJSONRoute
from backend.drives import registration, service
from backend.drives.models import DriveSample
from backend.drives.schemas import BenchRef, DriveCreate, DriveModelOut, DriveOut, DriveUpdate
from backend.runs import queue
from backend.runs import service as runs_service

router = APIRouter(prefix="/api/drives", tags=["drives"], route_class=FiniteJSONRoute)


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
        emulated=m.emulated,
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


def drive_list_json(session: Session, *, hide: bool) -> bytes:
    """The JSON of GET /api/drives: what `drive_out` makes of each drive, from plain rows (one
    query), written as DriveOut's JSON (its fields in order) without making models of them:
    loading 500 drives as ORM objects and then as models was most of the answer's time."""
    active = queue.active_runs(session)
    waiting = runs_service.waiting_by_drive(session)
    now = utcnow()
    out = []
    for r in service.drive_rows(session, hide_embargoed=hide):
        embargo = r.embargo_until
        out.append(
            {
                "id": r.id,
                "serial": r.serial,
                "firmware": r.firmware,
                "target_path": r.target_path,
                "simulated": r.simulated,
                "emulated": r.emulated,
                "label": service.label_of(r.vendor, r.model, r.capacity_bytes, r.serial),
                "short_name": r.short_name,
                "bench": {
                    "id": r.bench_id,
                    "name": r.bench_name,
                    "online": r.last_seen_at is not None and now - r.last_seen_at < ONLINE_WITHIN,
                },
                "model": {
                    "id": r.model_id,
                    "vendor": r.vendor,
                    "model": r.model,
                    "capacity_bytes": r.capacity_bytes,
                    "interface": r.interface,
                    "controller": r.controller,
                    "nand": r.nand,
                    "dram": r.dram,
                    "embargo_until": embargo,
                },
                "active_run_id": active.get(r.id),
                "waiting_run_ids": waiting.get(r.id) or [],
                "embargoed": embargo is not None and embargo > now,
            }
        )
    return to_json(out)


@router.get("", response_model=list[DriveOut])
def list_drives(session: SessionDep, user: CurrentUser) -> Response:
    """Drive samples with their model, capacity, bench and the run using them now (for a
    viewer, without drives whose model is under embargo)."""
    body = drive_list_json(session, hide=not service.sees_embargoed(user))
    return Response(body, media_type="application/json")


@router.get("/{drive_id}", response_model=DriveOut)
def get_drive(drive_id: int, session: SessionDep, user: CurrentUser) -> DriveOut:
    drive = service.get_drive(session, drive_id, hide_embargoed=not service.sees_embargoed(user))
    waiting = runs_service.waiting_by_drive(session).get(drive_id)
    return drive_out(drive, queue.active_runs(session).get(drive_id), waiting)


@router.post("", response_model=DriveOut, status_code=201)
def add_drive(data: DriveCreate, session: SessionDep, user: Reviewer) -> DriveOut:
    """Register a drive sample: a whole block device or a file in the bench's sandbox, as the
    bench's worker reports it (GET /api/benches/{bench}/devices). Refused: a target or serial
    the bench does not report, the disk the system runs from, a disk in use."""
    bench = get_bench_by_name(session, data.bench)
    if bench is None:
        raise NotFound(
            f"bench {data.bench!r} does not exist: start its worker first", field="bench"
        )
    service.check_target_path(data.target_path)  # a name fio would misread: said first
    entry = registration.check(bench, data.target_path, data.serial)
    registration.check_flag(entry, data.simulated)
    simulated = registration.simulated(entry)
    emulated = bool(entry.get("emulated"))
    model = service.get_or_create_model(
        session,
        vendor=data.vendor,
        model=data.model,
        capacity_bytes=data.capacity_bytes or int(entry.get("size_bytes") or 0),
        interface=data.interface,
        simulated=simulated,
        emulated=emulated,
    )
    if (model.simulated, model.emulated) != (simulated, emulated):
        kind = registration.kind(model.simulated, model.emulated)
        raise Conflict(
            f"model {model.vendor} {model.model} is the model of {kind}, but "
            f"bench {bench.name} reports {data.target_path} as "
            f"{registration.kind(simulated, emulated)}: give this drive a model name of its own",
            field="model",
        )
    drive = service.register_drive(
        session,
        bench=bench,
        model=model,
        serial=str(entry["serial"]),
        target_path=data.target_path,
        firmware=data.firmware if data.firmware is not None else entry.get("firmware"),
        logical_sector=data.logical_sector or int(entry.get("logical_sector") or 512),
    )
    if data.short_name and data.short_name.strip():
        drive.short_name = data.short_name.strip()
    out = service.get_drive(session, drive.id)
    audit.record(
        session,
        "drive.registered",
        user,
        drive=out,
        subject=f"drive {drive.id} at {data.target_path} on bench {bench.name}"[:200],
        details={"serial": drive.serial, "target_path": data.target_path, "bench": bench.name},
    )
    return drive_out(out, None)


@router.patch("/{drive_id}", response_model=DriveOut)
def edit_drive(
    drive_id: int, data: DriveUpdate, session: SessionDep, state: StateDep, user: Reviewer
) -> DriveOut:
    """Edit a drive sample; refused while a run uses the drive. A new serial, target or bench
    must be what that bench reports; each such change is in the audit log (old -> new)."""
    changes = data.model_dump(exclude_unset=True)
    if "model_id" in changes:  # another model, maybe under embargo: streams check again
        after_commit(session, lambda: visibility_changed(state.redis, state.channels))
    before = service.get_drive(session, drive_id)
    old = {
        "serial": before.serial,
        "target_path": before.target_path,
        "bench": before.bench.name,
    }
    moved = {k: v for k, v in changes.items() if k in old and v is not None and v != old[k]}
    if "target_path" in moved:
        service.check_target_path(moved["target_path"])
    if moved:
        bench_name = moved.get("bench", old["bench"])
        bench = get_bench_by_name(session, bench_name)
        if bench is None:
            raise NotFound(f"bench {bench_name!r} does not exist", field="bench")
        target = moved.get("target_path", old["target_path"])
        entry = registration.check(bench, target, moved.get("serial", old["serial"]))
        reported = (registration.simulated(entry), bool(entry.get("emulated")))
        if reported != (before.model.simulated, before.model.emulated):
            raise InvalidParams(
                f"bench {bench.name} reports {target} as {registration.kind(*reported)}, but "
                f"drive {drive_id} is registered as "
                f"{registration.kind(before.model.simulated, before.model.emulated)}: "
                "register it as a drive of its own",
                field="target_path",
            )
        changes.pop("bench", None)
        if "bench" in moved:
            changes["bench_id"] = bench.id
    else:
        changes.pop("bench", None)
    drive = service.update_drive(session, drive_id, changes)
    if moved:
        audit.record(
            session,
            "drive.changed",
            user,
            drive=drive,
            subject=(
                f"drive {drive_id}: "
                + ", ".join(f"{k} {old[k]} -> {v}" for k, v in sorted(moved.items()))
            )[:200],
            details={k: {"old": old[k], "new": v} for k, v in moved.items()},
        )
    return drive_out(drive, queue.active_runs(session).get(drive_id))
