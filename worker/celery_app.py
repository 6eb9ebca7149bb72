"""The Celery app shared by the api (which sends) and the bench workers (which consume).

One queue per bench (`bench.NAME`); a run's steps are a loop in the executor, not a chain.
"""

from __future__ import annotations

from celery import Celery
from kombu import Queue

RUN_TASK = "drivelab.run_plan"

# Longer than the longest plan (a PTS steady-state run of a large drive takes about a day):
# Redis redelivers an unacknowledged task after this, and the api's claim makes that harmless.
VISIBILITY_TIMEOUT_S = 7 * 24 * 3600


def bench_queue(bench: str) -> Queue:
    return Queue(f"bench.{bench}", routing_key=f"bench.{bench}")


def make_celery(broker_url: str) -> Celery:
    app = Celery("drivelab", broker=broker_url, set_as_current=False)
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_create_missing_queues=False,
        task_default_queue="bench.local",
        task_queues=(),
        broker_transport_options={"visibility_timeout": VISIBILITY_TIMEOUT_S},
        broker_connection_retry_on_startup=True,
        task_ignore_result=True,
        worker_hijack_root_logger=False,
        worker_send_task_events=False,
        task_serializer="json",
        accept_content=["json"],
    )
    return app


def send_run(app: Celery, bench: str, run_id: int) -> None:
    """Queue a run for its bench's worker (called only after the run is committed)."""
    queue = bench_queue(bench)
    app.send_task(RUN_TASK, args=[run_id], queue=queue, routing_key=queue.routing_key)
