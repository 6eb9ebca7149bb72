"""Benches: registration, tokens, liveness."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import SplitResult, urlsplit

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.benches.models import Bench
from backend.certs import fingerprint
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
    return seen_recently(bench.last_seen_at)


def seen_recently(last_seen_at: datetime | None, now: datetime | None = None) -> bool:
    """A bench last heard from at `last_seen_at` is online (within ONLINE_WITHIN of now)."""
    return last_seen_at is not None and (now or utcnow()) - last_seen_at < ONLINE_WITHIN


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
# Where the printed lines put the copy of the broker's CA certificate on a lab machine.
WORKER_CA_PATH = "/etc/drivelab/broker-ca.pem"


def worker_setup(
    name: str,
    token: str,
    *,
    api_address: str,
    broker_url: str | None,
    broker_public_url: str | None = None,
    broker_ca: Path | None = None,
) -> WorkerSetup:
    """The worker command of bench `name` for the api at `api_address` (DRIVELAB_PUBLIC_URL,
    else the address the request came to) and the api's own broker URL.

    A broker on loopback (the embedded Redis of `drivelab up`) is reached from this machine
    only: the command is for a worker here, with the api's and the broker's real addresses,
    and works as printed. With `broker_public_url` (DRIVELAB_BROKER_PUBLIC_URL) the worker
    reaches the broker there, with the api's broker password; a rediss:// one (TLS) adds the
    CA the worker verifies it with, a copy of `broker_ca` (DRIVELAB_BROKER_CA). Any other
    broker (compose's `redis`) is published by the server: the worker reaches it at the
    api's host, with the broker's port, password and database."""
    api = urlsplit(api_address.rstrip("/"))
    notes: list[str] = []
    broker = urlsplit(broker_url) if broker_url else None
    public = urlsplit(broker_public_url) if broker_public_url else None
    ca_line: list[str] = []
    if public is not None and (broker is None or not is_loopback(broker.hostname or "")):
        api, api_note = _reachable_api(api)
        notes += api_note
        api_url = api.geturl()
        password = public.password or (broker.password if broker is not None else None)
        if password is None and broker is None:
            password = "REDIS_PASSWORD"
            notes.append("REDIS_PASSWORD: the broker's password (DRIVELAB_REDIS_PASSWORD)")
        auth = f":{password}@" if password else ""
        db = public.path.lstrip("/") or "0"
        port = public.port or (6380 if public.scheme == "rediss" else 6379)
        worker_broker = f"{public.scheme}://{auth}{public.hostname}:{port}/{db}"
    elif broker is not None and is_loopback(broker.hostname or ""):
        api_url = api.geturl()
        worker_broker = broker.geturl()
        notes.append(
            "for a worker on this machine: the broker (the embedded Redis of `drivelab up`) "
            "listens on 127.0.0.1 only; workers on other machines need a Redis they can reach "
            "(DRIVELAB_REDIS_URL, see the README's Production section)"
        )
    else:
        api, api_note = _reachable_api(api)
        notes += api_note
        host = api.hostname or LAB_SERVER
        api_url = api.geturl()
        if broker is None:
            worker_broker = f"redis://:REDIS_PASSWORD@{host}:6379/0"
            notes.append("REDIS_PASSWORD: the broker's password (DRIVELAB_REDIS_PASSWORD)")
        else:
            auth = f":{broker.password}@" if broker.password else ""
            db = broker.path.lstrip("/") or "0"
            worker_broker = f"{broker.scheme}://{auth}{host}:{broker.port or 6379}/{db}"
    here = broker is not None and is_loopback(broker.hostname or "")
    # A worker needs a CA for a TLS broker whose URL does not name one itself.
    needs_ca = worker_broker.startswith("rediss:") and "ssl_ca_certs=" not in worker_broker
    if needs_ca and here and broker_ca is not None:
        ca_line = [f"export DRIVELAB_BROKER_CA={broker_ca}"]  # the api's own, on this machine
    elif needs_ca:
        ca_line = [f"export DRIVELAB_BROKER_CA={WORKER_CA_PATH}"]
        notes.append(_ca_note(broker_ca))
    lines = [
        f"export DRIVELAB_API_URL={api_url}",
        f"export DRIVELAB_BROKER_URL={worker_broker}",
        *ca_line,
        f"export DRIVELAB_TOKEN={token}",
        f"drivelab worker --bench {name}",
    ]
    return WorkerSetup(api_url=api_url, broker_url=worker_broker, lines=lines, notes=notes)


def _reachable_api(api: SplitResult) -> tuple[SplitResult, list[str]]:
    """The api as a lab machine reaches it: `labserver` for a loopback address, with a note."""
    host = api.hostname or LAB_SERVER
    if not is_loopback(host):
        return api, []
    port = f":{api.port}" if api.port else ""
    note = (
        f"{LAB_SERVER}: this server's name or address on the lab network (set "
        "DRIVELAB_PUBLIC_URL on the server and it is printed here)"
    )
    return api._replace(netloc=f"{LAB_SERVER}{port}"), [note]


def _ca_note(broker_ca: Path | None) -> str:
    """Where the broker's CA certificate comes from, with its fingerprint to check the copy
    by when the api can read it."""
    what = (
        f"{WORKER_CA_PATH}: a copy of the broker's CA certificate, ca.pem from `drivelab "
        "certs` on the server (the worker refuses a broker whose certificate it did not sign)"
    )
    if broker_ca is None:
        return what
    try:
        digest = fingerprint(broker_ca)
    except (OSError, ValueError):
        return f"{what}; the api cannot read DRIVELAB_BROKER_CA ({broker_ca})"
    return (
        f"{what}; check the copy with `openssl x509 -noout -fingerprint -sha256 -in "
        f"{WORKER_CA_PATH}`: SHA-256 {digest}"
    )
