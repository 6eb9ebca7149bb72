"""`drivelab up`: everything on one machine, embedded servers unless URLs are configured.

Starts (or reuses) PostgreSQL and Redis, applies migrations, makes sure an admin, the bench
`local` and its simulated drive exist, writes the CLI's credentials into the data directory,
then runs the api and one local worker until Ctrl-C.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from sqlalchemy import text
from sqlalchemy.orm import Session

from backend.audit import service as audit
from backend.benches.service import ensure_bench, get_bench_by_name
from backend.core.db import POOL_OVERFLOW, POOL_SIZE, make_engine, session_factory, transaction
from backend.core.embedded import EmbeddedPostgres, EmbeddedRedis
from backend.core.migrate import upgrade
from backend.core.settings import Settings, is_loopback
from backend.drives.service import get_or_create_model, register_drive
from backend.plans.base import parse_size
from backend.users import service as users
from worker.devices import identify

log = logging.getLogger("drivelab.up")

CREDENTIALS = "credentials.json"
# The name of the admin's API token that `up` writes for the CLI (replaced at every start).
CLI_TOKEN_NAME = "drivelab up (CLI)"
LOCAL_BENCH = "local"


def credentials_path(data_dir: Path) -> Path:
    return data_dir / CREDENTIALS


def write_credentials(data_dir: Path, api_url: str, token: str) -> Path:
    """Readable by this user only: it holds an admin token."""
    path = credentials_path(data_dir)
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump({"api_url": api_url, "token": token}, f)
    tmp.replace(path)
    return path


def create_sim_target(data_dir: Path, size: str) -> Path:
    """The simulated drive: a sparse file in the worker's sandbox (`targets/`)."""
    targets = data_dir / "targets"
    targets.mkdir(parents=True, exist_ok=True)
    path = targets / "sim0.img"
    want = parse_size(size)
    if not path.exists() or path.stat().st_size != want:
        with open(path, "ab") as f:
            f.truncate(want)
    return path


def bootstrap(
    database_url: str, data_dir: Path, api_url: str, sim_size: str, with_local_bench: bool = True
) -> str | None:
    """The admin (its fresh token goes to the CLI's credentials file) and, for the local
    worker, bench `local` with its simulated drive. Returns the bench's fresh token."""
    engine = make_engine(database_url)
    bench_token = None
    try:
        with transaction(session_factory(engine)) as session:
            admin = users.ensure_admin(session)
            # A fresh CLI token at every start; the previous one stops working.
            users.revoke_tokens_named(session, admin, CLI_TOKEN_NAME, audit.SYSTEM)
            _row, token = users.create_token(session, admin, CLI_TOKEN_NAME, audit.SYSTEM)
            if with_local_bench:
                bench_token = _local_bench(session, data_dir, sim_size)
        write_credentials(data_dir, api_url, token)
    finally:
        engine.dispose()
    return bench_token


def login_link(database_url: str, api_url: str) -> tuple[str, str]:
    """(a one-time sign-in link for the first admin, its name): `up` prints it on loopback."""
    engine = make_engine(database_url)
    try:
        with transaction(session_factory(engine)) as session:
            admin = users.ensure_admin(session)
            _link, raw = users.create_link(session, admin, users.ONCE_LINK_TTL_S, audit.SYSTEM)
            name = admin.name
    finally:
        engine.dispose()
    return f"{api_url}/login?once={raw}", name


def _local_bench(session: Session, data_dir: Path, sim_size: str) -> str:
    existed = get_bench_by_name(session, LOCAL_BENCH) is not None
    bench, bench_token = ensure_bench(session, LOCAL_BENCH)
    action = "bench.token_rotated" if existed else "bench.token_created"
    audit.record(session, action, audit.SYSTEM, subject=f"bench {LOCAL_BENCH}")
    target = create_sim_target(data_dir, sim_size)
    info = identify(target)
    model = get_or_create_model(
        session,
        vendor="drivelab",
        model="Simulated drive (sparse file)",
        capacity_bytes=info.size_bytes,
        interface="file",
        simulated=True,
    )
    register_drive(
        session,
        bench=bench,
        model=model,
        serial=info.serial,
        target_path=str(target),
        firmware="sim",
        logical_sector=info.logical_sector,
        replace=True,  # drivelab's own file: a new one when it was deleted
    )
    return bench_token


