"""drives: a short name a reviewer sets for charts and exports

Revision ID: 0007_drive_short_name
Revises: 0006_samples_no_fk
Create Date: 2026-11-22 09:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007_drive_short_name"
down_revision: str | None = "0006_samples_no_fk"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("drive_samples", sa.Column("short_name", sa.String(40), nullable=True))


def downgrade() -> None:
    op.drop_column("drive_samples", "short_name")
