"""Benches: registration, tokens, liveness."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlsplit

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.benches.models import Bench
from backend.core.db import utcnow
from backend.core.security import hash_token, new_token
from backend.core.settings import is_loopback

# A bench is shown online when its worker was heard from this recently.
ONLINE_WITHIN = timedelta(seconds=30)


def get_bench_by_name(session: Session, name: str) -> Bench | None:
    return session.scalar(select(Bench).where(Bench.name == name))


def ensure_bench(session: Session, name: str) -> tuple[Bench, str]:
    """Create the bench if needed and give it a fresh token: (bench, token shown once)."""
    bench = get_bench_by_name(session, name)
    if bench is None:
        bench = Bench(name=name, host_info={})
        session.add(bench)
    token = new_token("dlb")
    bench.token_hash = hash_token(token)
    session.flush()
    return bench, token


def touch(bench: Bench, host_info: dict | None = None) -> None:
    bench.last_seen_at = utcnow()
    if host_info is not None:
        bench.host_info = host_info


def is_online(bench: Bench) -> bool:
    return bench.last_seen_at is not None and utcnow() - bench.last_seen_at < ONLINE_WITHIN


@dataclass(frozen=True)
class WorkerSetup:
    """What a bench's worker is started with, against this installation."""

    api_url: str
    broker_url: str
    # Shell lines to paste on the worker's machine: the exports, then `drivelab worker`.
    lines: list[str]
    # What is left to fill in or know (a placeholder, the machine it works on).
    notes: list[str]


LAB_SERVER = "labserver"


def worker_setup(name: str, token: str, *, api_address: str, broker_url: str | None) -> WorkerSetup:
    """The worker command of bench `name` for the api at `api_address` (DRIVELAB_PUBLIC_URL,
    else the address the request came to) and the api's own broker URL.

    A broker on loopback (the embedded Redis of `drivelab up`) is reached from this machine
    only: the command is for a worker here, with the api's and the broker's real addresses,
    and works as printed. Any other broker (compose's `redis`) is published by the server: the
    worker reaches it at the api's host, with the broker's port, password and database."""
    api = urlsplit(api_address.rstrip("/"))
    notes: list[str] = []
    broker = urlsplit(broker_url) if broker_url else None
    if broker is not None and is_loopback(broker.hostname or ""):
        api_url = api.geturl()
        worker_broker = broker.geturl()
        notes.append(
            "for a worker on this machine: the broker (the embedded Redis of `drivelab up`) "
            "listens on 127.0.0.1 only; workers on other machines need a Redis they can reach "
            "(DRIVELAB_REDIS_URL, see the README's Production section)"
        )
    else:
        host = api.hostname or LAB_SERVER
        if is_loopback(host):
            host = LAB_SERVER
            port = f":{api.port}" if api.port else ""
            api = api._replace(netloc=f"{host}{port}")
            notes.append(
                f"{LAB_SERVER}: this server's name or address on the lab network (set "
                "DRIVELAB_PUBLIC_URL on the server and it is printed here)"
            )
        api_url = api.geturl()
        if broker is None:
            worker_broker = f"redis://:REDIS_PASSWORD@{host}:6379/0"
            notes.append("REDIS_PASSWORD: the broker's password (DRIVELAB_REDIS_PASSWORD)")
        else:
            auth = f":{broker.password}@" if broker.password else ""
            db = broker.path.lstrip("/") or "0"
            worker_broker = f"{broker.scheme}://{auth}{host}:{broker.port or 6379}/{db}"
    lines = [
        f"export DRIVELAB_API_URL={api_url}",
        f"export DRIVELAB_BROKER_URL={worker_broker}",
        f"export DRIVELAB_TOKEN={token}",
        f"drivelab worker --bench {name}",
    ]
    return WorkerSetup(api_url=api_url, broker_url=worker_broker, lines=lines, notes=notes)
