"""Runs: a count and a digest of their results, kept by triggers

GET /api/compare keys its cached parts on a digest of every result of the compared drives' runs:
summed by PostgreSQL at each request, it cost as much as fetching the results (27,000 results
for 10 drives of 69 runs). The digest is now kept on the run by triggers on `results` and
`steps`, so any change to a result or a step name (by the app or by hand in SQL) changes it in
the same transaction, and a comparison reads it with the runs.

results_count: the run's results with a step (those a comparison reads).
results_digest: the XOR of a 64-bit hash of each such result (step id, metric, unit, the
value's exact bits) and of each of the run's steps (id, name). XOR makes every change
incremental: a row's hash is XORed in when it is added and again when it is removed, an update
removes the old row and adds the new one.

Revision ID: 0012_run_results_digest
Revises: 0011_samples_run_id_brin
Create Date: 2026-11-24 14:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012_run_results_digest"
down_revision: str | None = "0011_samples_run_id_brin"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# A result's and a step's hash. The value's bits, not its text: float8's text depends on the
# session's extra_float_digits, and a digest kept across sessions must not.
FUNCTIONS = """
CREATE FUNCTION result_digest(step_id integer, metric text, unit text, value float8)
RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
    SELECT hashtextextended(metric || ':' || unit || ':' || encode(float8send(value), 'hex'),
                            step_id)
$$;

CREATE FUNCTION step_digest(id integer, name text)
RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
    SELECT hashtextextended('step:' || name, id)
$$;

-- Statement-level, with the statement's rows: one update of each run touched, however many
-- results a statement writes. A result without a step is not compared: not counted.
CREATE FUNCTION runs_results_digest() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE runs SET results_count = runs.results_count + d.n,
                        results_digest = runs.results_digest # d.x
        FROM (SELECT run_id, count(step_id) AS n,
                     bit_xor(result_digest(step_id, metric, unit, value)) AS x
              FROM new_rows GROUP BY run_id) d
        WHERE runs.id = d.run_id AND d.n > 0;
    ELSIF TG_OP = 'DELETE' THEN
        UPDATE runs SET results_count = runs.results_count - d.n,
                        results_digest = runs.results_digest # d.x
        FROM (SELECT run_id, count(step_id) AS n,
                     bit_xor(result_digest(step_id, metric, unit, value)) AS x
              FROM old_rows GROUP BY run_id) d
        WHERE runs.id = d.run_id AND d.n > 0;
    ELSE
        UPDATE runs SET results_count = runs.results_count + d.n,
                        results_digest = runs.results_digest # d.x
        FROM (SELECT run_id, sum(n) AS n, coalesce(bit_xor(x), 0) AS x
              FROM (SELECT run_id, -count(step_id) AS n,
                           bit_xor(result_digest(step_id, metric, unit, value)) AS x
                    FROM old_rows GROUP BY run_id
                    UNION ALL
                    SELECT run_id, count(step_id),
                           bit_xor(result_digest(step_id, metric, unit, value))
                    FROM new_rows GROUP BY run_id) changes
              GROUP BY run_id) d
        WHERE runs.id = d.run_id AND (d.n <> 0 OR d.x <> 0);
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION runs_steps_digest() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE runs SET results_digest = runs.results_digest # d.x
        FROM (SELECT run_id, bit_xor(step_digest(id, name)) AS x
              FROM new_rows GROUP BY run_id) d
        WHERE runs.id = d.run_id;
    ELSE
        UPDATE runs SET results_digest = runs.results_digest # d.x
        FROM (SELECT run_id, bit_xor(step_digest(id, name)) AS x
              FROM old_rows GROUP BY run_id) d
        WHERE runs.id = d.run_id;
    END IF;
    RETURN NULL;
END
$$;

-- TRUNCATE fires no row or statement triggers of DELETE: every run starts again from its
-- steps (none, when steps were truncated too).
CREATE FUNCTION runs_digest_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE runs SET results_count = 0,
                    results_digest = coalesce((SELECT bit_xor(step_digest(steps.id, steps.name))
                                               FROM steps WHERE steps.run_id = runs.id), 0);
    RETURN NULL;
END
$$;

-- Only these triggers write the two columns: a new run has no results yet (they reference it),
-- whatever an INSERT gives (a run copied with INSERT ... SELECT); a direct UPDATE keeps them.
CREATE FUNCTION runs_digest_new() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.results_count := 0;
    NEW.results_digest := 0;
    RETURN NEW;
END
$$;

