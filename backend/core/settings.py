"""One Settings object per process, read from DRIVELAB_* environment variables.

The api and the CLI use `Settings`; a lab worker uses `WorkerSettings`, which holds no
database credentials at all (DESIGN.md: workers talk to the api only).
"""

from __future__ import annotations

import ipaddress
import os
from functools import lru_cache
from pathlib import Path

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "drivelab"


def is_loopback(host: str) -> bool:
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Settings(BaseSettings):
    """Settings of the api and of `drivelab up`."""

    model_config = SettingsConfigDict(env_prefix="DRIVELAB_", extra="ignore")

    data_dir: Path = Field(default_factory=default_data_dir)
    # Unset: `drivelab up` starts the embedded PostgreSQL / Redis in the data directory.
    database_url: str | None = None
    redis_url: str | None = None
    host: str = "127.0.0.1"
    port: int = 8000
    # Required when the api binds to a non-loopback address.
    secret_key: str | None = None
    # Size of the simulated drive that `drivelab up` creates for bench `local` (fio size syntax).
    sim_drive_size: str = "8g"
    # Directory holding the built frontend (frontend/dist); served at / when it exists.
    frontend_dir: Path | None = None
    # A running run whose worker has not been heard from for this long is marked `lost`.
    heartbeat_timeout_s: float = 60.0
    log_level: str = "INFO"
    # The address people use to reach drivelab (https://lab.example.com), for the links the api
    # hands out (one-time sign-in links, shared comparisons); the request's own URL when unset.
    public_url: str | None = None
    # Session cookies are Secure (sent over HTTPS only) unless the api binds to loopback;
    # set false to serve a trusted LAN over plain HTTP.
    cookie_secure: bool | None = None
    session_ttl_s: int = 7 * 24 * 3600
    # Sign-in attempts: this many failures per client address, and per user name, within the
    # window, and further attempts are refused (429) until the window ends.
    login_max_failures: int = 5
    login_window_s: int = 300
    # The largest request body the api reads (413 beyond), except trace uploads (256 MiB),
    # price CSV imports (5 MiB) and what workers report (worker_max_body_bytes).
    max_body_bytes: int = Field(default=512 * 1024, ge=1024)
    worker_max_body_bytes: int = Field(default=64 * 1024 * 1024, ge=1024)

    @field_validator("data_dir", mode="after")
    @classmethod
    def _expand(cls, v: Path) -> Path:
        return v.expanduser().resolve()

    @property
    def embedded(self) -> bool:
        return self.database_url is None or self.redis_url is None

    @property
    def secure_cookies(self) -> bool:
        return self.cookie_secure if self.cookie_secure is not None else not is_loopback(self.host)

    def check_safe_bind(self) -> None:
        """Refuse to serve beyond loopback with no secret configured."""
        if not is_loopback(self.host) and not self.secret_key:
            raise SystemExit(
                f"refusing to bind to {self.host}: set DRIVELAB_SECRET_KEY to a long random "
                "value before serving drivelab beyond this machine"
            )


class WorkerSettings(BaseSettings):
    """Settings of a lab worker (`drivelab worker`). No database credentials here."""

    model_config = SettingsConfigDict(env_prefix="DRIVELAB_", extra="ignore")

    bench: str = "local"
    api_url: str = "http://127.0.0.1:8000"
    token: str | None = None
    broker_url: str | None = None  # defaults to DRIVELAB_REDIS_URL
    redis_url: str | None = None
    data_dir: Path = Field(default_factory=default_data_dir)
    # File targets (simulated drives) must live inside this directory.
    sandbox_dir: Path | None = None
    # Number of runs (on different drives) this bench executes at once.
    concurrency: int = 4
    fio_binary: str = "fio"
    # fio's CPU priority (nice, -20..19). Raised by default: a fio thread held up by other work
    # on the bench stops issuing I/O, and its output then shows a stall the drive never made.
    # Raising it needs root (CAP_SYS_NICE); without, fio runs at the worker's own priority.
    fio_nice: int = Field(default=-10, ge=-20, le=19)
    log_level: str = "INFO"

    @property
    def broker(self) -> str:
        url = self.broker_url or self.redis_url
        if not url:
            raise SystemExit("no broker: set DRIVELAB_BROKER_URL (redis://host:6379/0)")
        return url

    @property
    def sandbox(self) -> Path:
        return (self.sandbox_dir or self.data_dir / "targets").expanduser().resolve()


@lru_cache
def get_settings() -> Settings:
    return Settings()
