"""Request dependencies as Annotated aliases: SessionDep, CurrentUser, Reviewer, Admin,
BenchAuth, ...

Roles: a viewer reads; a reviewer also queues, cancels, moves and resumes runs, edits the
catalog and prices, uploads traces and shares comparisons; an admin also manages users,
benches and tokens. A bench's token works on the worker api (/api/worker/...) only.
"""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Annotated

import anyio
import redis
from celery import Celery
from fastapi import Depends, Request
from fastapi.concurrency import run_in_threadpool
from sqlalchemy import event, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, SessionTransaction, sessionmaker

from backend.benches.models import Bench
from backend.core.db import REQUEST_SLOTS, utcnow
from backend.core.errors import Forbidden, Unauthorized
from backend.core.redis_tls import RedisTarget
from backend.core.security import hash_token
from backend.core.settings import Settings
from backend.users.models import ApiToken, LoginSession, User


@dataclass
class AppState:
    settings: Settings
    engine: Engine
    sessions: sessionmaker[Session]
    redis: redis.Redis
    celery: Celery
    # Names this installation's pub/sub channels (see backend.core.events.namespace).
    channels: str = "default"
    # The api's Redis: its URL and TLS options (backend.core.redis_tls), for new connections.
    redis_target: RedisTarget | None = None
    extras: dict[str, object] = field(default_factory=dict)


def get_state(request: Request) -> AppState:
    return request.app.state.drivelab


StateDep = Annotated[AppState, Depends(get_state)]


def after_commit(session: Session, fn: Callable[[], None]) -> None:
    """Run `fn` once the session's transaction has committed (e.g. send a Celery task), so a
    worker never receives a run that the database does not have.

    `fn` runs when the transaction has ended and its connection is back in the pool, so it
    may open a session of its own (publish_run does): run while the request still held its
    connection, every pooled connection could end up held by a request waiting for a second
    one, and the api stopped answering (50 benches streaming to watched runs did it)."""
    session.info.setdefault("after_commit", []).append(fn)


def _committed(session: Session) -> None:
    if not session.in_nested_transaction():  # releasing a savepoint is not the commit
        session.info["committed"] = True


def _run_after_commit(session: Session, transaction: SessionTransaction) -> None:
    if transaction.parent is not None:
        return
    committed = session.info.pop("committed", False)
    pending = session.info.pop("after_commit", [])
    if committed:
        for fn in pending:
            fn()


def _drop_after_commit(session: Session) -> None:
    session.info.pop("after_commit", None)
    session.info.pop("committed", None)


def install_session_hooks(factory: sessionmaker[Session]) -> None:
    event.listen(factory, "after_commit", _committed)
    event.listen(factory, "after_transaction_end", _run_after_commit)
    event.listen(factory, "after_soft_rollback", lambda s, _t: _drop_after_commit(s))


def request_slots(state: AppState) -> asyncio.Semaphore:
    """How many requests may hold a database session at once: fewer than the pool has
    connections (REQUEST_SLOTS of db.POOL_SIZE + db.POOL_OVERFLOW), the rest kept for work
    outside requests (SSE snapshots, after-commit hooks, the reaper)."""
    slots = state.extras.get("request_slots")
    if slots is None:
        slots = state.extras["request_slots"] = asyncio.Semaphore(REQUEST_SLOTS)
    return slots  # type: ignore[return-value]


def _end(session: Session, ok: bool) -> None:
    try:
        if ok:
            session.commit()
        else:
            session.rollback()
    finally:
        session.close()


async def get_session(state: StateDep) -> AsyncIterator[Session]:
    """One transaction per request: commit on success, roll back on error.

    Used with scope="function" so the commit happens before the response is sent: a client
    that reads what it just created finds it.

    A request waits for a slot here, in the event loop, before it can take a connection.
    FastAPI runs a request's sync dependencies, endpoint and this teardown in separate hops to
    its thread pool (40 threads), and a request keeps its connection between hops: with more
    requests than pooled connections, every thread could end up waiting for a connection held
    by requests waiting for a thread to commit and give it back (50 watched benches
    streaming stalled the api for the pool's 30 s timeout). With at most REQUEST_SLOTS
    sessions and more connections than that, a thread never waits for a connection held by a
    request that waits for a thread.
    """
    async with request_slots(state):
        session = state.sessions()
        ok = False
        try:
            yield session
            ok = True
        finally:
            # Shielded: a client that disconnects must not leave the connection checked out.
            with anyio.CancelScope(shield=True):
                await run_in_threadpool(_end, session, ok)


SessionDep = Annotated[Session, Depends(get_session, scope="function")]


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() == "bearer" and token:
        return token.strip()
    return None


SESSION_COOKIE = "drivelab_session"
CSRF_COOKIE = "drivelab_csrf"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# A token's last use is recorded at most this often (a read should not write every time).
TOKEN_USE_RESOLUTION = timedelta(minutes=1)

