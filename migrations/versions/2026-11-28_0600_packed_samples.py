"""Samples of a finished step packed into one row of arrays

A row of `samples` cost 132 bytes a sample (111 of heap, 22 of primary key): 13 GB for the
100M samples of a lab's five years. A finished step's samples never change, so they move into
one row of `packed_samples` with an array per column (compressed by TOAST), and a chart reads
one row instead of thousands. Live steps keep their rows in `samples`, where workers' batches
go by binary COPY and the primary key makes every batch idempotent.

- pack_step_samples(step, kept): the step's samples, loose and already packed, as one packed
  row in t_ms order (one row per t_ms); with `kept`, only the samples at those times
  (retention's compaction). Returns how many samples the row holds.
- The trigger steps_pack_samples packs a step's samples when it leaves pending/running (done,
  failed, cancelled, skipped), in the statement that changes its status, whoever makes it.
  A worker's samples are taken only while their step runs, so none arrive after it.
- The view sample_rows: every sample as a row, packed or not (predicates on step_id or run_id
  reach both tables' indexes).

Revision ID: 0013_packed_samples
Revises: 0012_run_results_digest
Create Date: 2026-11-28 06:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0013_packed_samples"
down_revision: str | None = "0012_run_results_digest"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COUNTS = ("t_ms", "dt_ms", "read_bytes", "write_bytes", "read_ios", "write_ios")
LATENCIES = tuple(f"{d}_lat_{k}_us" for k in ("mean", "p99", "max") for d in ("read", "write"))
# samples' own column order
FIELDS = (
    "t_ms", "dt_ms", "read_bytes", "write_bytes", "read_ios", "write_ios",
    "read_lat_mean_us", "write_lat_mean_us", "read_lat_p99_us", "write_lat_p99_us",
    "read_lat_max_us", "write_lat_max_us",
)  # fmt: skip
_fields = ", ".join(FIELDS)
_unnest = f"unnest({', '.join('p.' + f for f in FIELDS)}) AS u({_fields})"
_aggs = ", ".join(f"array_agg({f} ORDER BY t_ms)" for f in FIELDS)

FUNCTIONS = f"""
CREATE VIEW sample_rows AS
    SELECT run_id, step_id, {_fields} FROM samples
    UNION ALL
    SELECT p.run_id, p.step_id, {", ".join("u." + f for f in FIELDS)}
    FROM packed_samples p CROSS JOIN LATERAL {_unnest};

CREATE FUNCTION pack_step_samples(step integer, kept integer[] DEFAULT NULL)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    packed integer;
BEGIN
    WITH loose AS (
        DELETE FROM samples WHERE step_id = step RETURNING run_id, {_fields}
    ), old AS (
        DELETE FROM packed_samples WHERE step_id = step RETURNING *
    ), every AS (
        SELECT run_id, {_fields} FROM loose
        UNION ALL
        SELECT p.run_id, {", ".join("u." + f for f in FIELDS)}
        FROM old p CROSS JOIN LATERAL {_unnest}
    ), one AS (
        SELECT DISTINCT ON (t_ms) * FROM every
        WHERE kept IS NULL OR t_ms = ANY(kept)
        ORDER BY t_ms
    ), ins AS (
        INSERT INTO packed_samples (step_id, run_id, n, {_fields})
        SELECT step, min(run_id), count(*), {_aggs}
        FROM one HAVING count(*) > 0
        RETURNING n
    )
    SELECT coalesce((SELECT n FROM ins), 0) INTO packed;
    RETURN packed;
END
$$;

CREATE FUNCTION steps_pack_samples() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pack_step_samples(NEW.id);
    RETURN NULL;
END
$$;

CREATE TRIGGER steps_pack_samples AFTER UPDATE OF status ON steps
    FOR EACH ROW
    WHEN (OLD.status IN ('pending', 'running') AND NEW.status NOT IN ('pending', 'running'))
    EXECUTE FUNCTION steps_pack_samples();
"""


def upgrade() -> None:
    op.create_table(
        "packed_samples",
        sa.Column("step_id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("n", sa.Integer(), nullable=False),
        *(sa.Column(c, postgresql.ARRAY(sa.Integer()), nullable=False) for c in ("t_ms", "dt_ms")),
        *(sa.Column(c, postgresql.ARRAY(sa.BigInteger()), nullable=False) for c in COUNTS[2:]),
        *(sa.Column(c, postgresql.ARRAY(sa.Float()), nullable=False) for c in LATENCIES),
        sa.ForeignKeyConstraint(
            ["step_id"],
            ["steps.id"],
            name=op.f("fk_packed_samples_step_id_steps"),
            ondelete="CASCADE",
        ),  # fmt: skip
        sa.PrimaryKeyConstraint("step_id", name=op.f("pk_packed_samples")),
    )
    op.create_index("ix_packed_samples_run_id", "packed_samples", ["run_id"], unique=False)
    op.execute(FUNCTIONS)
    # Every finished step's samples packed now; the live steps' rows are copied back after a
    # TRUNCATE, which returns the table's space at once (a DELETE leaves it to VACUUM).
    op.execute("LOCK TABLE samples, steps IN SHARE ROW EXCLUSIVE MODE")
    op.execute(
        "SELECT pack_step_samples(id) FROM steps "
        "WHERE status NOT IN ('pending', 'running') "
        "AND EXISTS (SELECT 1 FROM samples WHERE samples.step_id = steps.id)"
    )
    op.execute("CREATE TEMP TABLE live_samples ON COMMIT DROP AS SELECT * FROM samples")
    op.execute("TRUNCATE samples")
    op.execute("INSERT INTO samples SELECT * FROM live_samples")


def downgrade() -> None:
    op.execute("DROP TRIGGER steps_pack_samples ON steps")
    op.execute(
        f"INSERT INTO samples (run_id, step_id, {_fields}) "
        f"SELECT run_id, step_id, {_fields} FROM sample_rows "
        "WHERE step_id IN (SELECT step_id FROM packed_samples) "
        "ON CONFLICT (step_id, t_ms) DO NOTHING"
    )
    op.execute("DROP VIEW sample_rows")
    op.execute("DROP FUNCTION steps_pack_samples()")
    op.execute("DROP FUNCTION pack_step_samples(integer, integer[])")
    op.drop_index("ix_packed_samples_run_id", table_name="packed_samples")
    op.drop_table("packed_samples")
