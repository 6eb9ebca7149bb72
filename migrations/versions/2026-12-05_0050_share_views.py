"""Shares: how often each link was opened, and when last

The Shared links page lists each link with its views; a link opened by its readers counts one
view per opening of the shared page (GET /api/shares/{token}). Existing links start at 0,
never opened as far as drivelab knows.

Revision ID: 0018_share_views
Revises: 0017_run_series
Create Date: 2026-12-05 00:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018_share_views"
down_revision: str | None = "0017_run_series"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("shares", sa.Column("views", sa.Integer(), nullable=False, server_default="0"))
    op.add_column("shares", sa.Column("last_viewed_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    op.drop_column("shares", "last_viewed_at")
    op.drop_column("shares", "views")
