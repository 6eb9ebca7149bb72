"""The PTS tests' database: a fresh one per module, built by the migrations."""

from tests.backend.results.conftest import engine

__all__ = ["engine"]
