"""Retention: the lab's retention policy, and when a run's samples and logs were compacted

Revision ID: 0010_retention
Revises: 0009_latency_qos
Create Date: 2026-11-24 12:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_retention"
down_revision: str | None = "0009_latency_qos"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "retention_policy",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("days", sa.Integer(), nullable=True),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_by", sa.String(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_retention_policy")),
    )
    op.add_column("runs", sa.Column("compacted_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    op.drop_column("runs", "compacted_at")
    op.drop_table("retention_policy")
