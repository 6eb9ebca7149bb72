"""One Settings object per process, read from DRIVELAB_* environment variables.

The api and the CLI use `Settings`; a lab worker uses `WorkerSettings`, which holds no
database credentials at all (DESIGN.md: workers talk to the api only).
"""

from __future__ import annotations

import ipaddress
import os
from functools import lru_cache
from pathlib import Path
from typing import Annotated

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "drivelab"


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, e.g. a container's cpuset)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def is_loopback(host: str) -> bool:
    """Whether serving on `host` reaches this machine only. An empty host is not loopback:
    uvicorn listens on every address for it (Settings refuses it)."""
    if host == "localhost":
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
    # The api's worker processes under `drivelab up` (uvicorn --workers): one per core the
    # process may use when unset. Every process serves every route: live streams, caches and
    # sign-in limits are shared through Redis and the database (README: Performance).
    api_workers: int | None = Field(default=None, ge=1, le=64)
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
    # Sign-in attempts: this many failures for one user name from one client address within
    # the window, or login_max_failures_per_address for all names together, and further
    # attempts from there are refused (429) until the window ends. One-time links and API
    # tokens are never refused for them.
    login_max_failures: int = Field(default=5, ge=1)
    login_max_failures_per_address: int = Field(default=100, ge=1)
    login_window_s: int = Field(default=300, ge=1)
    # Reverse proxies in front of the api (addresses or networks: "10.0.0.5,fd00::/64"). From
    # them the client's address is the one they forward in X-Forwarded-For (and the scheme in
    # X-Forwarded-Proto); from anyone else those headers are ignored. None by default.
    trusted_proxies: Annotated[list[str], NoDecode] = []
    # The largest request body the api reads (413 beyond), except trace uploads (256 MiB),
    # price CSV imports (5 MiB) and what workers report (worker_max_body_bytes).
    max_body_bytes: int = Field(default=512 * 1024, ge=1024)
    worker_max_body_bytes: int = Field(default=64 * 1024 * 1024, ge=1024)
    # The broker over TLS (see backend/core/redis_tls.py): the CA certificate that verifies
    # Redis when redis_url is rediss://, and the one lab machines are told to use; the broker
    # as lab machines reach it (rediss://lab.example.com:6380/0; the password is the api's own),
    # for the worker command `drivelab benches add` prints.
    broker_ca: Path | None = None
    broker_public_url: str | None = None

    @field_validator("api_workers", mode="before")
    @classmethod
    def _workers(cls, v: object) -> object:
        # Set but empty (compose's ${DRIVELAB_API_WORKERS:-}): the default, one per core.
        return None if isinstance(v, str) and not v.strip() else v

    @field_validator("trusted_proxies", mode="before")
    @classmethod
    def _proxies(cls, v: object) -> object:
        items = v.split(",") if isinstance(v, str) else v
        if not isinstance(items, list):
            return items
        out = []
        for item in (str(i).strip() for i in items):
            if not item:
                continue
            try:
                out.append(str(ipaddress.ip_network(item, strict=False)))
            except ValueError:
                raise ValueError(
                    f"DRIVELAB_TRUSTED_PROXIES: {item!r} is not an address or a network "
                    "(CIDR): list the proxies' addresses, comma-separated (10.0.0.5,10.1.0.0/16)"
                ) from None
        return out

    @field_validator("data_dir", mode="after")
    @classmethod
    def _expand(cls, v: Path) -> Path:
        return v.expanduser().resolve()

    @property
    def api_processes(self) -> int:
        """How many api processes `drivelab up` runs: api_workers, else one per usable core."""
        return self.api_workers or usable_cores()

    @property
    def embedded(self) -> bool:
        return self.database_url is None or self.redis_url is None

    @property
    def secure_cookies(self) -> bool:
        return self.cookie_secure if self.cookie_secure is not None else not is_loopback(self.host)

    def check_safe_bind(self) -> None:
        """Refuse an empty host, and serving beyond loopback without a secret key long and
        varied enough to be one (SECRET_KEY_MIN_CHARS)."""
        if not self.host.strip():
            raise SystemExit(
                "the address to serve on (--host, DRIVELAB_HOST) is empty: give one, "
                "127.0.0.1 (this machine only, the default) or 0.0.0.0 (every address; needs "
                "DRIVELAB_SECRET_KEY)"
            )
        if is_loopback(self.host):
            return
        problem = secret_key_problem(self.secret_key)
        if problem:
            raise SystemExit(
                f"refusing to bind to {self.host}: {problem}; serving drivelab beyond this "
                f"machine needs DRIVELAB_SECRET_KEY set to at least {SECRET_KEY_MIN_CHARS} "
                "random characters. Make one with "
                '`python -c "import secrets; print(secrets.token_urlsafe(32))"` '
                "(or `openssl rand -hex 32`)"
            )


# A secret key is at least 32 random bytes written out: 43 characters of URL-safe base64
# (secrets.token_urlsafe(32)) or 64 hex digits (openssl rand -hex 32) both pass. A key of a few
# distinct characters repeated ("xxxx...") is refused however long.
SECRET_KEY_MIN_CHARS = 43
SECRET_KEY_MIN_DISTINCT = 10


def secret_key_problem(key: str | None) -> str | None:
    """Why `key` is not a secret key (None when it is one)."""
    if not key:
        return "DRIVELAB_SECRET_KEY is not set"
    if len(key) < SECRET_KEY_MIN_CHARS:
        return f"DRIVELAB_SECRET_KEY is too short ({len(key)} characters)"
    if len(set(key)) < SECRET_KEY_MIN_DISTINCT:
        return f"DRIVELAB_SECRET_KEY is not random (only {len(set(key))} distinct characters)"
    return None


class WorkerSettings(BaseSettings):
    """Settings of a lab worker (`drivelab worker`). No database credentials here."""

    model_config = SettingsConfigDict(env_prefix="DRIVELAB_", extra="ignore")

    bench: str = "local"
    api_url: str = "http://127.0.0.1:8000"
    token: str | None = None
    broker_url: str | None = None  # defaults to DRIVELAB_REDIS_URL
    redis_url: str | None = None
    # For a rediss:// broker: the lab's CA certificate that verifies it, and optionally this
    # worker's own certificate and key (for a Redis that requires client certificates).
    broker_ca: Path | None = None
    broker_cert: Path | None = None
    broker_key: Path | None = None
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
