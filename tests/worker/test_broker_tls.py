"""The broker over TLS, against a real redis-server with TLS and certificates made by
`drivelab certs`: a Celery worker receives a task over rediss:// verified against the lab's
CA; a wrong CA, a missing CA and a name the certificate does not list are refused, each with
a message that says what to fix; the password and the task do not cross the network in clear.
"""

from __future__ import annotations

import contextlib
import secrets
import socket
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from celery.contrib.testing.worker import start_worker

from backend.core.redis_tls import BrokerTlsError, redis_target
from backend.core.settings import WorkerSettings
from tests.tls_redis import TlsRedis, client_cert, make_certs, tls_redis
from worker.celery_app import RUN_TASK, bench_queue, make_celery, send_run
from worker.main import broker_problem, broker_target


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_certs(tmp_path_factory.mktemp("certs"), "localhost", "127.0.0.1")


@pytest.fixture(scope="module")
def server(certs: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TlsRedis]:
    # Listening on 127.0.0.2 too: an address the certificate does not list.
    with tls_redis(
        certs,
        tmp_path_factory.mktemp("redis"),
        secrets.token_hex(16),
        plain=True,
        bind="127.0.0.1 127.0.0.2",
    ) as s:
        yield s


def _settings(url: str, **kwargs: object) -> WorkerSettings:
    return WorkerSettings(bench="tls", broker_url=url, **kwargs)


def test_a_worker_receives_a_task_over_tls(server: TlsRedis, certs: Path) -> None:
    """The worker's own path (broker_target, then make_celery) consumes a bench queue over
    rediss:// with the lab's CA; the api's side sends the task the same way."""
    target = broker_target(_settings(server.url("localhost"), broker_ca=certs / "ca.pem"))
    assert target.uses_tls and target.ca_file == str(certs / "ca.pem")
    assert target.tls["ssl_check_hostname"] is True
    assert broker_problem(target) is None

    bench = f"tls-{secrets.token_hex(4)}"
    app = make_celery(target.url, target.tls)
    queue = bench_queue(bench)
    app.conf.task_queues = (queue,)
    app.conf.task_default_queue = queue.name
    received: list[int] = []
    done = threading.Event()

    @app.task(name=RUN_TASK)
    def run_plan(run_id: int) -> None:
        received.append(run_id)
        done.set()

    api = make_celery(target.url, target.tls)
    with start_worker(app, pool="solo", perform_ping_check=False, queues=[queue.name]):
        send_run(api, bench, 4242)
        assert done.wait(60), "the worker received no task over TLS"
    assert received == [4242]
    # Really TLS: the connection Celery used was redis-py's SSL one, verifying.
    with app.connection_for_write() as conn:
        client = conn.default_channel.client
        kwargs = client.connection_pool.connection_kwargs
        assert issubclass(client.connection_pool.connection_class, redis.SSLConnection)
        assert kwargs["ssl_ca_certs"] == str(certs / "ca.pem")
        assert kwargs["ssl_cert_reqs"] == ssl.CERT_REQUIRED


def test_a_wrong_ca_is_refused_with_a_clear_message(
    server: TlsRedis, tmp_path: Path, certs: Path
) -> None:
    other = make_certs(tmp_path / "other", "localhost", "127.0.0.1")
    target = redis_target(server.url(), ca_file=other / "ca.pem")
    problem = broker_problem(target)
    assert problem is not None
    assert problem.startswith(
        f"the broker at rediss://127.0.0.1:{server.tls_port} presented a certificate that "
        f"does not verify against the CA in {other / 'ca.pem'} ("
    ), problem
    assert "ca.pem from `drivelab certs`" in problem
    # The right CA, but an address the certificate does not list.
    target = redis_target(server.url("127.0.0.2"), ca_file=certs / "ca.pem")
    problem = broker_problem(target)
    assert problem is not None and "does not verify" in problem, problem
    assert "127.0.0.2" in problem and "a name or address its certificate lists" in problem


