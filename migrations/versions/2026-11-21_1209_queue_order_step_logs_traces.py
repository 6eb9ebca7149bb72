"""queue order, step logs, traces

Revision ID: 0002_queue_logs_traces
Revises: 0001_initial
Create Date: 2026-11-21 12:09:09.893126
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0002_queue_logs_traces"
down_revision: str | None = "0001_initial"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "traces",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("format", sa.String(length=16), nullable=False),
        sa.Column("size_bytes", sa.BigInteger(), nullable=False),
        sa.Column("ios", sa.BigInteger(), nullable=False),
        sa.Column("read_bytes", sa.BigInteger(), nullable=False),
        sa.Column("write_bytes", sa.BigInteger(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_traces")),
    )
    op.add_column(
        "drive_samples",
        sa.Column("logical_sector", sa.Integer(), server_default="512", nullable=False),
    )
    op.add_column(
        "runs", sa.Column("queue_position", sa.Float(), server_default="0", nullable=False)
    )
    op.add_column("runs", sa.Column("dispatched_at", sa.DateTime(timezone=True), nullable=True))
    # Before this revision every run was handed to the broker when it was created.
    op.execute("UPDATE runs SET dispatched_at = created_at, queue_position = id")
    op.add_column(
        "steps", sa.Column("logs", postgresql.JSONB(astext_type=sa.Text()), nullable=True)
    )
    op.add_column(
        "steps", sa.Column("fingerprint", postgresql.JSONB(astext_type=sa.Text()), nullable=True)
    )


def downgrade() -> None:
    op.drop_column("steps", "fingerprint")
    op.drop_column("steps", "logs")
    op.drop_column("runs", "dispatched_at")
    op.drop_column("runs", "queue_position")
    op.drop_column("drive_samples", "logical_sector")
    op.drop_table("traces")
