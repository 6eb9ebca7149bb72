"""Samples: a BRIN index on run_id instead of a B-tree

A B-tree on samples.run_id cost 8 bytes per sample (of 140) and time on every insert; a BRIN
index is a few kB at any size. Readers of a run's samples go through its steps and the primary
key.

Revision ID: 0011_samples_run_id_brin
Revises: 0010_retention
Create Date: 2026-11-24 13:00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0011_samples_run_id_brin"
down_revision: str | None = "0010_retention"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.drop_index("ix_samples_run_id", table_name="samples")
    op.create_index(
        "ix_samples_run_id_brin", "samples", ["run_id"], unique=False, postgresql_using="brin"
    )


def downgrade() -> None:
    op.drop_index("ix_samples_run_id_brin", table_name="samples")
    op.create_index("ix_samples_run_id", "samples", ["run_id"], unique=False)
