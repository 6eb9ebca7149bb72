"""Step charts: the points a comparison's chart draws of a finished step, kept per chart

GET /api/compare/charts read and drew six chart series of every compared drive on each open:
each step's samples (a consistency pass's 2000 seconds as three arrays) or its window log (a
write-hitching pass's 100 ms bandwidth log, tens of thousands of numbers of JSONB), turned
into MB/s or IOPS and downsampled to the chart's points, for 88% of that answer's time. A
finished step's drawn points never change: this table keeps them, one row per step and chart
(`key`: the metric and the number of points asked for), with `series` the chart's entry for
the step exactly as compare_series makes it, as the JSON text the api writes for it (text, not
JSONB: the api sends it as it is, without decoding thousands of numbers into Python lists), or
NULL where the step draws nothing for that chart. Rows are made when a run finishes
(backend.results.chart_digests.make_for_run) and by the first comparison that draws a step
without one (runs finished before this table).

Triggers forget a step's rows when anything they were drawn from changes: the step's status,
name, parameters, analysis or logs, or its packed samples (only finished steps are drawn, and
a finished step's samples are packed: migration 0013).

Revision ID: 0022_step_charts
Revises: 0021_run_digests
Create Date: 2026-12-06 11:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022_step_charts"
down_revision: str | None = "0021_run_digests"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

FUNCTIONS = """
CREATE FUNCTION step_charts_forget() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'steps' THEN
        DELETE FROM step_charts WHERE step_id = NEW.id;
    ELSIF TG_OP = 'DELETE' THEN
        DELETE FROM step_charts WHERE step_id = OLD.step_id;
    ELSE
        DELETE FROM step_charts WHERE step_id = NEW.step_id;
    END IF;
    RETURN NULL;
END
$$;
"""

TRIGGERS = """
CREATE TRIGGER step_charts_step_update AFTER UPDATE OF status, name, params, analysis, logs
    ON steps FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.name IS DISTINCT FROM NEW.name
          OR OLD.params IS DISTINCT FROM NEW.params OR OLD.analysis IS DISTINCT FROM NEW.analysis
          OR OLD.logs IS DISTINCT FROM NEW.logs)
    EXECUTE FUNCTION step_charts_forget();
CREATE TRIGGER step_charts_samples_change AFTER INSERT OR UPDATE OR DELETE ON packed_samples
    FOR EACH ROW EXECUTE FUNCTION step_charts_forget();
"""


def upgrade() -> None:
    op.create_table(
        "step_charts",
        sa.Column(
            "step_id",
            sa.Integer(),
            sa.ForeignKey("steps.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("key", sa.Text(), primary_key=True),
        sa.Column("series", sa.Text(), nullable=True),
        sa.Column(
            "made_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False
        ),
    )
    op.execute(FUNCTIONS)
    op.execute(TRIGGERS)


def downgrade() -> None:
    op.execute("DROP TRIGGER step_charts_samples_change ON packed_samples")
    op.execute("DROP TRIGGER step_charts_step_update ON steps")
    op.execute("DROP FUNCTION step_charts_forget()")
    op.drop_table("step_charts")
