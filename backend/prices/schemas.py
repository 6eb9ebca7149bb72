"""Prices: request and response shapes, and the checks every price passes.

The checks are plain functions raising ValueError with a message that says what to fix; the
JSON api and the CSV import use the same ones, so a price is valid the same way everywhere.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, WithJsonSchema

from backend.drives.catalog_service import (
    MAX_CAPACITY,
    MIN_CAPACITY,
    check_capacity_bytes,
    checked,
    clean_text,
    not_null,
    text_schema,
)

CSV_COLUMNS = (
    "vendor",
    "model",
    "capacity_gb",
    "retailer",
    "price",
    "currency",
    "observed_on",
    "source",
)
MAX_PRICE = Decimal("9999999999.99")  # Numeric(12, 2)
CENT = Decimal("0.01")
FLOAT_SLACK = Decimal("0.000001")
FLOAT_RELATIVE = Decimal("1e-15")  # a few times a float's relative precision (2**-52)
# What the api promises to accept as a price, for the OpenAPI document: a number of cents
# above 0, at most MAX_PRICE (it also takes the same as text, e.g. from a form).
PRICE_SCHEMA = {
    "type": "number",
    "minimum": 0.01,
    "maximum": float(MAX_PRICE),
    "multipleOf": 0.01,
    "description": "Greater than 0, in cents (2 decimals at most), at most 9999999999.99.",
}
GB = 10**9
_CURRENCY = re.compile(r"[A-Z]{3}")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def check_retailer(value: object) -> str:
    text = clean_text(value, "retailer")
    assert text is not None
    if len(text) > 80:
        raise ValueError(f"retailer is {len(text)} characters long: shorten it to 80 at most")
    return text


def check_price(value: object) -> Decimal:
    if isinstance(value, bool) or value is None:
        raise ValueError("price is required: the amount paid, e.g. 109.99")
    try:
        amount = Decimal(str(value).strip())
    except InvalidOperation:
        raise ValueError(
            f"price {str(value)!r} is not a number: write it without a currency sign or "
            "thousands separators, e.g. 109.99"
        ) from None
    if not amount.is_finite():
        raise ValueError(f"price {str(value)!r} is not a number, e.g. 109.99")
    if amount <= 0:
        raise ValueError(f"price {str(value)!r} must be greater than 0")
    # Before rounding: 1e30 rounded to cents has more digits than Decimal holds (a 500).
    if amount > MAX_PRICE:
        raise ValueError(
            f"price {str(value)!r} is too large: at most {MAX_PRICE}; check the number"
        )
    cents = amount.quantize(CENT)
    if cents <= 0:
        raise ValueError(f"price {str(value)!r} must be at least 0.01")
    # A JSON number is a binary float: 1234567.89 may arrive as 1234567.8900000001. Within a
    # float's precision of a whole cent it is that cent; a text price must say it exactly.
    slack = FLOAT_SLACK + amount * FLOAT_RELATIVE if isinstance(value, float) else 0
    if abs(amount - cents) > slack:
        raise ValueError(f"price {str(value)!r} has more than 2 decimals: round it to cents")
    return cents


def check_currency(value: object) -> str:
    if not isinstance(value, str) or not _CURRENCY.fullmatch(value.strip()):
        raise ValueError(
            f"currency {value!r} must be an ISO 4217 code of 3 upper-case letters, "
            "e.g. USD, EUR, GBP"
        )
    return value.strip()


def latest_allowed_date() -> date:
    # One day of slack: a price seen "today" somewhere east of UTC is tomorrow's UTC date.
    return datetime.now(UTC).date() + timedelta(days=1)


def check_observed_on(value: object) -> date:
    if isinstance(value, datetime):
        value = value.date()
    if isinstance(value, date):
        day = value
    elif isinstance(value, str) and _ISO_DATE.fullmatch(value.strip()):
        try:
            day = date.fromisoformat(value.strip())
        except ValueError:
            raise ValueError(f"observed_on {value!r} is not a real date") from None
    else:
        raise ValueError(
            f"observed_on {value!r} is not a date: write it as YYYY-MM-DD, e.g. 2015-07-06"
        )
    if day > latest_allowed_date():
        raise ValueError(f"observed_on {day} is in the future: give the day the price was seen")
    return day


def check_source(value: object) -> str:
    if value is None or (isinstance(value, str) and not value.strip()):
        raise ValueError(
            "source is empty: give the URL of the page the price was taken from, or a "
            "citation (publication, title, date)"
        )
    if not isinstance(value, str):
        raise ValueError("source must be text: a URL or a citation")
    text = " ".join(value.split())
    if len(text) > 300:
        raise ValueError(f"source is {len(text)} characters long: shorten it to 300 at most")
    return text


def check_capacity_gb(value: object) -> int:
    """Decimal gigabytes (as printed on the drive) to bytes."""
    try:
        gb = Decimal(str(value).strip())
    except InvalidOperation:
        raise ValueError(
            f"capacity_gb {str(value)!r} is not a number: give decimal gigabytes as printed "
            "on the drive, e.g. 250, 1000, 2000"
        ) from None
    if not gb.is_finite() or gb <= 0:
        raise ValueError(f"capacity_gb {str(value)!r} must be a positive number of gigabytes")
    nbytes = gb * GB
    if nbytes != nbytes.to_integral_value():
        raise ValueError(
            f"capacity_gb {str(value)!r} is not a whole number of bytes: use at most 9 decimals"
        )
    try:
        return check_capacity_bytes(int(nbytes))
    except ValueError:
        raise ValueError(
            f"capacity_gb {str(value)!r} must be between 1 and 1000000 (decimal gigabytes)"
        ) from None


def check_optional_capacity(value: object) -> int | None:
    return None if value is None else check_capacity_bytes(value)


def format_capacity_gb(capacity_bytes: int) -> str:
    """Bytes as decimal gigabytes, exactly: 250000000000 -> "250", 2000398934016 ->
    "2000.398934016" (so an export imports back to the same capacity)."""
    return f"{(Decimal(capacity_bytes) / GB).normalize():f}"


Money = Annotated[Decimal, PlainSerializer(float, return_type=float, when_used="json")]


# What the checks above accept, for the OpenAPI document (a day is promised up to the end of
# 2025: a later one is refused while it is in the future, which no schema can say).
RETAILER = text_schema("retailer", limit=80)
CAPACITY = WithJsonSchema(
    {
        "anyOf": [
            {"type": "integer", "minimum": MIN_CAPACITY, "maximum": MAX_CAPACITY},
            {"type": "null"},
        ]
    }
)
SOURCE = text_schema("source", limit=300)
CURRENCY = WithJsonSchema({"type": "string", "pattern": "^[A-Z]{3}$"})
OBSERVED_ON = WithJsonSchema(
    {
        "type": "string",
        "format": "date",
        "pattern": r"^(19[0-9]{2}|20[01][0-9]|202[0-5])-[0-9]{2}-[0-9]{2}$",
    }
)


class PriceCreate(BaseModel):
    """One observation of a price. History is kept: a new observation never replaces one."""

    model_config = ConfigDict(extra="forbid")

    model_id: int = Field(description="The drive model (product), see GET /api/models.")
    capacity_bytes: Annotated[int | None, checked(check_optional_capacity), CAPACITY] = Field(
        None, description="Capacity the price is for; defaults to the model's."
    )
    retailer: Annotated[str, checked(check_retailer), RETAILER] = Field(description="e.g. Newegg")
    price: Annotated[Decimal, checked(check_price), WithJsonSchema(PRICE_SCHEMA)] = Field(
        description="Greater than 0."
    )
    currency: Annotated[str, checked(check_currency), CURRENCY] = Field(
        description="ISO 4217, e.g. USD."
    )
    observed_on: Annotated[date, checked(check_observed_on), OBSERVED_ON] = Field(
        description="The day the price was seen (YYYY-MM-DD)."
    )
    source: Annotated[str, checked(check_source), SOURCE] = Field(
        description="URL of the page the price comes from, or a citation."
    )


class PriceUpdate(BaseModel):
    """A correction of an observation (a typo in the price, the wrong day or source). Only
    the fields sent change; the model and capacity stay (a price for another product is a new
    observation)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra=not_null("retailer", "price", "currency", "observed_on", "source"),
    )

    retailer: Annotated[str, checked(check_retailer), RETAILER] | None = None
    price: Annotated[Decimal, checked(check_price), WithJsonSchema(PRICE_SCHEMA)] | None = None
    currency: Annotated[str, checked(check_currency), CURRENCY] | None = None
    observed_on: Annotated[date, checked(check_observed_on), OBSERVED_ON] | None = None
    source: Annotated[str, checked(check_source), SOURCE] | None = None


