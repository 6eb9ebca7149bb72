"""Run digests: what a comparison reads of each finished run, kept in one row by triggers

GET /api/compare with nothing cached read the steps and results of every run of the compared
drives (a join of results, steps and runs ordered by the runs' finish, ~27,000 rows for 10
drives of ~70 runs), and that query grew with the drives' history. A run's digest holds what
the comparison reads of it, in one row: its steps in order (id, kind, name, status, the
sha256 of the job file, the step's parameters as text, as `->>` reads them) and its results
with a step as parallel arrays (metric id `plan:step:metric`, value, unit, step id, in the
order they were written). It records the run's results_count and results_digest (migration
0012) it was made from: a comparison uses a digest only when they are the run's current
ones, and reads the steps and results of any other run as before.

Triggers keep it in the same transaction as the change: a run that becomes done, a done run
whose results or step names change (results_digest moves, by the app or in SQL), a step of a
done run whose kind, status, order, parameters or job file change. Existing done runs are
digested here.

Revision ID: 0021_run_digests
Revises: 0020_sample_temperature
Create Date: 2026-12-06 04:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0021_run_digests"
down_revision: str | None = "0020_sample_temperature"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

FUNCTIONS = """
CREATE FUNCTION run_digest_make(ids integer[]) RETURNS void LANGUAGE sql AS $$
    INSERT INTO run_digests AS d (run_id, results_count, results_digest, steps, metrics,
                                  result_values, units, step_ids)
    SELECT r.id, r.results_count, r.results_digest,
           coalesce((SELECT jsonb_agg(jsonb_build_array(
                                s.id, s.kind, s.name, s.status,
                                encode(sha256(convert_to(s.job_file, 'UTF8')), 'hex'),
                                CASE WHEN jsonb_typeof(s.params) = 'object' THEN
                                    coalesce((SELECT jsonb_object_agg(e.key, e.value)
                                              FROM jsonb_each_text(s.params) e), '{}')
                                ELSE '{}' END)
                            ORDER BY s.idx)
                     FROM steps s WHERE s.run_id = r.id), '[]'),
           coalesce(x.metrics, '{}'), coalesce(x.result_values, '{}'),
           coalesce(x.units, '{}'), coalesce(x.step_ids, '{}')
    FROM runs r
    LEFT JOIN LATERAL (
        SELECT array_agg(r.plan || ':' || s.name || ':' || res.metric ORDER BY res.id) AS metrics,
               array_agg(res.value ORDER BY res.id) AS result_values,
               array_agg(res.unit ORDER BY res.id) AS units,
               array_agg(res.step_id ORDER BY res.id) AS step_ids
        FROM results res JOIN steps s ON s.id = res.step_id
        WHERE res.run_id = r.id
    ) x ON true
    WHERE r.id = ANY(ids)
    ON CONFLICT (run_id) DO UPDATE SET
        results_count = excluded.results_count, results_digest = excluded.results_digest,
        steps = excluded.steps, metrics = excluded.metrics,
        result_values = excluded.result_values, units = excluded.units,
        step_ids = excluded.step_ids, made_at = now()
$$;

CREATE FUNCTION run_digest_run_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM run_digest_make(ARRAY[NEW.id]);
    RETURN NULL;
END
$$;

CREATE FUNCTION run_digest_step_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM runs WHERE id = NEW.run_id AND status = 'done') THEN
        PERFORM run_digest_make(ARRAY[NEW.run_id]);
    END IF;
    RETURN NULL;
END
$$;
"""

TRIGGERS = """
CREATE TRIGGER run_digest_insert AFTER INSERT ON runs
    FOR EACH ROW WHEN (NEW.status = 'done') EXECUTE FUNCTION run_digest_run_changed();
CREATE TRIGGER run_digest_update AFTER UPDATE OF status, plan, results_count, results_digest
    ON runs FOR EACH ROW
    WHEN (NEW.status = 'done' AND (OLD.status IS DISTINCT FROM NEW.status
                                   OR OLD.plan IS DISTINCT FROM NEW.plan
                                   OR OLD.results_count IS DISTINCT FROM NEW.results_count
                                   OR OLD.results_digest IS DISTINCT FROM NEW.results_digest))
    EXECUTE FUNCTION run_digest_run_changed();
CREATE TRIGGER run_digest_step_update AFTER UPDATE OF kind, status, idx, params, job_file
    ON steps FOR EACH ROW
    WHEN (OLD.kind IS DISTINCT FROM NEW.kind OR OLD.status IS DISTINCT FROM NEW.status
          OR OLD.idx IS DISTINCT FROM NEW.idx OR OLD.params IS DISTINCT FROM NEW.params
          OR OLD.job_file IS DISTINCT FROM NEW.job_file)
    EXECUTE FUNCTION run_digest_step_changed();
"""


def upgrade() -> None:
    op.create_table(
        "run_digests",
        sa.Column(
            "run_id",
            sa.Integer(),
            sa.ForeignKey("runs.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("results_count", sa.Integer(), nullable=False),
        sa.Column("results_digest", sa.BigInteger(), nullable=False),
        sa.Column("steps", postgresql.JSONB(), nullable=False),
        sa.Column("metrics", postgresql.ARRAY(sa.Text()), nullable=False),
        sa.Column("result_values", postgresql.ARRAY(sa.Float()), nullable=False),
        sa.Column("units", postgresql.ARRAY(sa.Text()), nullable=False),
        sa.Column("step_ids", postgresql.ARRAY(sa.Integer()), nullable=False),
        sa.Column(
            "made_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False
        ),
    )
    # No run, step or result changes between the backfill and the triggers that take over.
    op.execute("LOCK TABLE runs, results, steps IN SHARE ROW EXCLUSIVE MODE")
    op.execute(FUNCTIONS)
    op.execute(TRIGGERS)
    op.execute(
        "SELECT run_digest_make(coalesce(array_agg(id), '{}')) FROM runs WHERE status = 'done'"
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER run_digest_step_update ON steps")
    op.execute("DROP TRIGGER run_digest_update ON runs")
    op.execute("DROP TRIGGER run_digest_insert ON runs")
    op.execute("DROP FUNCTION run_digest_step_changed()")
    op.execute("DROP FUNCTION run_digest_run_changed()")
    op.execute("DROP FUNCTION run_digest_make(integer[])")
    op.drop_table("run_digests")
