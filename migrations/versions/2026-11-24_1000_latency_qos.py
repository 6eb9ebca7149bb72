"""Latency QoS: every fio step's latency histogram, and per-second maximum latency

Revision ID: 0009_latency_qos
Revises: 0008_pts_step_rounds
Create Date: 2026-11-24 10:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009_latency_qos"
down_revision: str | None = "0008_pts_step_rounds"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "step_latency",
        sa.Column("step_id", sa.Integer(), nullable=False),
        sa.Column("direction", sa.String(length=8), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("ios", sa.BigInteger(), nullable=False),
        sa.Column("mean_us", sa.Float(), nullable=False),
        sa.Column("min_us", sa.Float(), nullable=False),
        sa.Column("max_us", sa.Float(), nullable=False),
        sa.Column("bins", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["step_id"],
            ["steps.id"],
            name=op.f("fk_step_latency_step_id_steps"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name=op.f("fk_step_latency_run_id_runs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("step_id", "direction", name=op.f("pk_step_latency")),
    )
    op.create_index(op.f("ix_step_latency_run_id"), "step_latency", ["run_id"])
    op.add_column("samples", sa.Column("read_lat_max_us", sa.Float(), nullable=True))
    op.add_column("samples", sa.Column("write_lat_max_us", sa.Float(), nullable=True))


def downgrade() -> None:
    op.drop_column("samples", "write_lat_max_us")
    op.drop_column("samples", "read_lat_max_us")
    op.drop_index(op.f("ix_step_latency_run_id"), table_name="step_latency")
    op.drop_table("step_latency")
