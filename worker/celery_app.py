"""The Celery app shared by the api (which sends) and the bench workers (which consume).

One queue per bench (`bench.NAME`); a run's steps are a loop in the executor, not a chain.
"""

from __future__ import annotations

import json
from typing import Any

import redis
from celery import Celery
from kombu import Queue
from kombu.transport.redis import Channel

from backend.core.redis_tls import BrokerTlsError

RUN_TASK = "drivelab.run_plan"

# Longer than the longest plan (a PTS steady-state run of a large drive takes about a day):
# Redis redelivers an unacknowledged task after this, and the api's claim makes that harmless.
VISIBILITY_TIMEOUT_S = 7 * 24 * 3600


def bench_queue(bench: str) -> Queue:
    return Queue(f"bench.{bench}", routing_key=f"bench.{bench}")


def make_celery(broker_url: str, tls: dict[str, Any] | None = None) -> Celery:
    """The app for the broker at `broker_url`; for rediss://, `tls` holds the verified TLS
    options of backend.core.redis_tls.redis_target (kombu alone would connect without
    verifying the server's certificate)."""
    if broker_url.startswith("rediss:") and not tls:
        raise BrokerTlsError(
            "a rediss:// broker needs its TLS options (backend.core.redis_tls.redis_target)"
        )
    app = Celery("drivelab", broker=broker_url, set_as_current=False)
    app.conf.update(
        broker_use_ssl=tls or None,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_create_missing_queues=False,
        task_default_queue="bench.local",
        task_queues=(),
        broker_transport_options={"visibility_timeout": VISIBILITY_TIMEOUT_S},
        broker_connection_retry_on_startup=True,
        # A running test survives a broker restart (Celery 6 would cancel it by default): the
        # worker reports to the api, not to Redis, and the claim makes a redelivery harmless.
        worker_cancel_long_running_tasks_on_connection_loss=False,
        task_ignore_result=True,
        worker_hijack_root_logger=False,
        worker_send_task_events=False,
        task_serializer="json",
        accept_content=["json"],
    )
    return app


def send_run(app: Celery, bench: str, run_id: int, task_id: str | None = None) -> None:
    """Queue a run for its bench's worker (called only after the run is committed).

    `task_id` is the id the api recorded with the run, so it can later tell whether the broker
    still holds the task (see `tasks_in_broker`)."""
    queue = bench_queue(bench)
    app.send_task(
        RUN_TASK, args=[run_id], queue=queue, routing_key=queue.routing_key, task_id=task_id
    )


def tasks_in_broker(client: redis.Redis, benches: list[str]) -> set[str]:
    """Ids of the tasks the Redis broker holds for these benches: waiting in a bench queue (a
    list per priority, as kombu names them) or delivered to a worker and not yet acknowledged
    (kombu's `unacked` hash). A task in neither is lost: Redis restarted without its data."""
    keys = [
        f"{bench_queue(b).name}{Channel.sep}{p}" if p else bench_queue(b).name
        for b in benches
        for p in Channel.priority_steps
    ]
    with client.pipeline(transaction=False) as pipe:
        for key in keys:
            pipe.lrange(key, 0, -1)
        pipe.hvals(Channel.unacked_key)
        *queued, unacked = pipe.execute()
    messages = [_load(m) for items in queued for m in items]
    messages += [(_load(v) or [None])[0] for v in unacked]
    return {m["headers"]["id"] for m in messages if _task_message(m)}


def _load(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _task_message(message: Any) -> bool:
    return (
        isinstance(message, dict)
        and isinstance(message.get("headers"), dict)
        and bool(message["headers"].get("id"))
    )
