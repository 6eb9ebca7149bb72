"""The api on a Redis over TLS (DRIVELAB_REDIS_URL=rediss://..., DRIVELAB_BROKER_CA): its
health check, the tasks it sends and the live events it relays all go over a verified TLS
connection; without the CA it refuses to start, saying what to set."""

from __future__ import annotations

import asyncio
import secrets
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from fastapi.testclient import TestClient

from backend.core.settings import Settings
from backend.main import build_state, create_app
from backend.runs.router import _subscribe
from tests.tls_redis import TlsRedis, make_certs, tls_redis
from worker.celery_app import bench_queue, send_run


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TlsRedis]:
    certs = make_certs(tmp_path_factory.mktemp("certs"), "localhost")
    with tls_redis(certs, tmp_path_factory.mktemp("redis"), secrets.token_hex(16), plain=True) as s:
        yield s


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _settings(tmp_path: Path, server: TlsRedis, **kwargs: object) -> Settings:
    return Settings(
        data_dir=tmp_path,
        database_url=f"postgresql+psycopg://drivelab@127.0.0.1:{_closed_port()}/drivelab",
        redis_url=server.url("localhost"),
        frontend_dir=tmp_path,
        **kwargs,
    )


def test_the_api_uses_redis_over_verified_tls(tmp_path: Path, server: TlsRedis) -> None:
    settings = _settings(tmp_path, server, broker_ca=server.certs / "ca.pem")
    client = TestClient(create_app(settings), raise_server_exceptions=False)
    broker = client.get("/api/health").json()["broker"]
    assert broker["ok"] and broker["detail"].startswith("Redis 7"), broker

    state = build_state(settings)
    pool = state.redis.connection_pool
    assert issubclass(pool.connection_class, redis.SSLConnection)
    # A run's task, sent as the api sends it, lands in the bench's queue.
    bench = f"tls-{secrets.token_hex(4)}"
    send_run(state.celery, bench, 99)
    plain = redis.Redis(port=server.plain_port, password=server.password)
    assert plain.llen(bench_queue(bench).name) == 1
    plain.delete(bench_queue(bench).name)

    async def relay_one() -> bytes:
        client, pubsub = await _subscribe(state, "drivelab:test:tls")
        try:
            state.redis.publish("drivelab:test:tls", "event: hello\n\n")
            for _ in range(50):
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1)
                if message is not None:
                    return bytes(message["data"])
            raise AssertionError("no event came through the TLS subscription")
        finally:
            await pubsub.aclose()
            await client.aclose()

    assert asyncio.run(relay_one()) == b"event: hello\n\n"


def test_the_api_refuses_a_tls_redis_without_its_ca(tmp_path: Path, server: TlsRedis) -> None:
    with pytest.raises(SystemExit) as exc:
        build_state(_settings(tmp_path, server))
    said = str(exc.value)
    assert said.startswith("DRIVELAB_REDIS_URL: the broker URL is rediss:// (TLS) but no CA")
    assert "DRIVELAB_BROKER_CA" in said and server.password not in said
