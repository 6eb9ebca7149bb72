from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, String, UniqueConstraint, false
from sqlalchemy.orm import Mapped, mapped_column, relationship

from backend.benches.models import Bench
from backend.core.db import Base, utcnow


class DriveModel(Base):
    """A product: vendor, model and capacity point."""

    __tablename__ = "drive_models"

    id: Mapped[int] = mapped_column(primary_key=True)
    vendor: Mapped[str] = mapped_column(String(80))
    model: Mapped[str] = mapped_column(String(160))
    capacity_bytes: Mapped[int] = mapped_column(BigInteger)
    interface: Mapped[str | None] = mapped_column(String(40))
    form_factor: Mapped[str | None] = mapped_column(String(40))
    controller: Mapped[str | None] = mapped_column(String(120))
    nand: Mapped[str | None] = mapped_column(String(120))
    dram: Mapped[str | None] = mapped_column(String(80))
    # Simulated drives (sparse files, loop devices) are labelled as such wherever they appear.
    simulated: Mapped[bool] = mapped_column(default=False)
    # Emulated: a virtual bench's QEMU controller (simulated too: not a product either).
    emulated: Mapped[bool] = mapped_column(default=False, server_default=false())
    # Until then, viewers and shared links do not see the model, its drives, runs or results.
    embargo_until: Mapped[datetime | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (UniqueConstraint("vendor", "model", "capacity_bytes"),)


class DriveSample(Base):
    """One physical drive (or simulated target) attached to a bench."""

    __tablename__ = "drive_samples"

    id: Mapped[int] = mapped_column(primary_key=True)
    model_id: Mapped[int] = mapped_column(ForeignKey("drive_models.id"), index=True)
    bench_id: Mapped[int] = mapped_column(ForeignKey("benches.id"), index=True)
    serial: Mapped[str] = mapped_column(String(80))
    firmware: Mapped[str | None] = mapped_column(String(40))
    # What the worker opens: a whole block device (/dev/nvme0n1) or a file in its sandbox.
    target_path: Mapped[str] = mapped_column(String(512))
    logical_sector: Mapped[int] = mapped_column(default=512, server_default="512")
    # What charts, legends and exports call the drive, when the reviewer sets one ("990 PRO").
    short_name: Mapped[str | None] = mapped_column(String(40))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    model: Mapped[DriveModel] = relationship(lazy="raise")
    bench: Mapped[Bench] = relationship(lazy="raise")

    __table_args__ = (UniqueConstraint("bench_id", "target_path"),)