CREATE FUNCTION runs_digest_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.results_count := OLD.results_count;
    NEW.results_digest := OLD.results_digest;
    RETURN NEW;
END
$$;

-- A step renamed (or moved to another run): row by row, as steps are updated often (progress)
-- and renamed rarely; the WHEN clause skips the others without calling the function.
CREATE FUNCTION runs_step_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE runs SET results_digest = results_digest # step_digest(OLD.id, OLD.name)
    WHERE id = OLD.run_id;
    UPDATE runs SET results_digest = results_digest # step_digest(NEW.id, NEW.name)
    WHERE id = NEW.run_id;
    RETURN NULL;
END
$$;
"""

TRIGGERS = """
CREATE TRIGGER runs_digest_new BEFORE INSERT ON runs
    FOR EACH ROW EXECUTE FUNCTION runs_digest_new();
CREATE TRIGGER runs_digest_kept BEFORE UPDATE OF results_count, results_digest ON runs
    FOR EACH ROW WHEN (pg_trigger_depth() = 0) EXECUTE FUNCTION runs_digest_kept();
CREATE TRIGGER results_digest_insert AFTER INSERT ON results
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION runs_results_digest();
CREATE TRIGGER results_digest_update AFTER UPDATE ON results
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION runs_results_digest();
CREATE TRIGGER results_digest_delete AFTER DELETE ON results
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION runs_results_digest();
CREATE TRIGGER steps_digest_insert AFTER INSERT ON steps
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION runs_steps_digest();
CREATE TRIGGER steps_digest_delete AFTER DELETE ON steps
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION runs_steps_digest();
CREATE TRIGGER results_digest_truncate AFTER TRUNCATE ON results
    FOR EACH STATEMENT EXECUTE FUNCTION runs_digest_truncated();
CREATE TRIGGER steps_digest_truncate AFTER TRUNCATE ON steps
    FOR EACH STATEMENT EXECUTE FUNCTION runs_digest_truncated();
CREATE TRIGGER steps_digest_rename AFTER UPDATE OF name, run_id ON steps
    FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.run_id IS DISTINCT FROM NEW.run_id)
    EXECUTE FUNCTION runs_step_renamed();
"""

BACKFILL = """
UPDATE runs SET results_count = d.n, results_digest = d.x
FROM (SELECT run_id, sum(n) AS n, coalesce(bit_xor(x), 0) AS x
      FROM (SELECT run_id, count(step_id) AS n,
                   bit_xor(result_digest(step_id, metric, unit, value)) AS x
            FROM results GROUP BY run_id
            UNION ALL
            SELECT run_id, 0, bit_xor(step_digest(id, name)) FROM steps GROUP BY run_id) parts
      GROUP BY run_id) d
WHERE runs.id = d.run_id;
"""


def upgrade() -> None:
    op.add_column(
        "runs", sa.Column("results_count", sa.Integer(), server_default="0", nullable=False)
    )
    op.add_column(
        "runs", sa.Column("results_digest", sa.BigInteger(), server_default="0", nullable=False)
    )
    # No result or step changes between the backfill and the triggers that take over.
    op.execute("LOCK TABLE results, steps IN SHARE ROW EXCLUSIVE MODE")
    op.execute(FUNCTIONS)
    op.execute(BACKFILL)
    op.execute(TRIGGERS)


def downgrade() -> None:
    for trigger, table in (
        ("runs_digest_new", "runs"),
        ("runs_digest_kept", "runs"),
        ("results_digest_insert", "results"),
        ("results_digest_update", "results"),
        ("results_digest_delete", "results"),
        ("steps_digest_insert", "steps"),
        ("steps_digest_delete", "steps"),
        ("steps_digest_rename", "steps"),
        ("results_digest_truncate", "results"),
        ("steps_digest_truncate", "steps"),
    ):
        op.execute(f"DROP TRIGGER {trigger} ON {table}")
    op.execute("DROP FUNCTION runs_step_renamed()")
    op.execute("DROP FUNCTION runs_digest_truncated()")
    op.execute("DROP FUNCTION runs_digest_kept()")
    op.execute("DROP FUNCTION runs_digest_new()")
    op.execute("DROP FUNCTION runs_steps_digest()")
    op.execute("DROP FUNCTION runs_results_digest()")
    op.execute("DROP FUNCTION step_digest(integer, text)")
    op.execute("DROP FUNCTION result_digest(integer, text, text, float8)")
    op.drop_column("runs", "results_digest")
    op.drop_column("runs", "results_count")
