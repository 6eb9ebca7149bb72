"""step analysis

Revision ID: 0003_step_analysis
Revises: 0002_queue_logs_traces
Create Date: 2026-11-21 12:35:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0003_step_analysis"
down_revision: str | None = "0002_queue_logs_traces"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "steps",
        sa.Column("analysis", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
    )
    # Comparisons read results by run and metric.
    op.create_index("ix_results_metric", "results", ["metric"])


def downgrade() -> None:
    op.drop_index("ix_results_metric", table_name="results")
    op.drop_column("steps", "analysis")
