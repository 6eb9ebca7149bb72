"""The migrations build exactly the schema the models describe, and every one is reversible."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect

from backend.core.db import sqlalchemy_url
from backend.core.embedded import EmbeddedPostgres
from backend.core.migrate import downgrade, upgrade
from backend.models import Base
from tests.conftest import create_local_database, local_services_available


@pytest.fixture
def empty_database(tmp_path: Path) -> Iterator[str]:
    if local_services_available():
        db = create_local_database()
        try:
            yield db.url
        finally:
            db.drop()
    else:
        pg = EmbeddedPostgres(tmp_path)
        try:
            yield pg.start()
        finally:
            pg.stop()


def test_migrations_match_the_models_and_reverse(empty_database: str) -> None:
    upgrade(empty_database)
    engine = create_engine(sqlalchemy_url(empty_database))
    try:
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
        assert diff == [], f"models and migrations disagree: {diff}"
        downgrade(empty_database, "base")
        with engine.connect() as conn:
            assert set(inspect(conn).get_table_names()) <= {"alembic_version"}
        upgrade(empty_database)
        with engine.connect() as conn:
            assert "samples" in inspect(conn).get_table_names()
    finally:
        engine.dispose()
