"""Request dependencies as Annotated aliases: SessionDep, CurrentUser, BenchAuth, ..."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Annotated

import redis
from celery import Celery
from fastapi import Depends, Request
from sqlalchemy import event, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from backend.benches.models import Bench
from backend.core.errors import Forbidden, Unauthorized
from backend.core.security import hash_token
from backend.core.settings import Settings
from backend.users.models import User


@dataclass
class AppState:
    settings: Settings
    engine: Engine
    sessions: sessionmaker[Session]
    redis: redis.Redis
    celery: Celery
    # Names this installation's pub/sub channels (see backend.core.events.namespace).
    channels: str = "default"
    extras: dict[str, object] = field(default_factory=dict)


def get_state(request: Request) -> AppState:
    return request.app.state.drivelab


StateDep = Annotated[AppState, Depends(get_state)]


def after_commit(session: Session, fn: Callable[[], None]) -> None:
    """Run `fn` once the session's transaction has committed (e.g. send a Celery task), so a
    worker never receives a run that the database does not have."""
    session.info.setdefault("after_commit", []).append(fn)


def _run_after_commit(session: Session) -> None:
    pending = session.info.pop("after_commit", [])
    for fn in pending:
        fn()


def _drop_after_commit(session: Session) -> None:
    session.info.pop("after_commit", None)


def install_session_hooks(factory: sessionmaker[Session]) -> None:
    event.listen(factory, "after_commit", _run_after_commit)
    event.listen(factory, "after_soft_rollback", lambda s, _t: _drop_after_commit(s))


def get_session(state: StateDep) -> Iterator[Session]:
    """One transaction per request: commit on success, roll back on error.

    Used with scope="function" so the commit happens before the response is sent: a client
    that reads what it just created finds it.
    """
    session = state.sessions()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


SessionDep = Annotated[Session, Depends(get_session, scope="function")]


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() == "bearer" and token:
        return token.strip()
    return None


def get_optional_user(request: Request, session: SessionDep) -> User | None:
    token = _bearer(request)
    if not token:
        return None
    user = session.scalar(select(User).where(User.token_hash == hash_token(token)))
    if user is None:
        raise Unauthorized("unknown or revoked token: log in again or use a current API token")
    return user


def get_reviewer(user: Annotated[User | None, Depends(get_optional_user)]) -> User:
    if user is None:
        raise Unauthorized(
            "this action needs a reviewer: send 'Authorization: Bearer <token>' "
            "(the drivelab CLI does this with the credentials `drivelab up` wrote)"
        )
    if user.role not in ("admin", "reviewer"):
        raise Forbidden(
            f"user {user.name} is a {user.role}: queuing and cancelling need a reviewer"
        )
    return user


OptionalUser = Annotated[User | None, Depends(get_optional_user)]
Reviewer = Annotated[User, Depends(get_reviewer)]


def get_bench(request: Request, session: SessionDep) -> Bench:
    token = _bearer(request)
    if not token:
        raise Unauthorized("bench token missing: start the worker with --token (DRIVELAB_TOKEN)")
    bench = session.scalar(select(Bench).where(Bench.token_hash == hash_token(token)))
    if bench is None:
        raise Unauthorized(
            "unknown bench token: it was rotated or revoked; get the current one from the "
            "admin (`drivelab benches add NAME` prints a new one)"
        )
    return bench


BenchAuth = Annotated[Bench, Depends(get_bench)]