# pg_advisory_lock key of `up`'s start-up (migrations, the admin, the CLI's token).
START_UP_LOCK = 0x6472_7570  # "drup"


@contextmanager
def start_up_lock(database_url: str) -> Iterator[None]:
    """Held while one `up` migrates and bootstraps the database: another `up` on the same
    database (a second api replica) waits, then finds it done."""
    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT pg_advisory_lock(:key)"), {"key": START_UP_LOCK})
            conn.commit()
            try:
                yield
            finally:
                conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": START_UP_LOCK})
                conn.commit()
    finally:
        engine.dispose()


# Connections each api process may open (its pool: db.POOL_SIZE + db.POOL_OVERFLOW), and
# those the rest of the lab needs besides (migrations, the CLI, psql, another `up`).
CONNECTIONS_PER_API = POOL_SIZE + POOL_OVERFLOW
CONNECTIONS_SPARE = 10


def check_connection_budget(database_url: str, processes: int) -> None:
    """Warn when PostgreSQL's max_connections cannot serve every api process's pool at its
    fullest: under load, requests would then fail with 503s instead of waiting."""
    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            limit = int(conn.execute(text("SHOW max_connections")).scalar_one())
    finally:
        engine.dispose()
    need = processes * CONNECTIONS_PER_API + CONNECTIONS_SPARE
    if need > limit:
        log.warning(
            "%d api processes may open up to %d PostgreSQL connections, more than its "
            "max_connections (%d): raise max_connections to %d or more, or run fewer api "
            "processes (--api-workers / DRIVELAB_API_WORKERS)",
            processes,
            need,
            limit,
            need,
        )


@dataclass
class Child:
    """A process `up` runs (the api, the local worker). When one dies (a crash, the OOM killer)
    it is started again, so one failure does not take the whole lab down, unless it keeps
    dying: RESTARTS_MAX exits within RESTARTS_WINDOW_S stop drivelab."""

    name: str
    argv: list[str]
    env: dict[str, str]
    proc: subprocess.Popen[bytes] | None = None
    exits: list[float] = field(default_factory=list)
    quiet_stdout: bool = False  # what it prints on stdout (banners) goes nowhere
    # In a process group of its own (the api: uvicorn's supervisor and its worker
    # processes), so that stopping or restarting it reaches every process, even when the
    # supervisor itself was killed (the OOM killer) and left its workers on the port.
    own_group: bool = False

    def start(self) -> Child:
        if self.own_group:
            self.kill_group()
        out = subprocess.DEVNULL if self.quiet_stdout else None
        self.proc = subprocess.Popen(
            self.argv, env=self.env, stdout=out, process_group=0 if self.own_group else None
        )
        return self

    def kill_group(self) -> None:
        """Every process left in the child's group (none when it stopped cleanly)."""
        if self.own_group and self.proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)

    def exited(self) -> int | None:
        return None if self.proc is None else self.proc.poll()

    def may_restart(self) -> bool:
        now = time.monotonic()
        self.exits = [t for t in self.exits if now - t < RESTARTS_WINDOW_S] + [now]
        return len(self.exits) <= RESTARTS_MAX


RESTARTS_MAX = 5
RESTARTS_WINDOW_S = 60.0
# How long the api may take to answer after it is started: Python, FastAPI and the app
# imported by every process, slow on a busy two-core host.
API_START_S = 60.0


