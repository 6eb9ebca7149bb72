"""`/api/prices`: price observations with their sources, CSV import/export, the price table."""

from __future__ import annotations

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from backend.core.deps import CurrentUser, Reviewer, SessionDep
from backend.core.errors import InvalidParams
from backend.core.jsonbody import FiniteJSONRoute
from backend.drives.models import DriveModel
from backend.drives.service import sees_embargoed
from backend.prices import schemas, service
from backend.prices.models import Price

router = APIRouter(tags=["prices"], route_class=FiniteJSONRoute)


def price_out(p: Price, m: DriveModel) -> schemas.PriceOut:
    return schemas.PriceOut(
        id=p.id,
        model_id=m.id,
        vendor=m.vendor,
        model=m.model,
        capacity_bytes=p.capacity_bytes,
        retailer=p.retailer,
        price=p.price,
        currency=p.currency,
        observed_on=p.observed_on,
        source=p.source,
        created_at=p.created_at,
    )


@router.post("/api/prices", response_model=schemas.PriceOut, status_code=201)
def add_price(data: schemas.PriceCreate, session: SessionDep, _user: Reviewer) -> schemas.PriceOut:
    """Record a price seen at a retailer on a day, with its source. Earlier observations stay:
    the price table uses the latest one per model, capacity and retailer."""
    return price_out(*service.add_price(session, data))


@router.patch("/api/prices/{price_id:int}", response_model=schemas.PriceOut)
def update_price(
    price_id: int, data: schemas.PriceUpdate, session: SessionDep, user: Reviewer
) -> schemas.PriceOut:
    """Correct a price observation (retailer, price, currency, day, source). The audit log
    records what changed, from what."""
    return price_out(*service.update_price(session, price_id, data, user))


@router.delete("/api/prices/{price_id:int}", status_code=204)
def delete_price(price_id: int, session: SessionDep, user: Reviewer) -> None:
    """Remove a price observation entered by mistake (the audit log keeps what it said).
    A price that changed is a new observation (POST), not an edit: history stays."""
    service.delete_price(session, price_id, user)


@router.get("/api/prices", response_model=list[schemas.PriceOut])
def list_prices(
    session: SessionDep,
    user: CurrentUser,
    model_id: int | None = Query(None, description="Only this drive model's prices."),
    limit: int = Query(1000, ge=1, le=10000),
) -> list[schemas.PriceOut]:
    """Price observations, newest first."""
    return [
        price_out(p, m)
        for p, m in service.list_prices(
            session, model_id=model_id, limit=limit, hide_embargoed=not sees_embargoed(user)
        )
    ]


@router.post(
    "/api/prices/import",
    response_model=schemas.ImportResult,
    openapi_extra={
        "requestBody": {
            "content": {"text/csv": {"schema": {"type": "string"}}},
            "required": True,
        }
    },
)
async def import_prices(
    request: Request, session: SessionDep, _user: Reviewer
) -> schemas.ImportResult:
    """Import prices from a CSV file sent as the raw body, with the header
    `vendor,model,capacity_gb,retailer,price,currency,observed_on,source`.

    capacity_gb is decimal gigabytes as printed on the drive; a row's model is matched by
    vendor, model and capacity and added to the catalog when missing. Every row is checked
    first: if any is bad, nothing is imported and the 422 lists each bad row by its line
    number (`errors`). Rows identical to a stored observation are counted as duplicates and
    not stored again, so the export of GET /api/prices.csv imports back unchanged."""
    body = bytearray()
    async for chunk in request.stream():
        body.extend(chunk)
        if len(body) > service.MAX_IMPORT_BYTES:
            raise InvalidParams(
                f"the file is larger than {service.MAX_IMPORT_BYTES // 2**20} MiB: split it",
                field="body",
            )
    try:
        text = bytes(body).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidParams(
            f"the file is not UTF-8 text (byte {exc.start}): save it as UTF-8 CSV", field="body"
        ) from None
    return await run_in_threadpool(service.import_csv, session, text)


@router.get(
    "/api/prices.csv",
    response_class=Response,
    responses={200: {"content": {"text/csv": {"schema": {"type": "string"}}}}},
)
def export_prices(session: SessionDep, user: CurrentUser) -> Response:
    """Every price observation as CSV, in the columns POST /api/prices/import reads."""
    return Response(
        service.export_csv(session, hide_embargoed=not sees_embargoed(user)),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="drivelab-prices.csv"'},
    )


@router.get("/api/prices/table", response_model=schemas.PriceTable)
def price_table(
    session: SessionDep,
    user: CurrentUser,
    currency: str = Query(
        "USD",
        description="ISO 4217 code; only prices in it count.",
        json_schema_extra={"pattern": "^[A-Z]{3}$"},  # checked below, with a clearer message
    ),
) -> schemas.PriceTable:
    """The price table of a review: capacity classes (a model goes to the nearest one), each
    model's latest price per retailer, its lowest current price and price per decimal GB."""
    try:
        code = schemas.check_currency(currency)
    except ValueError as exc:
        raise InvalidParams(str(exc), field="currency") from None
    return service.price_table(session, code, hide_embargoed=not sees_embargoed(user))