ROLE_RANK = {"viewer": 0, "reviewer": 1, "admin": 2}
SIGN_IN = (
    "sign in first: open /login in the browser (`drivelab login-link` prints a one-time link), "
    "or send 'Authorization: Bearer <token>' with a user's API token (the drivelab CLI sends "
    "the one `drivelab up` wrote)"
)


@dataclass
class Principal:
    """Who is calling: a user (by API token or session cookie) or a bench (by its token)."""

    user: User | None = None
    bench: Bench | None = None
    # token | session
    via: str = "token"
    session_id: int | None = None


def get_principal(request: Request, session: SessionDep) -> Principal | None:
    """The caller, or None when anonymous. A bearer token wins over a session cookie; a
    request authenticated by the session cookie with an unsafe method must echo the CSRF
    cookie in the X-CSRF-Token header (double submit, checked against the session too)."""
    token = _bearer(request)
    if token:
        digest = hash_token(token)
        found = session.execute(
            select(ApiToken, User)
            .join(User, User.id == ApiToken.user_id)
            .where(ApiToken.token_hash == digest, ApiToken.revoked_at.is_(None))
        ).first()
        if found is not None:
            api_token, user = found
            if user.disabled:
                raise Unauthorized(f"user {user.name} is disabled: ask an admin to enable it")
            now = utcnow()
            if api_token.last_used_at is None or now - api_token.last_used_at > (
                TOKEN_USE_RESOLUTION
            ):
                api_token.last_used_at = now
            return Principal(user=user, via="token")
        bench = session.scalar(select(Bench).where(Bench.token_hash == digest))
        if bench is not None:
            return Principal(bench=bench, via="token")
        raise Unauthorized(
            "unknown or revoked token: a user needs a current API token (or signs in at "
            "/login); a bench's worker needs the bench's current token (an admin issues one "
            "with POST /api/benches/NAME/token)"
        )
    cookie = request.cookies.get(SESSION_COOKIE)
    if not cookie:
        return None
    signed_in = session.execute(
        select(LoginSession, User)
        .join(User, User.id == LoginSession.user_id)
        .where(LoginSession.token_hash == hash_token(cookie), LoginSession.expires_at > utcnow())
    ).first()
    if signed_in is None or signed_in[1].disabled:
        request.state.auth_problem = (
            "your session has expired or was ended (signed out, or the user was disabled): "
            "sign in again"
        )
        return None
    login, user = signed_in
    if request.method not in SAFE_METHODS:
        header = request.headers.get(CSRF_HEADER, "")
        if (
            not header
            or not hmac.compare_digest(header, request.cookies.get(CSRF_COOKIE, ""))
            or not hmac.compare_digest(hash_token(header), login.csrf_hash)
        ):
            raise Forbidden(
                f"CSRF check failed: a request signed in by the session cookie must send the "
                f"{CSRF_COOKIE} cookie's value in the {CSRF_HEADER} header (the web app does "
                "this; scripts can use an API token instead)"
            )
    return Principal(user=user, via="session", session_id=login.id)


OptionalPrincipal = Annotated[Principal | None, Depends(get_principal)]


def _require(minimum: str, action: str) -> Callable[..., User]:
    def dependency(request: Request, principal: OptionalPrincipal) -> User:
        if principal is None:
            raise Unauthorized(getattr(request.state, "auth_problem", None) or SIGN_IN)
        if principal.bench is not None:
            raise Forbidden(
                f"this is bench {principal.bench.name}'s worker token: it only works for that "
                f"bench's worker on /api/worker/..., not for {action}"
            )
        user = principal.user
        assert user is not None
        if ROLE_RANK.get(user.role, -1) < ROLE_RANK[minimum]:
            raise Forbidden(f"user {user.name} is a {user.role}: {action} needs a {minimum}")
        return user

    return dependency


get_viewer = _require("viewer", "reading lab data")
get_reviewer = _require(
    "reviewer",
    "queuing, cancelling, moving and resuming runs, editing the catalog and prices, "
    "uploading traces and sharing comparisons",
)
get_admin = _require("admin", "managing users, benches and tokens")

CurrentUser = Annotated[User, Depends(get_viewer)]
Reviewer = Annotated[User, Depends(get_reviewer)]
Admin = Annotated[User, Depends(get_admin)]


def get_signed_in(principal: OptionalPrincipal, user: CurrentUser) -> Principal:
    """The signed-in user with how they signed in (session or token)."""
    assert principal is not None
    return principal


SignedIn = Annotated[Principal, Depends(get_signed_in)]


def get_bench(principal: OptionalPrincipal) -> Bench:
    if principal is None:
        raise Unauthorized("bench token missing: start the worker with --token (DRIVELAB_TOKEN)")
    if principal.bench is None:
        raise Forbidden(
            "the worker api takes a bench's token, not a user's: start the worker with the "
            "token an admin issued for the bench (POST /api/benches/NAME/token)"
        )
    return principal.bench


BenchAuth = Annotated[Bench, Depends(get_bench)]
