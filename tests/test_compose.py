"""docker-compose.yml cannot run here (no Docker engine): check it against the code instead."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from backend.cli import build_parser
from backend.core.settings import Settings, WorkerSettings

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]


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
    assert env["DRIVELAB_REDIS_URL"].startswith("redis://redis:6379/")


def test_worker_environment_matches_worker_settings() -> None:
    env = drivelab_env("worker")
    assert set(env) <= env_fields(WorkerSettings), set(env) - env_fields(WorkerSettings)
    assert env["DRIVELAB_API_URL"] == "http://api:8000"
    assert env["DRIVELAB_BROKER_URL"] == drivelab_env("api")["DRIVELAB_REDIS_URL"]
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
