"""Traces: extents read again as fio reads the trace

Uploaded iologs used to be split into fields differently from fio (`x write\r2147483648 4096`
was read as one I/O ending at 4096 while fio writes at 2 GiB), so a stored trace's end_bytes
could be short of what fio replays. Every stored trace is read again with fio's own rules
(backend.traces.iolog); one that is now refused keeps NULL, and queueing it asks for the trace
to be uploaded again, as 0014_trace_extent does.

The downgrade changes nothing: the extents read now are the true ones whatever the code.

Revision ID: 0016_traces_read_as_fio
Revises: 0015_share_added_metrics
Create Date: 2026-12-04 22:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from backend.traces.formats import TraceFormatError, summarise

revision: str = "0016_traces_read_as_fio"
down_revision: str | None = "0015_share_added_metrics"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    conn = op.get_bind()
    ids = [row.id for row in conn.execute(sa.text("SELECT id FROM traces ORDER BY id"))]
    for trace_id in ids:  # one at a time: a trace may be 256 MiB
        data = conn.execute(
            sa.text("SELECT data FROM traces WHERE id = :id"), {"id": trace_id}
        ).scalar_one()
        try:
            summary = summarise(bytes(data))
            end, align = summary.end_bytes, summary.align_bytes
        except TraceFormatError:
            end, align = None, None
        conn.execute(
            sa.text("UPDATE traces SET end_bytes = :end, align_bytes = :align WHERE id = :id"),
            {"end": end, "align": align, "id": trace_id},
        )


def downgrade() -> None:
    pass
