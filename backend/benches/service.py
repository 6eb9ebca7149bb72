"""Benches: registration, tokens, liveness."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.benches.models import Bench
from backend.core.db import utcnow
from backend.core.security import hash_token, new_token

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
