"""Drive models and samples: queries and registration."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import ColumnElement, Row, or_, select
from sqlalchemy.orm import Session, selectinload

from backend.benches.models import Bench
from backend.core.db import utcnow
from backend.core.errors import Conflict, InvalidParams, NotFound
from backend.drives.models import DriveModel, DriveSample
from backend.plans.base import target_path_problem

if TYPE_CHECKING:
    from backend.users.models import User


def capacity_label(n: int) -> str:
    """Decimal capacity as drive makers print it (1 TB = 10^12 bytes), one way on every page
    (frontend/src/lib/format-utils.ts formatCapacity is the same rule): GB below 1,000 GB,
    else TB; whole from 100, two decimals at most from 1 (1.92 TB, 15.36 TB), three
    significant digits below (a 256 MiB simulated drive: 0.268 GB)."""
    value, unit = (n / 10**12, "TB") if n >= 10**12 else (n / 10**9, "GB")
    if value >= 100:
        text = f"{value:.0f}"
    elif value >= 1:
        text = f"{value:.2f}".rstrip("0").rstrip(".")
    else:
        text = f"{value:.3g}"
    return f"{text} {unit}"


def drive_label(drive: DriveSample, serial: str | None = None) -> str:
    """The drive as `Vendor Model 1 TB (S/N ...)`, with its serial, or `serial` (what a run
    was measured on: the serial typed to confirm it, when the drive's has changed since)."""
    m = drive.model
    return label_of(m.vendor, m.model, m.capacity_bytes, serial or drive.serial)


def label_of(vendor: str, model: str, capacity_bytes: int, serial: str) -> str:
    return f"{vendor} {model} {capacity_label(capacity_bytes)} (S/N {serial})"


# --- embargo: until a model's embargo_until, viewers and shared links do not see it ---------


def sees_embargoed(user: User | None) -> bool:
    """Reviewers and admins see models under embargo (marked as such); viewers do not."""
    return user is not None and user.role in ("reviewer", "admin")


def under_embargo(model: DriveModel, now: datetime | None = None) -> bool:
    return embargoed_until(model.embargo_until, now)


def embargoed_until(embargo_until: datetime | None, now: datetime | None = None) -> bool:
    """A model whose embargo ends at `embargo_until` is under embargo now."""
    return embargo_until is not None and embargo_until > (now or utcnow())


def not_embargoed() -> ColumnElement[bool]:
    """SQL: the DriveModel in the query is not under embargo now."""
    return or_(DriveModel.embargo_until.is_(None), DriveModel.embargo_until <= utcnow())


def visible_drive_ids(session: Session, drive_ids: Iterable[int]) -> set[int]:
    """Those of the drives that exist and are not under embargo."""
    return set(
        session.scalars(
            select(DriveSample.id)
            .join(DriveModel, DriveModel.id == DriveSample.model_id)
            .where(DriveSample.id.in_(list(drive_ids)), not_embargoed())
        )
    )


def _drive_query():  # type: ignore[no-untyped-def]
    return select(DriveSample).options(
        selectinload(DriveSample.model), selectinload(DriveSample.bench)
    )


def get_drive(session: Session, drive_id: int, *, hide_embargoed: bool = False) -> DriveSample:
    drive = session.scalar(_drive_query().where(DriveSample.id == drive_id))
    if drive is None or (hide_embargoed and under_embargo(drive.model)):
        raise NotFound(f"drive {drive_id} does not exist: see GET /api/drives", field="drive_id")
    return drive


def drive_rows(
    session: Session, *, hide_embargoed: bool = False, drive_id: int | None = None
) -> list[Row[Any]]:
    """Every drive (or the one `drive_id`) with its model's and bench's columns, in one query
    of plain rows (the list of a lab's drives: loading 500 drives, models and benches as ORM
    objects took most of GET /api/drives)."""
    query = (
        select(
            DriveSample.id,
            DriveSample.serial,
            DriveSample.firmware,
            DriveSample.target_path,
            DriveSample.short_name,
            DriveModel.id.label("model_id"),
            DriveModel.vendor,
            DriveModel.model,
            DriveModel.capacity_bytes,
            DriveModel.interface,
            DriveModel.controller,
            DriveModel.nand,
            DriveModel.dram,
            DriveModel.embargo_until,
            DriveModel.simulated,
            DriveModel.emulated,
            Bench.id.label("bench_id"),
            Bench.name.label("bench_name"),
            Bench.last_seen_at,
        )
        .join(DriveModel, DriveModel.id == DriveSample.model_id)
        .join(Bench, Bench.id == DriveSample.bench_id)
        .order_by(DriveSample.id)
    )
    if hide_embargoed:
        query = query.where(not_embargoed())
    if drive_id is not None:
        query = query.where(DriveSample.id == drive_id)
    return list(session.execute(query))


def get_or_create_model(
    session: Session,
    *,
    vendor: str,
    model: str,
    capacity_bytes: int,
    interface: str | None = None,
    simulated: bool = False,
    emulated: bool = False,
) -> DriveModel:
    found = session.scalar(
        select(DriveModel).where(
            DriveModel.vendor == vendor,
            DriveModel.model == model,
            DriveModel.capacity_bytes == capacity_bytes,
        )
    )
    if found:
        return found
    dm = DriveModel(
        vendor=vendor,
        model=model,
        capacity_bytes=capacity_bytes,
        interface=interface,
        simulated=simulated,
        emulated=emulated,
    )
    session.add(dm)
    session.flush()
    return dm


def check_target_path(path: str) -> None:
    """A drive's target is one canonical absolute path, which the worker's interlock resolves
    and fio opens as it is (plans.base.target_path_problem)."""
    problem = target_path_problem(path)
    if problem:
        raise InvalidParams(
            f"target_path {path[:200]!r} cannot be used: {problem}. Register the drive by a "
            "stable absolute name, /dev/disk/by-id/... for a real drive",
            field="target_path",
        )


def register_drive(
    session: Session,
    *,
    bench: Bench,
    model: DriveModel,
    serial: str,
    target_path: str,
    firmware: str | None = None,
    logical_sector: int = 512,
    replace: bool = False,
) -> DriveSample:
    """Register (or update) the drive at `target_path` on `bench`.

    The drive already registered there is updated when it is the same drive (same serial). A
    drive with another serial at a registered path is another physical drive: it must not
    inherit the registered one's history, so it is refused, unless `replace` (drivelab's own
    simulated file, which `drivelab up` recreates)."""
    check_target_path(target_path)
    drive = session.scalar(
        select(DriveSample).where(
            DriveSample.bench_id == bench.id, DriveSample.target_path == target_path
        )
    )
    if drive is None:
        drive = DriveSample(
            bench_id=bench.id,
            target_path=target_path,
            model_id=model.id,
            serial=serial,
            firmware=firmware,
            logical_sector=logical_sector,
        )
        session.add(drive)
    else:
        if drive.serial != serial and not replace:
            registered = get_drive(session, drive.id)
            raise Conflict(
                f"drive {drive.id} ({drive_label(registered)}) is registered at {target_path} on "
                f"bench {bench.name} with serial {drive.serial}, not {serial}: if the drive "
                f"there was replaced, register the new one by its stable name "
                f"(/dev/disk/by-id/...) or first move drive {drive.id} elsewhere; if its serial "
                f"was mistyped, correct it with PATCH /api/drives/{drive.id}",
                field="target_path",
            )
        drive.model_id = model.id
        drive.serial = serial
        drive.firmware = firmware
        drive.logical_sector = logical_sector
    session.flush()
    return drive


def update_drive(session: Session, drive_id: int, changes: dict[str, Any]) -> DriveSample:
    from backend.runs import queue

    drive = get_drive(session, drive_id)
    if "short_name" in changes:
        # A name for charts changes nothing a run depends on.
        name = (changes["short_name"] or "").strip()
        changes["short_name"] = name or None
    busy = queue.active_runs(session).get(drive_id)
    if busy is not None and set(changes) - {"short_name"}:
        raise Conflict(
            f"drive {drive_id} is in use by run {busy}: edit it when the run has ended",
            field="drive_id",
        )
    if changes.get("target_path") is not None:
        check_target_path(changes["target_path"])
    if changes.get("logical_sector") not in (None, 512, 4096):
        raise InvalidParams("logical_sector is 512 or 4096", field="logical_sector")
    model_id = changes.get("model_id")
    if model_id is not None and session.get(DriveModel, model_id) is None:
        raise NotFound(
            f"drive model {model_id} does not exist: see GET /api/models", field="model_id"
        )
    for key, value in changes.items():
        if value is None and key not in ("firmware", "short_name"):
            continue
        setattr(drive, key, value)
    session.flush()
    session.expire(drive)
    return get_drive(session, drive_id)
