from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Float,
    ForeignKey,
    Index,
    Integer,
    PrimaryKeyConstraint,
    SmallInteger,
    String,
    Text,
    column,
    table,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.orm import Mapped, mapped_column, relationship

from backend.core.db import Base, utcnow
from backend.drives.models import DriveSample
from backend.runs.schemas import SAMPLE_FIELDS

RUN_ACTIVE = ("queued", "running")
RUN_FINAL = ("done", "failed", "cancelled", "lost")


class RunSeries(Base):
    """One plan queued several times on a drive: a fixed number of runs, or "until stable"
    (repeated while the relative standard deviation of its throughput figures is at or above
    rsd_pct, up to max_runs). Its runs are queued one after the other as each finishes
    (backend.runs.series)."""

    __tablename__ = "run_series"

    id: Mapped[int] = mapped_column(primary_key=True)
    plan: Mapped[str] = mapped_column(String(64))
    drive_id: Mapped[int] = mapped_column(ForeignKey("drive_samples.id"), index=True)
    params: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)
    confirmed_serial: Mapped[str | None] = mapped_column(String(80))
    until_stable: Mapped[bool] = mapped_column(default=False)
    max_runs: Mapped[int] = mapped_column(Integer)  # the fixed count, or the most "until stable"
    min_runs: Mapped[int] = mapped_column(Integer, default=3)
    rsd_pct: Mapped[float] = mapped_column(Float, default=2.5)
    # running | stable | not stable | done | stopped
    status: Mapped[str] = mapped_column(String(16), default="running")
    reason: Mapped[str | None] = mapped_column(Text)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None]


class Run(Base):
    __tablename__ = "runs"

    id: Mapped[int] = mapped_column(primary_key=True)
    plan: Mapped[str] = mapped_column(String(64))
    drive_id: Mapped[int] = mapped_column(ForeignKey("drive_samples.id"), index=True)
    params: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)
    # queued | running | done | failed | cancelled | lost
    status: Mapped[str] = mapped_column(String(16), default="queued", index=True)
    progress: Mapped[float] = mapped_column(Float, default=0.0)
    error: Mapped[str | None] = mapped_column(Text)
    confirmed_serial: Mapped[str | None] = mapped_column(String(80))
    cancel_requested: Mapped[bool] = mapped_column(default=False)
    # Waiting runs of a drive execute in this order (lowest first); reorderable while waiting.
    queue_position: Mapped[float] = mapped_column(Float, default=0.0, server_default="0")
    # When the api handed the run to the bench's Celery queue (only the drive's next run is).
    dispatched_at: Mapped[datetime | None]
    # The Celery task id it was sent with: the api re-sends a task the broker lost.
    dispatch_task_id: Mapped[str | None] = mapped_column(String(64))
    # Drive, host and tool information recorded by the worker when it starts the run.
    environment: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)
    worker: Mapped[str | None] = mapped_column(String(200))
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    heartbeat_at: Mapped[datetime | None]
    # When retention compacted its samples and window logs (backend.retention); results and
    # fio's JSON are never compacted.
    compacted_at: Mapped[datetime | None]
    # Kept by triggers on results and steps (migration 0012), never written here: how many
    # results with a step the run has, and the XOR of a 64-bit hash of each of them (step id,
    # metric, unit, value) and of each of its steps (id, name). A comparison's cache is keyed
    # on them (backend.results.compare).
    results_count: Mapped[int] = mapped_column(Integer, server_default="0")
    results_digest: Mapped[int] = mapped_column(BigInteger, server_default="0")
    # A repeat of a series (RunSeries): its place in it, 1 first.
    series_id: Mapped[int | None] = mapped_column(ForeignKey("run_series.id"), index=True)
    series_index: Mapped[int | None] = mapped_column(Integer)

    drive: Mapped[DriveSample] = relationship(lazy="raise")
    steps: Mapped[list[Step]] = relationship(
        back_populates="run", order_by="Step.idx", lazy="raise", cascade="all, delete-orphan"
    )


class Step(Base):
    __tablename__ = "steps"

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), index=True)
    idx: Mapped[int] = mapped_column(Integer)
    # fio | purge | trim | idle | fill
    kind: Mapped[str] = mapped_column(String(16))
    name: Mapped[str] = mapped_column(String(120))
    params: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)
    # The complete fio job file (every option spelled out); None for non-fio steps.
    job_file: Mapped[str | None] = mapped_column(Text)
    # Estimated duration, for progress and ETA.
    estimate_s: Mapped[float] = mapped_column(Float, default=1.0)
    # pending | running | done | failed | cancelled | skipped
    status: Mapped[str] = mapped_column(String(16), default="pending")
    progress: Mapped[float] = mapped_column(Float, default=0.0)
    error: Mapped[str | None] = mapped_column(Text)
    # fio's final JSON, verbatim as fio printed it, and its stderr.
    output: Mapped[str | None] = mapped_column(Text)
    stderr: Mapped[str | None] = mapped_column(Text)
    command: Mapped[str | None] = mapped_column(Text)
    # fio's fine-grained logs (bw/iops per window), uploaded after the job; other step kinds'
    # structured outputs (purge method, TRIM timing, steady-state rounds).
    logs: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    # Structured results derived by backend.analysis when the step ended (stall lists, HD Tach
    # step-downs, consistency statistics); the scalar ones are also Result rows.
    analysis: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    # What the worker saw of the target when the step ended; a resume compares it with now.
    fingerprint: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]

    run: Mapped[Run] = relationship(back_populates="steps", lazy="raise")


