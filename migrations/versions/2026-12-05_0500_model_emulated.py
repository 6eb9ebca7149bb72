"""Drive models: emulated (a virtual bench's QEMU controller) beside simulated

A drive registered from a virtual bench's report is emulated: QEMU's NVMe or SATA controller in
a guest. Its results are labelled as such (not a real product's, nor drivelab's throttled
simulated drive's). Emulated models stay `simulated` too, so that every place that keeps
results of drives that are not products apart (prices, charts' marks, the bench rule) goes on
doing so. Existing models are not emulated.

Revision ID: 0019_model_emulated
Revises: 0018_share_views
Create Date: 2026-12-05 05:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019_model_emulated"
down_revision: str | None = "0018_share_views"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "drive_models",
        sa.Column("emulated", sa.Boolean(), nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    op.drop_column("drive_models", "emulated")
