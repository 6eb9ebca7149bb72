"""The drive's temperature with every sample: deci-degrees Celsius, NULL without a sensor

The worker reads the drive's temperature once a second during every step (NVMe's hwmon or
SMART log, SATA's smartctl, a simulated drive's sensor) and sends it with that second's
sample. A smallint of tenths of a degree holds 0.1 °C steps in 2 bytes; NULL is "no sensor"
(a file, a loop device), never 0. Packed steps keep it as one more array, NULL (no bytes) for a
step whose drive had no sensor; the view sample_rows and pack_step_samples carry it along.

Revision ID: 0020_sample_temperature
Revises: 0019_model_emulated
Create Date: 2026-12-05 23:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0020_sample_temperature"
down_revision: str | None = "0019_model_emulated"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BEFORE = (
    "t_ms", "dt_ms", "read_bytes", "write_bytes", "read_ios", "write_ios",
    "read_lat_mean_us", "write_lat_mean_us", "read_lat_p99_us", "write_lat_p99_us",
    "read_lat_max_us", "write_lat_max_us",
)  # fmt: skip


def _functions(fields: tuple[str, ...]) -> str:
    """The view and the packing function of migration 0013 over `fields`; temp_dc, when
    there, is packed as NULL for a step none of whose samples has a temperature."""
    cols = ", ".join(fields)
    unnest = f"unnest({', '.join('p.' + f for f in fields)}) AS u({cols})"
    aggs = ", ".join(
        "CASE WHEN bool_or(temp_dc IS NOT NULL) THEN array_agg(temp_dc ORDER BY t_ms) END"
        if f == "temp_dc"
        else f"array_agg({f} ORDER BY t_ms)"
        for f in fields
    )
    return f"""
CREATE VIEW sample_rows AS
    SELECT run_id, step_id, {cols} FROM samples
    UNION ALL
    SELECT p.run_id, p.step_id, {", ".join("u." + f for f in fields)}
    FROM packed_samples p CROSS JOIN LATERAL {unnest};

CREATE OR REPLACE FUNCTION pack_step_samples(step integer, kept integer[] DEFAULT NULL)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    packed integer;
BEGIN
    WITH loose AS (
        DELETE FROM samples WHERE step_id = step RETURNING run_id, {cols}
    ), old AS (
        DELETE FROM packed_samples WHERE step_id = step RETURNING *
    ), every AS (
        SELECT run_id, {cols} FROM loose
        UNION ALL
        SELECT p.run_id, {", ".join("u." + f for f in fields)}
        FROM old p CROSS JOIN LATERAL {unnest}
    ), one AS (
        SELECT DISTINCT ON (t_ms) * FROM every
        WHERE kept IS NULL OR t_ms = ANY(kept)
        ORDER BY t_ms
    ), ins AS (
        INSERT INTO packed_samples (step_id, run_id, n, {cols})
        SELECT step, min(run_id), count(*), {aggs}
        FROM one HAVING count(*) > 0
        RETURNING n
    )
    SELECT coalesce((SELECT n FROM ins), 0) INTO packed;
    RETURN packed;
END
$$;
"""


def upgrade() -> None:
    op.execute("DROP VIEW sample_rows")
    op.add_column("samples", sa.Column("temp_dc", sa.SmallInteger(), nullable=True))
    op.add_column(
        "packed_samples", sa.Column("temp_dc", postgresql.ARRAY(sa.SmallInteger()), nullable=True)
    )
    op.execute(_functions((*_BEFORE, "temp_dc")))


def downgrade() -> None:
    op.execute("DROP VIEW sample_rows")
    op.drop_column("packed_samples", "temp_dc")
    op.drop_column("samples", "temp_dc")
    op.execute(_functions(_BEFORE))