class Sample(Base):
    """One interval (about a second) of a fio step, as measured from fio's status stream.

    Byte and I/O counts are the amounts completed in the interval, so a step's samples add up to
    fio's own totals; rates are derived from them and `dt_ms`. The primary key makes every batch
    idempotent: a batch sent twice is stored once.
    """

    __tablename__ = "samples"

    # No foreign keys: checking two for every row cost PostgreSQL 10 us a sample, four
    # times the rest of the insert. Samples are written only by the worker api, after it
    # found the running run and its step in the same transaction; runs are never deleted.
    run_id: Mapped[int] = mapped_column(Integer)
    step_id: Mapped[int] = mapped_column(Integer)
    t_ms: Mapped[int] = mapped_column(Integer)
    dt_ms: Mapped[int] = mapped_column(Integer)
    read_bytes: Mapped[int] = mapped_column(BigInteger)
    write_bytes: Mapped[int] = mapped_column(BigInteger)
    read_ios: Mapped[int] = mapped_column(BigInteger)
    write_ios: Mapped[int] = mapped_column(BigInteger)
    read_lat_mean_us: Mapped[float | None] = mapped_column(Float)
    write_lat_mean_us: Mapped[float | None] = mapped_column(Float)
    read_lat_p99_us: Mapped[float | None] = mapped_column(Float)
    write_lat_p99_us: Mapped[float | None] = mapped_column(Float)
    # The slowest completion of the interval (fio's exact max when it rose in the interval,
    # else the highest histogram bucket that moved); None from workers of earlier releases.
    read_lat_max_us: Mapped[float | None] = mapped_column(Float)
    write_lat_max_us: Mapped[float | None] = mapped_column(Float)
    # The drive's temperature read during the interval, tenths of a degree Celsius (2 bytes);
    # None where the drive has no sensor (a file, a loop device) or from earlier workers.
    temp_dc: Mapped[int | None] = mapped_column(SmallInteger)

    __table_args__ = (
        PrimaryKeyConstraint("step_id", "t_ms"),
        # BRIN: a few kB however many samples (a B-tree cost 8 bytes a sample and slowed every
        # insert); a run's rows arrive together, so its block ranges are few. Readers of a
        # run's samples go through its steps and the primary key.
        Index("ix_samples_run_id_brin", "run_id", postgresql_using="brin"),
    )


SAMPLE_COLUMNS = ("run_id", "step_id", *SAMPLE_FIELDS)
_SAMPLE_TYPES = {
    "t_ms": Integer,
    "dt_ms": Integer,
    "run_id": Integer,
    "step_id": Integer,
    "temp_dc": SmallInteger,
}


class PackedSamples(Base):
    """The samples of a finished step, one array per column in t_ms order: one row a step.

    A row of `samples` costs 132 bytes (its header, both directions' columns, the primary key);
    packed, a step's samples take 10-30 bytes each once PostgreSQL compresses the arrays, and a
    chart reads one row instead of thousands. Live steps' samples stay rows of `samples`
    (binary COPY, idempotent by the primary key); when a step leaves `pending`/`running`, the
    trigger `steps_pack_samples` moves them here in the same transaction
    (`pack_step_samples(step)`, migration 0013). Read a step's samples, packed or not, from the
    view `sample_rows` (SAMPLE_ROWS); only hot readers read the arrays themselves.
    """

    __tablename__ = "packed_samples"

    step_id: Mapped[int] = mapped_column(
        ForeignKey("steps.id", ondelete="CASCADE"), primary_key=True
    )
    run_id: Mapped[int] = mapped_column(Integer)
    n: Mapped[int] = mapped_column(Integer)
    t_ms: Mapped[list[int]] = mapped_column(ARRAY(Integer))
    dt_ms: Mapped[list[int]] = mapped_column(ARRAY(Integer))
    read_bytes: Mapped[list[int]] = mapped_column(ARRAY(BigInteger))
    write_bytes: Mapped[list[int]] = mapped_column(ARRAY(BigInteger))
    read_ios: Mapped[list[int]] = mapped_column(ARRAY(BigInteger))
    write_ios: Mapped[list[int]] = mapped_column(ARRAY(BigInteger))
    read_lat_mean_us: Mapped[list[float | None]] = mapped_column(ARRAY(Float))
    write_lat_mean_us: Mapped[list[float | None]] = mapped_column(ARRAY(Float))
    read_lat_p99_us: Mapped[list[float | None]] = mapped_column(ARRAY(Float))
    write_lat_p99_us: Mapped[list[float | None]] = mapped_column(ARRAY(Float))
    read_lat_max_us: Mapped[list[float | None]] = mapped_column(ARRAY(Float))
    write_lat_max_us: Mapped[list[float | None]] = mapped_column(ARRAY(Float))
    # NULL (no bytes) for a step none of whose samples has a temperature (migration 0020).
    temp_dc: Mapped[list[int | None] | None] = mapped_column(ARRAY(SmallInteger))

    __table_args__ = (Index("ix_packed_samples_run_id", "run_id"),)


# Every sample of a step as a row, whether it is still in `samples` or packed: a view (not in
# the models' metadata, made by migration 0013), for selects only.
SAMPLE_ROWS = table(
    "sample_rows",
    *(
        column(c, _SAMPLE_TYPES.get(c, BigInteger if c.endswith(("_bytes", "_ios")) else Float))
        for c in SAMPLE_COLUMNS
    ),
)