def test_a_missing_ca_stops_the_worker_saying_what_to_set(
    server: TlsRedis, tmp_path: Path, certs: Path
) -> None:
    with pytest.raises(SystemExit) as exc:
        broker_target(_settings(server.url()))
    assert "no CA certificate was given" in str(exc.value)
    assert "--broker-ca FILE (DRIVELAB_BROKER_CA)" in str(exc.value)
    assert server.password not in str(exc.value)  # the URL is said without its password

    missing = tmp_path / "nowhere" / "ca.pem"
    with pytest.raises(SystemExit) as exc:
        broker_target(_settings(server.url(), broker_ca=missing))
    assert f"the broker's CA certificate {missing} does not exist" in str(exc.value)

    not_pem = tmp_path / "ca.pem"
    not_pem.write_text("not a certificate\n")
    with pytest.raises(SystemExit) as exc:
        broker_target(_settings(server.url(), broker_ca=not_pem))
    assert "holds no PEM certificate" in str(exc.value)

    # A CA for a plain URL: the password would go in clear; said, not ignored.
    plain = f"redis://:{server.password}@127.0.0.1:{server.plain_port}/0"
    with pytest.raises(SystemExit) as exc:
        broker_target(_settings(plain, broker_ca=certs / "ca.pem"))
    assert "is not rediss://" in str(exc.value)

    # Verification cannot be turned off from the URL.
    with pytest.raises(BrokerTlsError, match="always verifies"):
        redis_target(server.url() + "?ssl_cert_reqs=none", ca_file=certs / "ca.pem")
    # The CA may come in the URL instead, as redis-py and Celery spell it.
    in_url = redis_target(server.url() + f"?ssl_ca_certs={certs / 'ca.pem'}")
    assert in_url.url == server.url() and broker_problem(in_url) is None


def test_a_client_certificate_when_the_broker_requires_one(tmp_path: Path) -> None:
    """--broker-cert / --broker-key for a Redis with tls-auth-clients yes: without them the
    worker is told what to give, with them it is served."""
    certs = make_certs(tmp_path / "certs", "localhost")
    cert, key = client_cert(certs, "bench1")
    with tls_redis(certs, tmp_path, secrets.token_hex(8), client=(cert, key)) as server:
        ca = certs / "ca.pem"
        without = broker_problem(broker_target(_settings(server.url("localhost"), broker_ca=ca)))
        # Said outright when the server's alert is read, as a likely cause when TLS 1.3 let
        # the server close the connection first.
        assert without is not None, "served without a client certificate"
        assert (
            "requires a client certificate" in without
            or "if the broker requires client certificates" in without
        ), without
        assert "--broker-cert FILE and --broker-key FILE" in without, without
        settings = _settings(
            server.url("localhost"), broker_ca=ca, broker_cert=cert, broker_key=key
        )
        target = broker_target(settings)
        assert target.tls["ssl_certfile"] == str(cert) and target.tls["ssl_keyfile"] == str(key)
        assert broker_problem(target) is None
        # A key that is not the certificate's is refused at start, by name.
        wrong = _settings(
            server.url("localhost"), broker_ca=ca, broker_cert=cert, broker_key=certs / "redis.key"
        )
        with pytest.raises(SystemExit, match="cannot be used"):
            broker_target(wrong)


def test_plain_client_on_the_tls_port_is_told_to_use_rediss(server: TlsRedis) -> None:
    problem = broker_problem(f"redis://:{server.password}@127.0.0.1:{server.tls_port}/0")
    assert problem is not None and "use rediss:// with the lab's CA" in problem, problem


class Relay:
    """A TCP relay on loopback that keeps every byte a client sends to the server: what
    someone on the lab network would see."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.sent = bytearray()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            threading.Thread(target=self._pipe, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, False), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket, record: bool) -> None:
        try:
            while data := src.recv(65536):
                if record:
                    with self._lock:
                        self.sent += data
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.listener.close()


def test_the_password_and_the_task_are_not_on_the_wire(server: TlsRedis, certs: Path) -> None:
    """Through a relay that records the client's bytes: over TLS neither the password nor the
    task (its bench name) appears; the same over the plain port shows both, so the check can
    fail."""
    assert server.plain_port is not None
    marker = f"bench-{secrets.token_hex(6)}"
    password = server.password.encode()

    tls_relay = Relay(server.tls_port)
    try:
        target = redis_target(server.url(port=tls_relay.port), ca_file=certs / "ca.pem")
        assert broker_problem(target) is None
        send_run(make_celery(target.url, target.tls), marker, 7)
    finally:
        tls_relay.close()
    check = redis.Redis(port=server.plain_port, password=server.password)
    assert check.llen(bench_queue(marker).name) == 1  # the task reached Redis
    assert len(tls_relay.sent) > 500  # a TLS handshake and the commands went through it
    assert password not in tls_relay.sent
    assert marker.encode() not in tls_relay.sent

    plain_relay = Relay(server.plain_port)
    try:
        plain_url = f"redis://:{server.password}@127.0.0.1:{plain_relay.port}/0"
        send_run(make_celery(plain_url), marker, 8)
    finally:
        plain_relay.close()
    assert password in plain_relay.sent and marker.encode() in plain_relay.sent
    assert check.llen(bench_queue(marker).name) == 2
    check.delete(bench_queue(marker).name)
