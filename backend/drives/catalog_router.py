"""`/api/models`: the catalog of drive models (products), listed, added and edited."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator

from backend.core.deps import CurrentUser, Reviewer, SessionDep, StateDep, after_commit
from backend.core.errors import InvalidParams
from backend.core.events import visibility_changed
from backend.core.jsonbody import FiniteJSONRoute
from backend.drives import catalog_service as service
from backend.drives.models import DriveModel
from backend.drives.service import capacity_label, sees_embargoed, under_embargo
from backend.results.schemas import FirmwareHistory

router = APIRouter(prefix="/api/models", tags=["catalog"], route_class=FiniteJSONRoute)


Vendor = Annotated[
    str, service.checked(service.clean_text, "vendor"), service.text_schema("vendor")
]
ModelName = Annotated[
    str, service.checked(service.clean_text, "model"), service.text_schema("model")
]
Capacity = Annotated[
    int,
    service.checked(service.check_capacity_bytes),
    Field(
        description="Decimal bytes as printed on the drive (1 TB = 10^12).",
        json_schema_extra={"minimum": service.MIN_CAPACITY, "maximum": service.MAX_CAPACITY},
    ),
]


Interface = Annotated[
    str | None,
    service.checked(service.clean_text, "interface", required=False),
    service.optional_text_schema("interface"),
    Field(description="e.g. SATA 6Gb/s, NVMe PCIe 4.0 x4"),
]
FormFactor = Annotated[
    str | None,
    service.checked(service.clean_text, "form_factor", required=False),
    service.optional_text_schema("form_factor"),
    Field(description="e.g. 2.5-inch 7mm, M.2 2280"),
]
Controller = Annotated[
    str | None,
    service.checked(service.clean_text, "controller", required=False),
    service.optional_text_schema("controller"),
    Field(description="e.g. Phison E18, Samsung MEX"),
]
Nand = Annotated[
    str | None,
    service.checked(service.clean_text, "nand", required=False),
    service.optional_text_schema("nand"),
    Field(description="e.g. Micron 176L TLC"),
]
Dram = Annotated[
    str | None,
    service.checked(service.clean_text, "dram", required=False),
    service.optional_text_schema("dram"),
    Field(description="e.g. 1 GB LPDDR4, none (HMB)"),
]


class ModelCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    vendor: Vendor
    model: ModelName
    capacity_bytes: Capacity
    interface: Interface = None
    form_factor: FormFactor = None
    controller: Controller = None
    nand: Nand = None
    dram: Dram = None


# The years the embargo check takes, for the OpenAPI document (1970 to 9989 here).
EMBARGO_YEARS = r"^(19[7-9][0-9]|[2-8][0-9]{3}|9[0-8][0-9]{2})-"


class ModelUpdate(BaseModel):
    """Only the fields sent change; a specification set to null is cleared."""

    model_config = ConfigDict(
        extra="forbid", json_schema_extra=service.not_null("vendor", "model", "capacity_bytes")
    )

    vendor: Vendor | None = None
    model: ModelName | None = None
    capacity_bytes: Capacity | None = None
    interface: Interface = None
    form_factor: FormFactor = None
    controller: Controller = None
    nand: Nand = None
    dram: Dram = None
    embargo_until: AwareDatetime | None = Field(
        None,
        # the years the check below takes (RFC 3339 text; the checks say the rest)
        json_schema_extra={
            "pattern": r"^(19[7-9][0-9]|[2-8][0-9]{3}|9[0-8][0-9]{2}|99[0-8][0-9])-"
        },
        description="Until then viewers and shared links do not see the model, its drives, "
        "runs or results; null lifts the embargo. Allowed on simulated drives' models too.",
    )

    @field_validator("embargo_until")
    @classmethod
    def _plausible(cls, value: datetime | None) -> datetime | None:
        if value is not None and not 1970 <= value.astimezone(UTC).year <= 9998:
            raise ValueError("embargo_until must be a moment between 1970 and 9998")
        return value


class CatalogModelOut(BaseModel):
    id: int
    vendor: str
    model: str
    capacity_bytes: int
    capacity_label: str
    interface: str | None
    form_factor: str | None
    controller: str | None
    nand: str | None
    dram: str | None
    simulated: bool = Field(description="The model of a simulated drive, not a product.")
    emulated: bool = Field(
        False, description="The model of a virtual bench's QEMU controller (simulated too)."
    )
    embargo_until: datetime | None
    embargoed: bool = Field(description="Under embargo now (only reviewers and admins see it).")
    created_at: datetime


def model_out(m: DriveModel) -> CatalogModelOut:
    return CatalogModelOut(
        id=m.id,
        vendor=m.vendor,
        model=m.model,
        capacity_bytes=m.capacity_bytes,
        capacity_label=capacity_label(m.capacity_bytes),
        interface=m.interface,
        form_factor=m.form_factor,
        controller=m.controller,
        nand=m.nand,
        dram=m.dram,
        simulated=m.simulated,
        emulated=m.emulated,
        embargo_until=m.embargo_until,
        embargoed=under_embargo(m),
        created_at=m.created_at,
    )


@router.get("", response_model=list[CatalogModelOut])
def list_models(
    session: SessionDep,
    user: CurrentUser,
    simulated: bool | None = Query(
        None, description="false: products only; true: simulated drives' models only."
    ),
) -> list[CatalogModelOut]:
    """Drive models by vendor, model and capacity, each labelled `simulated` or not (for a
    viewer, without models under embargo)."""
    hide = not sees_embargoed(user)
    return [
        model_out(m) for m in service.list_models(session, simulated=simulated, hide_embargoed=hide)
    ]


@router.get("/{model_id}", response_model=CatalogModelOut)
def get_model(model_id: int, session: SessionDep, user: CurrentUser) -> CatalogModelOut:
    return model_out(service.get_model(session, model_id, hide_embargoed=not sees_embargoed(user)))


@router.get("/{model_id}/firmware", response_model=FirmwareHistory)
def firmware_history(model_id: int, session: SessionDep, user: CurrentUser) -> FirmwareHistory:
    """Each figure of the model's drives by firmware version, with 95% intervals, and each
    version against the one before: improvement or regression only when significant."""
    from backend.results.firmware import history

    hide = not sees_embargoed(user)
    return FirmwareHistory.model_validate(history(session, model_id, hide_embargoed=hide))


@router.post(
    "",
    response_model=CatalogModelOut,
    status_code=201,
    responses={409: {"description": "Already in the catalog; `existing_id` names it."}},
)
def create_model(data: ModelCreate, session: SessionDep, _user: Reviewer) -> CatalogModelOut:
    """Add a product. The same vendor and model (ignoring case) at a capacity within 0.5% is a
    duplicate: 409 with the existing model's id."""
    return model_out(service.create_model(session, data.model_dump()))


@router.patch(
    "/{model_id}",
    response_model=CatalogModelOut,
    responses={409: {"description": "A duplicate, or the model of a simulated drive."}},
)
def update_model(
    model_id: int, data: ModelUpdate, session: SessionDep, state: StateDep, _user: Reviewer
) -> CatalogModelOut:
    """Edit a product's name, capacity or specifications, or set its embargo."""
    changes = data.model_dump(exclude_unset=True)
    if "embargo_until" in changes:
        # Open event streams stop showing the model's runs to viewers at their next event.
        after_commit(session, lambda: visibility_changed(state.redis, state.channels))
    for name in ("vendor", "model", "capacity_bytes"):
        if name in changes and changes[name] is None:
            raise InvalidParams(f"{name} cannot be null: leave it out to keep it", field=name)
    return model_out(service.update_model(session, model_id, changes))
