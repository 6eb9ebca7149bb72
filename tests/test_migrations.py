"""The migrations build exactly the schema the models describe, and every one is reversible."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text

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


def test_stored_traces_are_read_again_as_fio_reads_them(empty_database: str) -> None:
    """A trace stored with the extent the old split gave (`\\r` between fields: one I/O
    ending at 4096) gets fio's (a write at 2 GiB); one fio would not replay gets NULL."""
    upgrade(empty_database, "0015_share_added_metrics")
    engine = create_engine(sqlalchemy_url(empty_database))
    crafted = b"fio version 2 iolog\nx add\nx open\nx write\r2147483648 4096\nx close\n"
    refused = b"fio version 2 iolog\nx add\nx open\nx write 0 0\nx close\n"
    try:
        with engine.begin() as conn:
            for name, data in (("crafted", crafted), ("refused", refused)):
                conn.execute(
                    text(
                        "INSERT INTO traces (name, format, size_bytes, ios, read_bytes, "
                        "write_bytes, sha256, end_bytes, align_bytes, data, created_at) VALUES "
                        "(:name, 'iolog-v2', :size, 1, 0, 4096, 'x', 4096, 4096, :data, now())"
                    ),
                    {"name": name, "size": len(data), "data": data},
                )
        upgrade(empty_database)
        with engine.connect() as conn:
            rows = dict(conn.execute(text("SELECT name, end_bytes FROM traces")).all())
        assert rows == {"crafted": 2147483648 + 4096, "refused": None}
    finally:
        engine.dispose()
