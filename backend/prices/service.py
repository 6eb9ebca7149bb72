"""Prices: observations with their source, the CSV import and export, the review price table.

History is kept: every observation is a row of its own and nothing overwrites one. The current
price of a model at a retailer is its latest observation there (by date, then by entry).

The first half of this module is pure (CSV parsing and checks, capacity classes, $/GB, the
table), tested without a database; the second half runs the queries.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import TypeVar

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.audit import service as audit
from backend.core.errors import InvalidParams, NotFound
from backend.drives import catalog_service
from backend.drives.models import DriveModel
from backend.drives.service import capacity_label, not_embargoed
from backend.prices import schemas
from backend.prices.models import Price
from backend.prices.schemas import CSV_COLUMNS, GB
from backend.users.models import User

MAX_IMPORT_BYTES = 5 * 1024 * 1024
T = TypeVar("T")
MAX_IMPORT_ROWS = 20_000


class InvalidCsv(InvalidParams):
    """A CSV file that cannot be imported; lists every bad row by its line number."""

    def __init__(self, errors: list[tuple[int, list[str]]], rows: int | None = None) -> None:
        self.errors = errors
        listed = " | ".join(f"line {line}: {'; '.join(problems)}" for line, problems in errors)
        if rows is None:
            head = "the file cannot be imported"
        else:
            head = f"{len(errors)} of {rows} price rows are invalid"
        super().__init__(f"{head}, nothing was imported: {listed}", field="body")

    def body(self) -> dict[str, object]:
        errors = [{"line": line, "problems": problems} for line, problems in self.errors]
        return {**super().body(), "errors": errors}


@dataclass(frozen=True)
class PriceRow:
    """One valid line of a price CSV."""

    line: int
    vendor: str
    model: str
    capacity_bytes: int
    retailer: str
    price: Decimal
    currency: str
    observed_on: date
    source: str


def parse_price_csv(text: str) -> list[PriceRow]:
    """Every row of a price CSV, checked; InvalidCsv listing each bad line if any is bad."""
    rows, errors, count = read_price_csv(text)
    if errors:
        raise InvalidCsv(errors, rows=count)
    return rows


def read_price_csv(text: str) -> tuple[list[PriceRow], list[tuple[int, list[str]]], int]:
    """(valid rows, (line, problems) of each bad row, number of rows) of a price CSV; a bad
    header, an empty file or one with no rows raise InvalidCsv at once.

    Line numbers are the file's: the header is line 1, and a row is numbered by the line it
    starts on (a quoted field may span lines)."""
    reader = csv.reader(io.StringIO(text.removeprefix("\ufeff"), newline=""))
    try:
        header = next(reader, None)
    except csv.Error as exc:
        raise InvalidCsv([(1, [f"unreadable header: {exc}"])]) from None
    expected = ",".join(CSV_COLUMNS)
    if header is None or not any(h.strip() for h in header):
        raise InvalidCsv([(1, [f"the file is empty: its first line must be {expected}"])])
    names = [h.strip().lower() for h in header]
    problems = []
    missing = [c for c in CSV_COLUMNS if c not in names]
    unknown = [n for n in names if n not in CSV_COLUMNS]
    doubled = sorted({n for n in names if names.count(n) > 1})
    if missing:
        problems.append(f"the header lacks {', '.join(missing)}")
    if unknown:
        problems.append(f"unknown column(s) {', '.join(unknown)}")
    if doubled:
        problems.append(f"column(s) named twice: {', '.join(doubled)}")
    if problems:
        raise InvalidCsv([(1, [*problems, f"the header must be {expected}"])])
    index = {name: names.index(name) for name in CSV_COLUMNS}

    rows: list[PriceRow] = []
    errors: list[tuple[int, list[str]]] = []
    count = 0
    line = reader.line_num + 1
    while True:
        try:
            record = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            errors.append((line, [f"unreadable: {exc}"]))
            break
        start, line = line, reader.line_num + 1
        if not any(field.strip() for field in record):
            continue  # blank line
        count += 1
        if count > MAX_IMPORT_ROWS:
            raise InvalidCsv([(start, [f"more than {MAX_IMPORT_ROWS} rows: split the file"])])
        if len(record) != len(names):
            errors.append(
                (
                    start,
                    [
                        f"{len(record)} fields where the header has {len(names)} (a field "
                        "holding a comma must be in double quotes)"
                    ],
                )
            )
            continue
        row, row_problems = check_row(start, {c: record[i] for c, i in index.items()})
        if row is None:
            errors.append((start, row_problems))
        else:
            rows.append(row)
    if count == 0:
        raise InvalidCsv([(2, ["the file has a header but no price rows"])])
    return rows, errors, count


def check_row(line: int, values: dict[str, str]) -> tuple[PriceRow | None, list[str]]:
    """One row's fields, checked; (row, []) or (None, what is wrong with each field)."""
    problems: list[str] = []

    def attempt(check: Callable[[str], T], name: str) -> T | None:
        try:
            return check(values[name].strip())
        except ValueError as exc:
            problems.append(str(exc))
            return None

    vendor = attempt(lambda v: catalog_service.clean_text(v, "vendor"), "vendor")
    model = attempt(lambda v: catalog_service.clean_text(v, "model"), "model")
    capacity = attempt(schemas.check_capacity_gb, "capacity_gb")
    retailer = attempt(schemas.check_retailer, "retailer")
    price = attempt(schemas.check_price, "price")
    currency = attempt(schemas.check_currency, "currency")
    observed_on = attempt(schemas.check_observed_on, "observed_on")
    source = attempt(schemas.check_source, "source")
    if (
        problems
        or vendor is None
        or model is None
        or capacity is None
        or retailer is None
        or price is None
        or currency is None
        or observed_on is None
        or source is None
    ):
        return None, problems
    row = PriceRow(line, vendor, model, capacity, retailer, price, currency, observed_on, source)
    return row, []


