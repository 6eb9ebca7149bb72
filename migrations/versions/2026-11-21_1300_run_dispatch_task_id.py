"""run dispatch task id

Revision ID: 0004_dispatch_task_id
Revises: 0003_step_analysis
Create Date: 2026-11-21 13:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_dispatch_task_id"
down_revision: str | None = "0003_step_analysis"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # The Celery task id a run was sent with, so the api can re-send a task the broker lost.
    # Runs dispatched before this revision have none and are not checked.
    op.add_column("runs", sa.Column("dispatch_task_id", sa.String(length=64), nullable=True))


def downgrade() -> None:
    op.drop_column("runs", "dispatch_task_id")