def _wait_healthy(api_url: str, children: list[Child], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for c in children:
            if c.exited() is not None:
                raise SystemExit(f"the {c.name} exited during start-up (status {c.exited()})")
        try:
            if httpx.get(f"{api_url}/api/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise SystemExit(f"the api did not answer at {api_url} within {timeout:.0f} s")


def _api(settings: Settings, env: dict[str, str], verbose: bool) -> Child:
    """uvicorn with settings.api_processes worker processes on one listening socket (one
    process, without a supervisor, for 1). uvicorn's supervisor starts a worker that dies
    again; `up` starts the supervisor again if it dies. The processes share nothing in
    memory that another needs: live events go through Redis pub/sub, sign-in limits are
    counted in Redis, and the caches are keyed by what the database holds."""
    argv = [
        sys.executable,
        "-m",
        "uvicorn",
        "backend.main:create_app",
        "--factory",
        "--host",
        settings.host,
        "--port",
        str(settings.port),
        "--workers",
        str(settings.api_processes),
        # A worker process that does not answer its supervisor's ping in time is killed and
        # started again: uvicorn's 5 s would kill workers still starting on a busy machine.
        "--timeout-worker-healthcheck",
        str(WORKER_HEALTHCHECK_S),
        # Open live streams end at a stop, so the processes exit before `up` gives up on them.
        "--timeout-graceful-shutdown",
        str(GRACEFUL_SHUTDOWN_S),
        # An idle keep-alive connection is closed after this long. uvicorn's 5 s is httpx's
        # own idle expiry (the CLI, workers): a client reusing a connection at ~5 s met the
        # api closing it and got "Server disconnected without sending a response" (seen on a
        # busy machine, the api process late to its timer). Longer than httpx's and than a
        # proxy's idle upstream connections (nginx: 60 s), so the client gives up first.
        "--timeout-keep-alive",
        str(KEEP_ALIVE_S),
        "--log-level",
        # uvicorn's own start and stop lines only with -v; drivelab's loggers keep their level
        settings.log_level.lower() if verbose else "warning",
        "--no-access-log",
        # X-Forwarded-For is read by the api itself, from DRIVELAB_TRUSTED_PROXIES only:
        # uvicorn's own default trusts it from 127.0.0.1, where anyone on the machine is.
        "--no-proxy-headers",
    ]
    return Child("api", argv, env, own_group=True)


WORKER_HEALTHCHECK_S = 60
KEEP_ALIVE_S = 75
GRACEFUL_SHUTDOWN_S = 10


def _local_worker(
    env: dict[str, str], api_url: str, redis_url: str, token: str, verbose: bool
) -> Child:
    argv = [sys.executable, "-m", "backend.cli", "worker", "--bench", LOCAL_BENCH]
    # Workers talk to the api only (DESIGN.md): the database's URL, and its password, stay
    # out of the local worker's environment as out of a lab machine's. The token is in the
    # environment, which only this user and root can read, never on the command line.
    # A broker CA set for the api (whose lab machines use the broker's TLS port) is not for a
    # local worker on a plain loopback broker, which would refuse a CA it cannot use.
    dropped = {"DRIVELAB_DATABASE_URL"}
    if not redis_url.startswith("rediss:"):
        dropped |= {"DRIVELAB_BROKER_CA", "DRIVELAB_BROKER_CERT", "DRIVELAB_BROKER_KEY"}
    worker_env = {
        **{k: v for k, v in env.items() if k not in dropped},
        "DRIVELAB_API_URL": api_url,
        "DRIVELAB_TOKEN": token,
        "DRIVELAB_BROKER_URL": redis_url,
    }
    if not verbose:
        # Celery's banner (stdout) and its warning about running as root (the local worker
        # opens loop devices) are for -v; the worker's own log (runs, spooling, reconnects)
        # stays.
        worker_env["PYTHONWARNINGS"] = "ignore:You're running the worker with superuser"
    return Child("local worker", argv, worker_env, quiet_stdout=not verbose)


# What the embedded servers and migrations print while starting (initdb's output, pg_ctl
# command lines, alembic's plugins and steps, a port line for a server on a socket): for -v.
START_UP_LOGGERS = ("pgserver", "alembic", "drivelab.embedded")


def _quiet_start_up() -> None:
    for name in START_UP_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    # platformdirs (under pgserver) warns that XDG_RUNTIME_DIR is unset, and falls back to /tmp
    warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")


def _where_data_lives(settings: Settings, data_dir: Path) -> str:
    if settings.database_url and settings.redis_url:
        return (
            f"data: the database and Redis at DRIVELAB_DATABASE_URL and DRIVELAB_REDIS_URL; "
            f"CLI credentials and simulated drives in {data_dir}"
        )
    return (
        f"data directory: {data_dir} (PostgreSQL, Redis, simulated drives, the CLI's "
        "credentials.json)"
    )


def up(settings: Settings, *, with_worker: bool = True, verbose: bool = False) -> None:
    """Start everything and print what a user needs: the address, a sign-in link and where
    the data lives (the servers' own start-up output with -v)."""
    settings.check_safe_bind()
    if not verbose:
        _quiet_start_up()
    data_dir = settings.data_dir
    data_dir.mkdir(parents=True, exist_ok=True)
    data_dir.chmod(0o700)
    pg = EmbeddedPostgres(data_dir)
    rd = EmbeddedRedis(data_dir)
    children: list[Child] = []
    try:
        database_url = settings.database_url or pg.start()
        redis_url = settings.redis_url or rd.start()
        shown_host = "127.0.0.1" if settings.host in ("0.0.0.0", "::") else settings.host
        api_url = f"http://{shown_host}:{settings.port}"
        # Replicas of the api (compose) start together on one database: one at a time
        # migrates it and makes the admin and its CLI token.
        with start_up_lock(database_url):
            upgrade(database_url)
            bench_token = bootstrap(
                database_url, data_dir, api_url, settings.sim_drive_size, with_worker
            )
            link = login_link(database_url, api_url) if is_loopback(settings.host) else None
        check_connection_budget(database_url, settings.api_processes)
        env = {
            **os.environ,
            "DRIVELAB_DATABASE_URL": database_url,
            "DRIVELAB_REDIS_URL": redis_url,
            "DRIVELAB_DATA_DIR": str(data_dir),
            # The api's own settings follow where it binds (--host may differ from the
            # environment's DRIVELAB_HOST): its cookies are Secure beyond loopback.
            "DRIVELAB_HOST": settings.host,
            "DRIVELAB_PORT": str(settings.port),
            "DRIVELAB_API_WORKERS": str(settings.api_processes),
        }
        children.append(_api(settings, env, verbose).start())
        _wait_healthy(api_url, children, timeout=API_START_S)
        # The worker starts once the api answers: its first hello is not refused meanwhile.
        if bench_token is not None:
            worker = _local_worker(env, api_url, redis_url, bench_token, verbose)
            children.append(worker.start())
        lines = [
            f"drivelab is running at {api_url}  (api docs: {api_url}/api/docs)",
            f"sign in as {link[1]}: {link[0]}  (works once, for 15 minutes)"
            if link is not None
            else "sign in: `drivelab login-link` on this machine prints a one-time link",
            _where_data_lives(settings, data_dir),
            "press Ctrl-C to stop" + ("" if verbose else "; -v shows the servers' own output"),
        ]
        print("\n".join(lines), flush=True)
        _supervise(children)
    finally:
        _stop([c.proc for c in children if c.proc is not None])
        for c in children:
            c.kill_group()
        rd.stop()
        pg.stop()


def _supervise(children: list[Child]) -> None:
    """Until Ctrl-C (or SIGTERM): start a child that died again, with a log line."""
    stopping = {"now": False}

    def handler(signum: int, _frame: object) -> None:
        stopping["now"] = True

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)
    while not stopping["now"]:
        for c in children:
            status = c.exited()
            if status is None or stopping["now"]:
                continue
            if not c.may_restart():
                log.error(
                    "the %s exited (status %s) %d times within %.0f s: stopping drivelab",
                    c.name,
                    status,
                    len(c.exits),
                    RESTARTS_WINDOW_S,
                )
                return
            log.warning("the %s exited (status %s): starting it again", c.name, status)
            c.start()
        time.sleep(0.3)
    print("stopping drivelab...", flush=True)


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in reversed(procs):
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in reversed(procs):
        try:
            p.wait(20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
