"""SNIA PTS: every round of a rounds step, with fio's output

Revision ID: 0008_pts_step_rounds
Revises: 0007_drive_short_name
Create Date: 2026-11-24 09:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0008_pts_step_rounds"
down_revision: str | None = "0007_drive_short_name"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "step_rounds",
        sa.Column("step_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("t_start_ms", sa.Integer(), nullable=False),
        sa.Column("t_end_ms", sa.Integer(), nullable=False),
        sa.Column("summary", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("output_gz", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["step_id"], ["steps.id"], name=op.f("fk_step_rounds_step_id_steps"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name=op.f("fk_step_rounds_run_id_runs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("step_id", "round", name=op.f("pk_step_rounds")),
    )
    op.create_index(op.f("ix_step_rounds_run_id"), "step_rounds", ["run_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_step_rounds_run_id"), table_name="step_rounds")
    op.drop_table("step_rounds")
