"""The embedded PostgreSQL's system user is created once, however many starts race for it."""

from __future__ import annotations

import os
import pwd
import secrets
import subprocess
import sys

import pytest

from backend.core.embedded import ensure_pgserver_user

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="pgserver makes its user only as root")


def test_starts_at_once_make_the_user_once() -> None:
    name = f"dltest{secrets.token_hex(3)}"
    code = f"from backend.core.embedded import ensure_pgserver_user; ensure_pgserver_user({name!r})"
    try:
        procs = [
            subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True)
            for _ in range(6)
        ]
        errors = [p.communicate()[1] for p in procs if p.wait() != 0]
        assert errors == []
        uid = pwd.getpwnam(name).pw_uid
        ensure_pgserver_user(name)  # there already: nothing changes
        assert pwd.getpwnam(name).pw_uid == uid
        assert sum(1 for e in pwd.getpwall() if e.pw_name == name) == 1
    finally:
        subprocess.run(["userdel", name], capture_output=True)
