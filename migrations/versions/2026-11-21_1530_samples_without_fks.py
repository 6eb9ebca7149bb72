"""samples without foreign keys: binary COPY of worker batches at 4x the rows per CPU second

Revision ID: 0006_samples_no_fk
Revises: 0005_access
Create Date: 2026-11-21 15:30:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0006_samples_no_fk"
down_revision: str | None = "0005_access"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.drop_constraint("fk_samples_run_id_runs", "samples", type_="foreignkey")
    op.drop_constraint("fk_samples_step_id_steps", "samples", type_="foreignkey")


def downgrade() -> None:
    op.create_foreign_key(
        "fk_samples_step_id_steps", "samples", "steps", ["step_id"], ["id"], ondelete="CASCADE"
    )
    op.create_foreign_key(
        "fk_samples_run_id_runs", "samples", "runs", ["run_id"], ["id"], ondelete="CASCADE"
    )
