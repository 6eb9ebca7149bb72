"""`drivelab worker --bench NAME`: consume the bench's Celery queue and execute runs."""

from __future__ import annotations

import logging
import socket
import threading
from typing import get_args
from urllib.parse import urlsplit

import redis
from celery import signals

from backend.core.settings import WorkerSettings
from backend.plans import fio_check
from backend.plans.common import IoEngine
from worker.celery_app import RUN_TASK, bench_queue, make_celery
from worker.client import ApiClient, ApiError, ApiUnreachable, resend_spool
from worker.devices import list_block_devices
from worker.executor import WorkerContext, execute_run
from worker.hostinfo import host_info

log = logging.getLogger("drivelab.worker")

HELLO_EVERY_S = 10.0


def _hello_loop(ctx: WorkerContext, stop: threading.Event) -> None:
    """Keep the bench shown online, with its host info."""
    info = host_info(ctx.fio_binary)
    while True:
        try:
            ctx.client.post(
                "/api/worker/hello", {"host_info": {**info, "devices": _devices()}}, retry_for_s=0
            )
        except ApiError as exc:
            log.error("the api refused this bench: %s", exc.detail)
        except ApiUnreachable as exc:
            log.warning("%s", exc)
        if stop.wait(HELLO_EVERY_S):
            return


def _devices() -> list[dict]:
    """The block devices this bench sees, so a reviewer picks a target from a list."""
    try:
        return [d.as_dict() for d in list_block_devices()]
    except OSError as exc:
        log.warning("could not list block devices: %s", exc)
        return []


def _probe_engines(ctx: WorkerContext) -> None:
    """Try each ioengine a plan can name on a scratch file now, so that the first run queued
    on this bench does not wait for it (fio_check.engine_problem remembers the answers), and
    say in the log which ones this bench cannot use."""
    workdir = ctx.data_dir / "engine-probe"
    workdir.mkdir(parents=True, exist_ok=True)
    for engine in get_args(IoEngine):
        problem = fio_check.engine_problem(engine, fio_binary=ctx.fio_binary, workdir=workdir)
        if problem:
            log.warning("ioengine %s does not work on this bench: %s", engine, problem)


def run_worker(settings: WorkerSettings) -> None:
    if not settings.token:
        raise SystemExit(
            "no bench token: pass --token (or DRIVELAB_TOKEN); `drivelab benches add NAME` on the "
            "api host prints one"
        )
    client = ApiClient(settings.api_url, settings.token)
    try:
        bench = client.post(
            "/api/worker/hello", {"host_info": host_info(settings.fio_binary)}, retry_for_s=30
        )
    except ApiError as exc:
        raise SystemExit(
            f"the api at {settings.api_url} refused this worker: {exc.detail}"
        ) from None
    except ApiUnreachable as exc:
        raise SystemExit(f"cannot reach the api: {exc}") from None
    if bench["name"] != settings.bench:
        raise SystemExit(
            f"this token belongs to bench {bench['name']!r}, not {settings.bench!r}: "
            f"start the worker with --bench {bench['name']} or use that bench's token"
        )
    settings.sandbox.mkdir(parents=True, exist_ok=True)
    ctx = WorkerContext(
        client=client,
        bench=settings.bench,
        data_dir=settings.data_dir,
        sandbox=settings.sandbox,
        fio_binary=settings.fio_binary,
        fio_nice=settings.fio_nice,
    )
    resend_spool(client, ctx.data_dir / "spool")
    wait_for_broker(settings.broker)
    app = make_celery(settings.broker)
    queue = bench_queue(settings.bench)
    app.conf.task_queues = (queue,)
    app.conf.task_default_queue = queue.name

    @app.task(name=RUN_TASK, acks_late=True)
    def run_plan(run_id: int) -> str:
        return execute_run(ctx, int(run_id))

    stop = threading.Event()

    @signals.worker_shutting_down.connect
    def _on_shutdown(**_kwargs: object) -> None:
        # Stop running fio jobs now instead of waiting for a 30-minute test to end.
        ctx.shutdown.set()
        stop.set()

    threading.Thread(target=_hello_loop, args=(ctx, stop), daemon=True, name="hello").start()
    threading.Thread(target=_probe_engines, args=(ctx,), daemon=True, name="engines").start()
    log.info(
        "bench %s: consuming queue %s from %s, api %s",
        settings.bench,
        queue.name,
        _redact(settings.broker),
        settings.api_url,
    )
    worker = app.Worker(
        queues=[queue.name],
        pool="threads",
        concurrency=settings.concurrency,
        hostname=f"{settings.bench}@{socket.gethostname()}",
        loglevel=settings.log_level,
        without_gossip=True,
        without_mingle=True,
        without_heartbeat=True,
    )
    worker.start()


BROKER_RETRY_S = (2.0, 5.0, 10.0, 30.0)


def broker_problem(url: str) -> str | None:
    """What keeps this worker from using the broker at `url`, said so that it can be fixed;
    None when the broker answers."""
    where = broker_address(url)
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5)
        try:
            client.ping()
        finally:
            client.close()
    except (redis.AuthenticationError, redis.exceptions.AuthorizationError) as exc:
        return _refused(url, where, str(exc))
    except redis.ResponseError as exc:
        if "AUTH" in str(exc).upper() or "PASSWORD" in str(exc).upper():
            return _refused(url, where, str(exc))
        return f"the broker at {where} answered with an error: {exc}"
    except redis.RedisError as exc:
        return f"cannot reach the broker at {where}: {exc}"
    except ValueError as exc:  # a URL redis cannot parse
        return f"the broker URL {_redact(url)} is not usable ({exc}): set DRIVELAB_BROKER_URL"
    return None


def _refused(url: str, where: str, reason: str) -> str:
    parts = urlsplit(url)
    given = "refused the password" if parts.password else "requires a password (none given)"
    db = parts.path.lstrip("/") or "0"
    return (
        f"the broker at {where} {given} ({reason}): set DRIVELAB_BROKER_URL (or "
        f"DRIVELAB_REDIS_URL) to {parts.scheme}://:PASSWORD@{parts.hostname}:"
        f"{parts.port or 6379}/{db}, with the password of the server's Redis "
        "(DRIVELAB_REDIS_PASSWORD in its docker-compose)"
    )


def broker_address(url: str) -> str:
    """scheme://host:port, without credentials."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname}:{parts.port or 6379}"


def wait_for_broker(url: str, stop: threading.Event | None = None) -> None:
    """Until the broker answers: say why it does not (a wrong password, unreachable), and try
    again, less and less often. A lab machine that boots before the server, or whose broker
    password is being changed, keeps trying instead of exiting."""
    attempt = 0
    stop = stop or threading.Event()
    while (problem := broker_problem(url)) is not None:
        delay = BROKER_RETRY_S[min(attempt, len(BROKER_RETRY_S) - 1)]
        log.error("%s; trying again in %.0f s", problem, delay)
        attempt += 1
        if stop.wait(delay):
            return
    if attempt:
        log.info("the broker at %s answers now", broker_address(url))


def _redact(url: str) -> str:
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        return f"{scheme}://***@{rest.split('@', 1)[1]}"
    return url
