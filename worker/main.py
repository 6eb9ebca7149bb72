"""`drivelab worker --bench NAME`: consume the bench's Celery queue and execute runs."""

from __future__ import annotations

import logging
import socket
import threading
import time
from typing import get_args
from urllib.parse import urlsplit

import redis
from celery import signals

from backend.core.redis_tls import BrokerTlsError, RedisTarget, redis_target, tls_problem
from backend.core.settings import WorkerSettings
from backend.plans import fio_check
from backend.plans.common import IoEngine
from worker.celery_app import RUN_TASK, bench_queue, make_celery
from worker.client import ApiClient, ApiError, ApiUnreachable, resend_spool
from worker.devices import identify
from worker.executor import WorkerContext, execute_run
from worker.fio import pin
from worker.hostinfo import host_info
from worker.report import device_report, signature
from worker.steps.write_cache import restore_pending

log = logging.getLogger("drivelab.worker")

HELLO_EVERY_S = 10.0
# How often the worker looks whether its devices changed (a cheap fingerprint); the report
# itself is computed only when they did, and with every hello (HELLO_EVERY_S).
REPORT_EVERY_S = 1.0


def _hello_loop(ctx: WorkerContext, stop: threading.Event) -> None:
    """Keep the bench shown online, with its host info and its device report: posted at once
    when its devices change (a drive attached or removed, a file put in the sandbox, a disk
    mounted), else every HELLO_EVERY_S. Runs in a thread of its own, never holding up runs or
    their samples: while the api is unreachable it only tries again on its next turn."""
    info = host_info(ctx.fio_binary)
    sent: list[dict] | None = None
    seen: int | None = -1  # nothing seen yet
    last_post = float("-inf")
    reachable = True
    while True:
        now = time.monotonic()
        fingerprint = _signature(ctx)
        due = now - last_post >= HELLO_EVERY_S
        if due or fingerprint != seen:
            report = _devices(ctx)
            seen = fingerprint
            if report != sent or due:
                try:
                    ctx.client.post(
                        "/api/worker/hello",
                        {"host_info": {**info, "devices": report}},
                        retry_for_s=0,
                    )
                    sent, last_post = report, now
                    if not reachable:
                        log.info("the api answers again: device report sent")
                    reachable = True
                except ApiError as exc:
                    log.error("the api refused this bench: %s", exc.detail)
                    last_post = now
                except ApiUnreachable as exc:
                    if reachable:
                        log.warning("%s", exc)
                    reachable = False
                    last_post = now
        if stop.wait(REPORT_EVERY_S):
            return


def _signature(ctx: WorkerContext) -> int | None:
    try:
        return signature(ctx.sandbox)
    except Exception:  # noqa: BLE001 - then the report is computed every turn
        return None


def _devices(ctx: WorkerContext) -> list[dict]:
    """The device report (worker.report): block devices and sandbox files, to register from."""
    try:
        return device_report(ctx.sandbox, ctx.data_dir)
    except Exception as exc:  # the report must never stop the hello that keeps a bench online
        log.warning("could not list this bench's devices: %s", exc)
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
    # How fio will be handed the target it must write (worker.fio.pin), found out now too.
    if pin.namespace_available():
        log.info("fio opens each run's target through a mount namespace of its own")
    else:
        log.warning(
            "fio opens each run's target as /proc/self/fd/N (this worker cannot make a mount "
            "namespace: not root, or not allowed here), so fio reports no disk utilisation"
        )


def run_worker(settings: WorkerSettings) -> None:
    if not settings.token:
        raise SystemExit(
            "no bench token: pass --token (or DRIVELAB_TOKEN); `drivelab benches add NAME` on the "
            "api host prints one"
        )
    target = broker_target(settings)  # a broker URL or CA file that cannot work stops here
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
    # Runs this bench lost (the worker killed, the power gone) may have left a drive's write
    # cache as their profile set it: put it back before taking the next run.
    for line in restore_pending(ctx.data_dir / "runs", identify):
        log.warning("%s", line)
    wait_for_broker(target)
    app = make_celery(target.url, target.tls)
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
        "bench %s: consuming queue %s from %s%s, api %s",
        settings.bench,
        queue.name,
        _redact(target.url),
        f" (TLS, verified against {target.ca_file})" if target.uses_tls else "",
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


def broker_target(settings: WorkerSettings) -> RedisTarget:
    """The broker's URL and TLS options (--broker-ca, --broker-cert, --broker-key), or exit
    saying what to fix: a rediss:// URL without a CA that exists, a CA given for a broker
    without TLS."""
    url = settings.broker
    try:
        target = redis_target(
            url,
            ca_file=settings.broker_ca,
            cert_file=settings.broker_cert,
            key_file=settings.broker_key,
        )
    except BrokerTlsError as exc:
        raise SystemExit(f"broker {_redact(url)}: {exc}") from None
    if not target.uses_tls and (settings.broker_ca or settings.broker_cert):
        raise SystemExit(
            f"a broker CA or client certificate is set (--broker-ca / DRIVELAB_BROKER_CA, "
            f"--broker-cert) but the broker URL {_redact(url)} is not rediss://: the password "
            "and the tasks would cross the network in clear. Use the broker's rediss:// URL "
            "and TLS port (6380 in drivelab's docker-compose.yml), or drop the CA"
        )
    return target


def broker_problem(target: RedisTarget | str) -> str | None:
    """What keeps this worker from using the broker at `target`, said so that it can be
    fixed; None when the broker answers."""
    if isinstance(target, str):
        target = RedisTarget(target)
    url = target.url
    where = broker_address(url)
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5, **target.tls)
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
        tls = tls_problem(exc, target, where)
        if tls is not None:
            return tls
        hint = ""
        if not target.uses_tls and ("closed by server" in str(exc) or "reset" in str(exc)):
            hint = (
                " (if that is Redis's TLS port, use rediss:// with the lab's CA: --broker-ca FILE)"
            )
        return f"cannot reach the broker at {where}: {exc}{hint}"
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


def wait_for_broker(target: RedisTarget | str, stop: threading.Event | None = None) -> None:
    """Until the broker answers: say why it does not (a wrong password, a certificate that
    does not verify, unreachable), and try again, less and less often. A lab machine that
    boots before the server, or whose broker password or certificate is being changed, keeps
    trying instead of exiting."""
    attempt = 0
    stop = stop or threading.Event()
    while (problem := broker_problem(target)) is not None:
        delay = BROKER_RETRY_S[min(attempt, len(BROKER_RETRY_S) - 1)]
        log.error("%s; trying again in %.0f s", problem, delay)
        attempt += 1
        if stop.wait(delay):
            return
    if attempt:
        url = target if isinstance(target, str) else target.url
        log.info("the broker at %s answers now", broker_address(url))


def _redact(url: str) -> str:
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        return f"{scheme}://***@{rest.split('@', 1)[1]}"
    return url
