"""The results tests' database: a fresh one per module, built by the migrations, and a session
on it whose changes are rolled back after each test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from backend.core.db import make_engine, session_factory
from backend.core.embedded import EmbeddedPostgres
from backend.core.migrate import upgrade
from tests.conftest import create_local_database, local_services_available


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    if local_services_available():
        db = create_local_database()
        url, stop = db.url, db.drop
    else:
        pg = EmbeddedPostgres(Path(tmp_path_factory.mktemp("pg")))
        url, stop = pg.start(), pg.stop
    upgrade(url)
    eng = make_engine(url)
    try:
        yield eng
    finally:
        eng.dispose()
        stop()


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    with session_factory(engine)() as s:
        yield s
        s.rollback()
