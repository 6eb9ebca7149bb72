"""Database engine, sessions and the declarative base."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import lru_cache

import pydantic_core
from sqlalchemy import DateTime, MetaData, create_engine
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {datetime: DateTime(timezone=True)}


def utcnow() -> datetime:
    return datetime.now(UTC)


def sqlalchemy_url(url: str) -> str:
    """Accept plain postgresql:// URLs and use the psycopg 3 driver for them."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


# The api's connections: POOL_SIZE kept open, up to POOL_OVERFLOW more under load. At most
# REQUEST_SLOTS requests hold a session at once (backend.core.deps.get_session); the other
# connections serve work outside requests (SSE snapshots, after-commit hooks, the reaper), so
# a request never waits for a connection that only a waiting request could give back.
POOL_SIZE = 10
POOL_OVERFLOW = 30
REQUEST_SLOTS = 30


def make_engine(url: str) -> Engine:
    # pool_pre_ping lets the api recover by itself when PostgreSQL restarts. JSONB is decoded
    # by pydantic's JSON parser: the same values as the standard library's, in half the time
    # (steps' window logs are tens of thousands of numbers).
    return create_engine(
        sqlalchemy_url(url),
        pool_pre_ping=True,
        pool_size=POOL_SIZE,
        max_overflow=POOL_OVERFLOW,
        json_deserializer=pydantic_core.from_json,
    )


@lru_cache
def get_engine(url: str) -> Engine:
    return make_engine(url)


def session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


@contextmanager
def transaction(factory: sessionmaker[Session]) -> Iterator[Session]:
    """One unit of work: commit on success, roll back on error."""
    session = factory()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()
