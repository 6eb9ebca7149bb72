"""The audit actions: record() takes only the declared ones, every one declared is recorded
somewhere in drivelab, and the Admin page offers exactly those while typing a filter."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from backend.audit.service import ACTIONS, record

ROOT = Path(__file__).resolve().parents[3]


def test_an_undeclared_action_is_refused_before_touching_the_session() -> None:
    with pytest.raises(ValueError, match="unknown audit action 'run.queud'"):
        record(None, "run.queud", "drivelab up")  # type: ignore[arg-type]


def test_every_declared_action_is_recorded_by_the_backend() -> None:
    # Every backend module, the declaration itself left out.
    source = "\n".join(p.read_text() for p in (ROOT / "backend").rglob("*.py"))
    source = re.sub(r"ACTIONS = frozenset\(.*?\n\)\n", "", source, flags=re.S)
    quoted = set(re.findall(r'"([a-z_]+\.[a-z_]+)"', source))
    assert quoted >= ACTIONS, f"declared but never recorded: {sorted(ACTIONS - quoted)}"


def test_the_admin_page_offers_the_declared_actions() -> None:
    page = (ROOT / "frontend" / "src" / "pages" / "admin" / "admin-page.tsx").read_text()
    listed = re.search(r"const KNOWN_ACTIONS = \[(.*?)\];", page, re.S)
    assert listed, "admin-page.tsx has no KNOWN_ACTIONS list"
    assert set(re.findall(r'"([^"]+)"', listed.group(1))) == ACTIONS
