"""When PostgreSQL or Redis cannot be reached, the api says so with 503 and Retry-After (the
fix is to retry), not a 500; a run already committed is not reported as failed because Redis
could not take its task."""

from __future__ import annotations

import logging
import socket
import time
from types import SimpleNamespace

import pytest
from fastapi.testclient import TestClient

from backend.core.settings import Settings
from backend.main import configure_logging, create_app
from backend.runs.queue import send_or_leave_to_reaper
from worker.celery_app import make_celery


def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_database_down_answers_503_with_retry_after(tmp_path) -> None:  # type: ignore[no-untyped-def]
    port = closed_port()
    settings = Settings(
        data_dir=tmp_path,
        database_url=f"postgresql+psycopg://drivelab@127.0.0.1:{port}/drivelab",
        redis_url=f"redis://127.0.0.1:{closed_port()}/0",
        frontend_dir=tmp_path,
    )
    client = TestClient(create_app(settings), raise_server_exceptions=False)
    resp = client.get("/api/runs", headers={"Authorization": "Bearer not-checked-before-db"})
    assert resp.status_code == 503, resp.text
    assert resp.headers["Retry-After"] == "5"
    body = resp.json()["detail"]
    assert "database is unavailable" in body and "retry" in body
    # Health still answers, and says which part is down.
    health = client.get("/api/health").json()
    assert health["status"] == "degraded"
    assert not health["database"]["ok"] and "unreachable" in health["database"]["detail"]


def test_run_committed_while_redis_is_down_is_left_to_the_reaper(caplog) -> None:  # type: ignore[no-untyped-def]
    state = SimpleNamespace(celery=make_celery(f"redis://127.0.0.1:{closed_port()}/0"))
    t0 = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="drivelab.queue"):
        send_or_leave_to_reaper(state, "lab1", 42, "task-42")  # type: ignore[arg-type]
    assert time.monotonic() - t0 < 30
    assert "run 42 is stored but Redis did not take its task" in caplog.text


def test_api_logs_its_own_info_lines(capfd) -> None:  # type: ignore[no-untyped-def]
    root = logging.getLogger()
    saved = root.handlers[:]
    root.handlers.clear()  # as under uvicorn: nothing configured the root logger
    ours = logging.getLogger("drivelab")
    saved_ours = ours.handlers[:], ours.propagate, ours.level
    ours.handlers.clear()
    try:
        configure_logging("INFO")
        logging.getLogger("drivelab.queue").info("run 7 dispatched to bench lab1")
        assert "INFO drivelab.queue: run 7 dispatched to bench lab1" in capfd.readouterr().err
    finally:
        root.handlers[:] = saved
        ours.handlers[:], ours.propagate, _ = saved_ours
        ours.setLevel(saved_ours[2])


@pytest.mark.parametrize("level", ["debug", "WARNING"])
def test_log_level_follows_settings(level: str) -> None:
    ours = logging.getLogger("drivelab")
    saved = ours.level
    try:
        configure_logging(level)
        assert ours.level == logging.getLevelName(level.upper())
    finally:
        ours.setLevel(saved)
