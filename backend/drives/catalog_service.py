"""The drive-model catalog: products (vendor, model, capacity point) and their specifications.

Two entries are the same product when vendor and model match ignoring case and spacing and the
capacities are within 0.5% of each other, so a nominal "2000 GB" finds the model registered
with the exact 2000398934016 bytes a drive reports. Simulated drives' models (sparse files, loop
devices) live in the same table with `simulated` set; the catalog never edits them and never
hands them out as products, so a simulated drive's results cannot end up under a real product.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BeforeValidator, WithJsonSchema
from pydantic_core import PydanticCustomError
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from backend.core.errors import Conflict, NotFound
from backend.drives.models import DriveModel
from backend.drives.service import capacity_label, not_embargoed, under_embargo
from backend.prices.models import Price

# Capacities within this fraction of each other are the same capacity point.
CAPACITY_TOLERANCE = 0.005
MIN_CAPACITY = 10**9  # 1 GB: anything smaller is almost surely a size typed in GB, not bytes
MAX_CAPACITY = 10**15  # 1 PB
TEXT_LIMITS = {
    "vendor": 80,
    "model": 160,
    "interface": 40,
    "form_factor": 40,
    "controller": 120,
    "nand": 120,
    "dram": 80,
}
SPEC_FIELDS = ("interface", "form_factor", "controller", "nand", "dram")


class DuplicateModel(Conflict):
    """A product that is already in the catalog; the body names the existing id."""

    def __init__(self, existing: DriveModel) -> None:
        super().__init__(
            f"{existing.vendor} {existing.model} {capacity_label(existing.capacity_bytes)} is "
            f"already in the catalog as model {existing.id}: edit it with "
            f"PATCH /api/models/{existing.id} instead of adding it again",
            field="model",
        )
        self.existing_id = existing.id

    def body(self) -> dict[str, object]:
        return {**super().body(), "existing_id": self.existing_id}


# --- checks (pure) -------------------------------------------------------------------------


def clean_text(value: object, name: str, *, required: bool = True) -> str | None:
    """Trimmed text with inner runs of spaces collapsed; ValueError saying what to fix."""
    if value is None:
        if required:
            raise ValueError(f"{name} is required")
        return None
    if not isinstance(value, str):
        raise ValueError(f"{name} must be text, not {type(value).__name__}")
    text = " ".join(value.split())
    if not text:
        if required:
            raise ValueError(f"{name} is empty: give the {name.replace('_', ' ')}")
        return None
    limit = TEXT_LIMITS.get(name, 300)
    if len(text) > limit:
        raise ValueError(f"{name} is {len(text)} characters long: shorten it to {limit} at most")
    return text


def text_schema(name: str, *, required: bool = True, limit: int | None = None) -> WithJsonSchema:
    """What clean_text accepts, for the OpenAPI document: text of at most the limit, with
    something besides spaces when required."""
    schema: dict[str, Any] = {"type": "string", "maxLength": limit or TEXT_LIMITS.get(name, 300)}
    if required:
        schema.update(minLength=1, pattern=r"\S")
    return WithJsonSchema(schema)


def not_null(*names: str) -> Callable[[dict[str, Any]], None]:
    """A model's json_schema_extra: these optional fields may be left out, never sent null (a
    PATCH refuses null for them), so their schema has no null branch."""

    def strip(schema: dict[str, Any]) -> None:
        for name in names:
            prop = schema.get("properties", {}).get(name, {})
            branches = [b for b in prop.get("anyOf", []) if b.get("type") != "null"]
            if len(branches) == 1:
                del prop["anyOf"]
                prop.update(branches[0])
            elif branches:
                prop["anyOf"] = branches

    return strip


def optional_text_schema(name: str) -> WithJsonSchema:
    """What clean_text(required=False) accepts: text of at most the limit, or null."""
    limit = TEXT_LIMITS.get(name, 300)
    return WithJsonSchema({"anyOf": [{"type": "string", "maxLength": limit}, {"type": "null"}]})


def check_capacity_bytes(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(
            "capacity_bytes must be a whole number of bytes, e.g. 1000000000000 for 1 TB"
        )
    if value < MIN_CAPACITY:
        raise ValueError(
            f"capacity_bytes {value} is less than 1 GB: give the capacity in bytes "
            "(decimal, as printed on the drive), e.g. 500000000000 for 500 GB"
        )
    if value > MAX_CAPACITY:
        raise ValueError(f"capacity_bytes {value} is more than 1 PB: check the number")
    return value


def checked(check: Callable[..., Any], *args: Any, **kwargs: Any) -> BeforeValidator:
    """A pydantic validator from a plain check: its ValueError message is the error shown."""

    def validate(value: Any) -> Any:
        try:
            return check(value, *args, **kwargs)
        except ValueError as exc:
            raise PydanticCustomError("invalid_value", str(exc)) from None

    return BeforeValidator(validate)


def same_capacity(a: int, b: int) -> bool:
    return abs(a - b) <= CAPACITY_TOLERANCE * max(a, b)


def name_key(vendor: str, model: str) -> tuple[str, str]:
    return (" ".join(vendor.split()).lower(), " ".join(model.split()).lower())


def match_model(
    candidates: Iterable[DriveModel],
    vendor: str,
    model: str,
    capacity_bytes: int,
    *,
    exclude_id: int | None = None,
) -> DriveModel | None:
    """The candidate that is the same product (see the module docstring), the closest in
    capacity when several are."""
    key = name_key(vendor, model)
    best: DriveModel | None = None
    for m in candidates:
        if m.id == exclude_id or name_key(m.vendor, m.model) != key:
            continue
        if not same_capacity(m.capacity_bytes, capacity_bytes):
            continue
        if best is None or abs(m.capacity_bytes - capacity_bytes) < abs(
            best.capacity_bytes - capacity_bytes
        ):
            best = m
    return best


# --- queries -------------------------------------------------------------------------------


def list_models(
    session: Session, *, simulated: bool | None = None, hide_embargoed: bool = False
) -> list[DriveModel]:
    query = select(DriveModel).order_by(
        DriveModel.vendor, DriveModel.model, DriveModel.capacity_bytes
    )
    if simulated is not None:
        query = query.where(DriveModel.simulated == simulated)
    if hide_embargoed:
        query = query.where(not_embargoed())
    return list(session.scalars(query))


def get_model(session: Session, model_id: int, *, hide_embargoed: bool = False) -> DriveModel:
    found = session.get(DriveModel, model_id)
    if found is None or (hide_embargoed and under_embargo(found)):
        raise NotFound(
            f"drive model {model_id} does not exist: see GET /api/models", field="model_id"
        )
    return found


def find_model(
    session: Session,
    vendor: str,
    model: str,
    capacity_bytes: int,
    *,
    exclude_id: int | None = None,
) -> DriveModel | None:
    v, m = name_key(vendor, model)
    candidates = session.scalars(
        select(DriveModel).where(
            func.lower(DriveModel.vendor) == v, func.lower(DriveModel.model) == m
        )
    )
    return match_model(candidates, vendor, model, capacity_bytes, exclude_id=exclude_id)


def create_model(session: Session, fields: dict[str, Any]) -> DriveModel:
    """Add a product to the catalog (never a simulated one: those come with their drive)."""
    existing = find_model(session, fields["vendor"], fields["model"], fields["capacity_bytes"])
    if existing is not None:
        raise DuplicateModel(existing)
    dm = DriveModel(**fields, simulated=False)
    _flush_or_conflict(session, dm)
    return dm


def update_model(session: Session, model_id: int, changes: dict[str, Any]) -> DriveModel:
    dm = get_model(session, model_id)
    if set(changes) <= {"embargo_until"}:
        # An embargo is not a catalog edit: simulated drives' models may have one too.
        dm.embargo_until = changes.get("embargo_until", dm.embargo_until)
        session.flush()
        return dm
    if dm.simulated:
        raise Conflict(
            f"model {dm.id} ({dm.vendor} {dm.model}) belongs to a simulated drive: the catalog "
            "edits real products only; re-register the simulated drive to rename it",
            field="model_id",
        )
    merged = {
        "vendor": dm.vendor,
        "model": dm.model,
        "capacity_bytes": dm.capacity_bytes,
        **changes,
    }
    existing = find_model(
        session, merged["vendor"], merged["model"], merged["capacity_bytes"], exclude_id=dm.id
    )
    if existing is not None:
        raise DuplicateModel(existing)
    if not same_capacity(merged["capacity_bytes"], dm.capacity_bytes):
        priced = session.scalar(select(func.count()).where(Price.model_id == dm.id))
        if priced:
            raise Conflict(
                f"model {dm.id} has {priced} prices for {capacity_label(dm.capacity_bytes)}: "
                "another capacity is another model, add it with POST /api/models (a correction "
                "within 0.5%, e.g. nominal to exact bytes, is allowed)",
                field="capacity_bytes",
            )
    for key, value in changes.items():
        setattr(dm, key, value)
    _flush_or_conflict(session, dm)
    return dm


def _flush_or_conflict(session: Session, dm: DriveModel) -> None:
    """Flush in a savepoint: a concurrent insert of the same product becomes a 409."""
    try:
        with session.begin_nested():
            session.add(dm)
            session.flush()
    except IntegrityError:
        existing = session.scalar(
            select(DriveModel).where(
                DriveModel.vendor == dm.vendor,
                DriveModel.model == dm.model,
                DriveModel.capacity_bytes == dm.capacity_bytes,
            )
        )
        if existing is None:
            raise
        raise DuplicateModel(existing) from None
