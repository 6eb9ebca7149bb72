"""Traces: the end of the furthest range they touch and the alignment of their lengths

A trace recorded on a larger drive, or with lengths that are not whole sectors, was queued and
failed in fio after the fill had written the drive. Queueing now compares the trace's extent
and alignment with the drive's. Traces already stored are read again here; one that cannot be
read keeps NULL, and queueing asks for it to be uploaded again.

Revision ID: 0014_trace_extent
Revises: 0013_packed_samples
Create Date: 2026-11-28 09:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from backend.traces.formats import TraceFormatError, summarise

revision: str = "0014_trace_extent"
down_revision: str | None = "0013_packed_samples"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("traces", sa.Column("end_bytes", sa.BigInteger(), nullable=True))
    op.add_column("traces", sa.Column("align_bytes", sa.Integer(), nullable=True))
    conn = op.get_bind()
    ids = [row.id for row in conn.execute(sa.text("SELECT id FROM traces ORDER BY id"))]
    for trace_id in ids:  # one at a time: a trace may be 256 MiB
        data = conn.execute(
            sa.text("SELECT data FROM traces WHERE id = :id"), {"id": trace_id}
        ).scalar_one()
        try:
            summary = summarise(bytes(data))
        except TraceFormatError:
            continue
        conn.execute(
            sa.text("UPDATE traces SET end_bytes = :end, align_bytes = :align WHERE id = :id"),
            {"end": summary.end_bytes, "align": summary.align_bytes, "id": trace_id},
        )


def downgrade() -> None:
    op.drop_column("traces", "align_bytes")
    op.drop_column("traces", "end_bytes")