def write_price_csv(rows: Iterable[Sequence[object]]) -> str:
    """The CSV text of (vendor, model, capacity_bytes, retailer, price, currency, observed_on,
    source) tuples, in the import's columns."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for vendor, model, capacity, retailer, price, currency, observed_on, source in rows:
        assert isinstance(capacity, int) and isinstance(price, Decimal)
        writer.writerow(
            [
                vendor,
                model,
                schemas.format_capacity_gb(capacity),
                retailer,
                f"{price:.2f}",
                currency,
                observed_on.isoformat() if isinstance(observed_on, date) else observed_on,
                source or "",
            ]
        )
    return out.getvalue()


@dataclass(frozen=True)
class CapacityClass:
    label: str
    sizes_gb: tuple[int, ...]


# The capacity points review price tables group drives by.
CAPACITY_CLASSES = (
    CapacityClass("60/64 GB", (60, 64)),
    CapacityClass("120/128 GB", (120, 128)),
    CapacityClass("240/250/256 GB", (240, 250, 256)),
    CapacityClass("480/500/512 GB", (480, 500, 512)),
    CapacityClass("960/1000/1024 GB", (960, 1000, 1024)),
    CapacityClass("1920/2000/2048 GB", (1920, 2000, 2048)),
    CapacityClass("4000/4096 GB", (3840, 4000, 4096)),
    CapacityClass("7680/8000/8192 GB", (7680, 8000, 8192)),
)


def capacity_class(capacity_bytes: int) -> CapacityClass:
    """The class whose sizes are nearest on a log scale (a 750 GB drive is a 1 TB-class drive:
    it is 25% under 1000 GB but 46% over 512 GB). Ties go to the smaller class."""
    gb = capacity_bytes / GB

    def distance(c: CapacityClass) -> float:
        return min(abs(math.log(gb / size)) for size in c.sizes_gb)

    return min(CAPACITY_CLASSES, key=distance)


def price_per_gb(price: Decimal, capacity_bytes: int) -> Decimal:
    """Price per decimal gigabyte, to 4 decimals."""
    return (price * GB / capacity_bytes).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP)


@dataclass(frozen=True)
class Observation:
    id: int
    model_id: int
    vendor: str
    model: str
    capacity_bytes: int
    retailer: str
    price: Decimal
    currency: str
    observed_on: date
    source: str | None


def current_prices(observations: Iterable[Observation]) -> list[Observation]:
    """The latest observation per (model, capacity, retailer): by date, then by entry (id)."""
    latest: dict[tuple[int, int, str], Observation] = {}
    for o in observations:
        key = (o.model_id, o.capacity_bytes, o.retailer.lower())
        if key not in latest or (o.observed_on, o.id) > (
            latest[key].observed_on,
            latest[key].id,
        ):
            latest[key] = o
    return list(latest.values())


def build_table(
    observations: Iterable[Observation], currency: str, currencies: list[str]
) -> schemas.PriceTable:
    """The review price table: capacity classes, each model's current price per retailer, the
    lowest one and its $/GB. Only observations in `currency` count."""
    current = current_prices(o for o in observations if o.currency == currency)
    by_model: dict[tuple[int, int], list[Observation]] = {}
    for o in current:
        by_model.setdefault((o.model_id, o.capacity_bytes), []).append(o)
    by_class: dict[CapacityClass, list[schemas.TableRow]] = {}
    for (model_id, capacity), obs in by_model.items():
        prices = sorted(
            (
                schemas.CurrentPrice(
                    retailer=o.retailer,
                    price=o.price,
                    observed_on=o.observed_on,
                    source=o.source,
                    price_per_gb=price_per_gb(o.price, capacity),
                )
                for o in obs
            ),
            key=lambda p: (p.price, p.retailer.lower()),
        )
        first = obs[0]
        row = schemas.TableRow(
            model_id=model_id,
            vendor=first.vendor,
            model=first.model,
            capacity_bytes=capacity,
            capacity_label=capacity_label(capacity),
            prices=prices,
            lowest=prices[0],
            price_per_gb=prices[0].price_per_gb,
        )
        by_class.setdefault(capacity_class(capacity), []).append(row)
    classes = [
        schemas.CapacityClassOut(
            label=c.label,
            sizes_gb=list(c.sizes_gb),
            models=sorted(
                by_class[c], key=lambda r: (r.price_per_gb, r.vendor.lower(), r.model.lower())
            ),
        )
        for c in CAPACITY_CLASSES
        if c in by_class
    ]
    return schemas.PriceTable(currency=currency, currencies=currencies, classes=classes)


# --- queries -------------------------------------------------------------------------------


def _check_priceable(model: DriveModel, capacity_bytes: int) -> str | None:
    """Why a price cannot go to `model` at `capacity_bytes`, or None."""
    if model.simulated:
        return (
            f"model {model.id} ({model.vendor} {model.model}) belongs to a simulated drive: "
            "prices are for real products"
        )
    if not catalog_service.same_capacity(capacity_bytes, model.capacity_bytes):
        return (
            f"capacity {capacity_label(capacity_bytes)} is not model {model.id}'s "
            f"{capacity_label(model.capacity_bytes)}: each capacity is a model of its own; "
            "add it with POST /api/models"
        )
    return None


def add_price(session: Session, data: schemas.PriceCreate) -> tuple[Price, DriveModel]:
    model = catalog_service.get_model(session, data.model_id)
    capacity = data.capacity_bytes or model.capacity_bytes
    problem = _check_priceable(model, capacity)
    if problem:
        field = "model_id" if model.simulated else "capacity_bytes"
        raise InvalidParams(problem, field=field)
    price = Price(
        model_id=model.id,
        capacity_bytes=capacity,
        retailer=data.retailer,
        price=data.price,
        currency=data.currency,
        observed_on=data.observed_on,
        source=data.source,
    )
    session.add(price)
    session.flush()
    return price, model


def get_price(session: Session, price_id: int) -> tuple[Price, DriveModel]:
    row = session.execute(
        select(Price, DriveModel)
        .join(DriveModel, DriveModel.id == Price.model_id)
        .where(Price.id == price_id)
    ).first()
    if row is None:
        raise NotFound(f"no price observation {price_id}: see GET /api/prices")
    return row[0], row[1]


def _described(p: Price) -> dict[str, object]:
    return {
        "retailer": p.retailer,
        "price": str(p.price),
        "currency": p.currency,
        "observed_on": p.observed_on.isoformat(),
        "source": p.source,
    }


def update_price(
    session: Session, price_id: int, data: schemas.PriceUpdate, actor: User
) -> tuple[Price, DriveModel]:
    """Correct an observation; the audit log keeps what it said before."""
    price, model = get_price(session, price_id)
    before = _described(price)
    for field, value in data.model_dump(exclude_unset=True).items():
        if value is None:
            raise InvalidParams(f"{field} cannot be emptied: send a value", field=field)
        setattr(price, field, value)
    session.flush()
    after = _described(price)
    changed = {k: {"from": before[k], "to": after[k]} for k in before if before[k] != after[k]}
    if changed:
        audit.record(
            session,
            "price.corrected",
            actor,
            subject=f"price {price.id} of {model.vendor} {model.model}",
            details=changed,
        )
    return price, model


def delete_price(session: Session, price_id: int, actor: User) -> None:
    """Remove an observation entered by mistake; the audit log keeps what it said."""
    price, model = get_price(session, price_id)
    audit.record(
        session,
        "price.deleted",
        actor,
        subject=f"price {price.id} of {model.vendor} {model.model}",
        details=_described(price),
    )
    session.delete(price)


def list_prices(
    session: Session,
    *,
    model_id: int | None = None,
    limit: int = 1000,
    hide_embargoed: bool = False,
) -> list[tuple[Price, DriveModel]]:
    """Observations, newest first (by date, then by entry); with hide_embargoed, none of
    models under embargo."""
    query = (
        select(Price, DriveModel)
        .join(DriveModel, DriveModel.id == Price.model_id)
        .order_by(Price.observed_on.desc(), Price.id.desc())
        .limit(limit)
    )
    if model_id is not None:
        catalog_service.get_model(session, model_id, hide_embargoed=hide_embargoed)
        query = query.where(Price.model_id == model_id)
    if hide_embargoed:
        query = query.where(not_embargoed())
    return [(p, m) for p, m in session.execute(query)]


def _key(model_id: int, p: PriceRow | Price) -> tuple[object, ...]:
    return (
        model_id,
        p.capacity_bytes,
        p.retailer,
        Decimal(p.price).quantize(schemas.CENT),
        p.currency,
        p.observed_on,
        p.source,
    )


def import_csv(session: Session, text: str) -> schemas.ImportResult:
    """Check every row first, then store them all, or nothing (InvalidCsv lists each bad line).

    A row's model is matched by vendor, model and capacity (see catalog_service) and added to
    the catalog when missing. A row identical to a stored observation is not stored twice, so
    importing the same file again (or an export) changes nothing."""
    rows, errors, count = read_price_csv(text)
    models = catalog_service.list_models(session)
    matched: dict[int, DriveModel | None] = {}
    for row in rows:
        model = catalog_service.match_model(models, row.vendor, row.model, row.capacity_bytes)
        matched[row.line] = model
        if model is not None and (problem := _check_priceable(model, row.capacity_bytes)):
            errors.append((row.line, [problem]))
    if errors:
        raise InvalidCsv(sorted(errors), rows=count)

    known = {m.id for m in matched.values() if m is not None}
    seen = {
        _key(p.model_id, p) for p in session.scalars(select(Price).where(Price.model_id.in_(known)))
    }
    created: list[DriveModel] = []
    imported = duplicates = 0
    for row in rows:
        model = matched[row.line] or catalog_service.match_model(
            created, row.vendor, row.model, row.capacity_bytes
        )
        if model is None:
            model = DriveModel(
                vendor=row.vendor, model=row.model, capacity_bytes=row.capacity_bytes
            )
            session.add(model)
            session.flush()
            created.append(model)
        key = _key(model.id, row)
        if key in seen:
            duplicates += 1
            continue
        seen.add(key)
        session.add(
            Price(
                model_id=model.id,
                capacity_bytes=row.capacity_bytes,
                retailer=row.retailer,
                price=row.price,
                currency=row.currency,
                observed_on=row.observed_on,
                source=row.source,
            )
        )
        imported += 1
    session.flush()
    return schemas.ImportResult(
        rows=len(rows),
        imported=imported,
        duplicates=duplicates,
        created_models=[
            schemas.ModelRef(
                id=m.id, vendor=m.vendor, model=m.model, capacity_bytes=m.capacity_bytes
            )
            for m in created
        ],
    )


def export_csv(session: Session, *, hide_embargoed: bool = False) -> str:
    query = (
        select(
            DriveModel.vendor,
            DriveModel.model,
            Price.capacity_bytes,
            Price.retailer,
            Price.price,
            Price.currency,
            Price.observed_on,
            Price.source,
        )
        .join(DriveModel, DriveModel.id == Price.model_id)
        .order_by(
            DriveModel.vendor,
            DriveModel.model,
            Price.capacity_bytes,
            Price.retailer,
            Price.observed_on,
            Price.id,
        )
    )
    if hide_embargoed:
        query = query.where(not_embargoed())
    return write_price_csv(session.execute(query))


def price_table(
    session: Session, currency: str, *, hide_embargoed: bool = False
) -> schemas.PriceTable:
    currencies = sorted(session.scalars(select(Price.currency).distinct()))
    observations = observations_for(session, currency, hide_embargoed=hide_embargoed)
    return build_table(observations, currency, currencies)


def lowest_current_prices(
    session: Session, currency: str, model_ids: Iterable[int] | None = None
) -> dict[int, Observation]:
    """model id -> its lowest current price in `currency` (latest per retailer, then lowest)."""
    best: dict[int, Observation] = {}
    for o in current_prices(observations_for(session, currency, model_ids)):
        if o.model_id not in best or o.price < best[o.model_id].price:
            best[o.model_id] = o
    return best


def observations_for(
    session: Session,
    currency: str,
    model_ids: Iterable[int] | None = None,
    *,
    hide_embargoed: bool = False,
) -> list[Observation]:
    query = (
        select(Price, DriveModel)
        .join(DriveModel, DriveModel.id == Price.model_id)
        .where(Price.currency == currency, DriveModel.simulated.is_(False))
    )
    if hide_embargoed:
        query = query.where(not_embargoed())
    if model_ids is not None:
        query = query.where(DriveModel.id.in_(list(model_ids)))
    return [
        Observation(
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
        )
        for p, m in session.execute(query)
    ]
