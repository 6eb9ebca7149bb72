from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import BigInteger, ForeignKey, Numeric, String
from sqlalchemy.orm import Mapped, mapped_column

from backend.core.db import Base, utcnow


class Price(Base):
    """A retail price of a drive model at a capacity, on a date; history is kept."""

    __tablename__ = "prices"

    id: Mapped[int] = mapped_column(primary_key=True)
    model_id: Mapped[int] = mapped_column(ForeignKey("drive_models.id"), index=True)
    capacity_bytes: Mapped[int] = mapped_column(BigInteger)
    retailer: Mapped[str] = mapped_column(String(80))
    price: Mapped[Decimal] = mapped_column(Numeric(12, 2))
    currency: Mapped[str] = mapped_column(String(3))
    observed_on: Mapped[date]
    source: Mapped[str | None] = mapped_column(String(300))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
