from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter, Response
from pydantic_core import to_json
from sqlalchemy import Row
from sqlalchemy.orm import Session

from backend.audit import service as audit
from backend.benches.service import get_bench_by_name, seen_recently
from backend.core.db import utcnow
from backend.core.deps import CurrentUser, Reviewer, SessionDep, StateDep, after_commit
from backend.core.errors import Conflict, InvalidParams, NotFound
from backend.core.events import visibility_changed
from backend.core.jsonbody import FiniteJSONRoute
from backend.drives import registration, service
from backend.drives.schemas import DriveCreate, DriveOut, DriveUpdate
from backend.runs import queue
from backend.runs import service as runs_service

router = APIRouter(prefix="/api/drives", tags=["drives"], route_class=FiniteJSONRoute)


def drive_json(
    r: Row[Any], active_run_id: int | None, waiting: list[int] | None, now: datetime
) -> dict[str, Any]:
    """DriveOut's fields (in its order) of a drive row of `service.drive_rows`."""
    return {
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
            "online": seen_recently(r.last_seen_at, now),
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
            "embargo_until": r.embargo_until,
        },
        "active_run_id": active_run_id,
        "waiting_run_ids": waiting or [],
        "embargoed": service.embargoed_until(r.embargo_until, now),
    }


def drive_out(session: Session, drive_id: int) -> DriveOut:
    """One drive as GET /api/drives lists it (its row read after what the session changed)."""
    (row,) = service.drive_rows(session, drive_id=drive_id)
    active = queue.active_runs(session).get(drive_id)
    waiting = runs_service.waiting_by_drive(session).get(drive_id)
    return DriveOut.model_validate(drive_json(row, active, waiting, utcnow()))


def drive_list_json(session: Session, *, hide: bool) -> bytes:
    """The JSON of GET /api/drives, from plain rows (one query), written as DriveOut's JSON
    without making models of them: loading 500 drives as ORM objects and then as models was
    most of the answer's time."""
    active = queue.active_runs(session)
    waiting = runs_service.waiting_by_drive(session)
    now = utcnow()
    return to_json(
        [
            drive_json(r, active.get(r.id), waiting.get(r.id), now)
            for r in service.drive_rows(session, hide_embargoed=hide)
        ]
    )


@router.get("", response_model=list[DriveOut])
def list_drives(session: SessionDep, user: CurrentUser) -> Response:
    """Drive samples with their model, capacity, bench and the run using them now (for a
    viewer, without drives whose model is under embargo)."""
    body = drive_list_json(session, hide=not service.sees_embargoed(user))
    return Response(body, media_type="application/json")


@router.get("/{drive_id}", response_model=DriveOut)
def get_drive(drive_id: int, session: SessionDep, user: CurrentUser) -> DriveOut:
    service.get_drive(session, drive_id, hide_embargoed=not service.sees_embargoed(user))
    return drive_out(session, drive_id)


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
    return drive_out(session, out.id)


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
    return drive_out(session, drive_id)