class PriceOut(BaseModel):
    id: int
    model_id: int
    vendor: str
    model: str
    capacity_bytes: int
    retailer: str
    price: Money
    currency: str
    observed_on: date
    source: str | None
    created_at: datetime


class ModelRef(BaseModel):
    id: int
    vendor: str
    model: str
    capacity_bytes: int


class ImportResult(BaseModel):
    rows: int = Field(description="Price rows in the file.")
    imported: int = Field(description="New observations stored.")
    duplicates: int = Field(
        description="Rows identical to an observation already stored (or earlier in the file): "
        "not stored twice."
    )
    created_models: list[ModelRef] = Field(description="Models the file added to the catalog.")


class CurrentPrice(BaseModel):
    retailer: str
    price: Money
    observed_on: date
    source: str | None
    price_per_gb: Money = Field(description="price / capacity in decimal GB.")


class TableRow(BaseModel):
    model_id: int
    vendor: str
    model: str
    capacity_bytes: int
    capacity_label: str
    prices: list[CurrentPrice] = Field(
        description="The latest price at each retailer, cheapest first."
    )
    lowest: CurrentPrice
    price_per_gb: Money = Field(description="Lowest current price / capacity in decimal GB.")


class CapacityClassOut(BaseModel):
    label: str = Field(description='e.g. "480/500/512 GB"')
    sizes_gb: list[int]
    models: list[TableRow] = Field(description="Cheapest per GB first.")


class PriceTable(BaseModel):
    currency: str
    currencies: list[str] = Field(description="Every currency with prices, for a switcher.")
    classes: list[CapacityClassOut]
