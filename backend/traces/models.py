from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Integer, LargeBinary, String
from sqlalchemy.orm import Mapped, deferred, mapped_column

from backend.core.db import Base, utcnow


class Trace(Base):
    """An uploaded I/O trace for `trace-replay` (fio iolog v2/v3 or blktrace binary)."""

    __tablename__ = "traces"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    # iolog-v2 | iolog-v3 | blktrace
    format: Mapped[str] = mapped_column(String(16))
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    ios: Mapped[int] = mapped_column(BigInteger)
    read_bytes: Mapped[int] = mapped_column(BigInteger)
    write_bytes: Mapped[int] = mapped_column(BigInteger)
    sha256: Mapped[str] = mapped_column(String(64))
    # The end of the furthest range it touches, and the alignment of its lengths
    # (backend.traces.formats.TraceSummary); None for a trace the migration could not read.
    end_bytes: Mapped[int | None] = mapped_column(BigInteger)
    align_bytes: Mapped[int | None] = mapped_column(Integer)
    data: Mapped[bytes] = deferred(mapped_column(LargeBinary, nullable=False))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
