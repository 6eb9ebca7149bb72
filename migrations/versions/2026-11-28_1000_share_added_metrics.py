"""Shares: the metrics a reviewer added as charts of their own on the Compare page

A shared link drew the headline bars only, so a chart the reviewer added ("Add a metric") and
wrote about was missing for the reader. Existing shares had none: an empty list.

Revision ID: 0015_share_added_metrics
Revises: 0014_trace_extent
Create Date: 2026-11-28 10:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0015_share_added_metrics"
down_revision: str | None = "0014_trace_extent"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "shares",
        sa.Column(
            "added_metrics",
            postgresql.JSONB(),
            nullable=False,
            server_default=sa.text("'[]'::jsonb"),
        ),
    )


def downgrade() -> None:
    op.drop_column("shares", "added_metrics")
