"""The PTS tests' database: a fresh one per module, built by the migrations, and a session."""

from tests.backend.results.conftest import engine, session

__all__ = ["engine", "session"]
