"""Run series: a plan repeated on a drive N times or until its figures are stable

A reviewer quotes the mean of repeated runs; a series queues the repeats one after the other
and, "until stable", stops when the relative standard deviation of the plan's throughput
figures falls under a threshold. Existing runs belong to no series.

Revision ID: 0017_run_series
Revises: 0016_traces_read_as_fio
Create Date: 2026-12-05 00:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0017_run_series"
down_revision: str | None = "0016_traces_read_as_fio"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "run_series",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("plan", sa.String(64), nullable=False),
        sa.Column("drive_id", sa.Integer(), sa.ForeignKey("drive_samples.id"), nullable=False),
        sa.Column("params", postgresql.JSONB(), nullable=False),
        sa.Column("confirmed_serial", sa.String(80)),
        sa.Column("until_stable", sa.Boolean(), nullable=False),
        sa.Column("max_runs", sa.Integer(), nullable=False),
        sa.Column("min_runs", sa.Integer(), nullable=False),
        sa.Column("rsd_pct", sa.Float(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text()),
        sa.Column("created_by", sa.Integer(), sa.ForeignKey("users.id")),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True)),
    )
    op.create_index("ix_run_series_drive_id", "run_series", ["drive_id"])
    op.add_column(
        "runs", sa.Column("series_id", sa.Integer(), sa.ForeignKey("run_series.id"), nullable=True)
    )
    op.add_column("runs", sa.Column("series_index", sa.Integer(), nullable=True))
    op.create_index("ix_runs_series_id", "runs", ["series_id"])


def downgrade() -> None:
    op.drop_index("ix_runs_series_id", "runs")
    op.drop_column("runs", "series_index")
    op.drop_column("runs", "series_id")
    op.drop_index("ix_run_series_drive_id", "run_series")
    op.drop_table("run_series")
