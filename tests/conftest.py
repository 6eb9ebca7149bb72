"""Shared fixtures: a real drivelab stack (api, Celery worker, PostgreSQL, Redis, fio).

The stack is started the way a user starts it, with `drivelab up`. It uses the machine's own
PostgreSQL and Redis when they answer on 127.0.0.1 (a fresh database per test session), and the
embedded servers otherwise, so `make test` passes on a machine with neither.

`stack.client()` calls the api as the admin (the token `drivelab up` wrote for the CLI);
`stack.client(token="")` anonymously. `stack.create_user(role)` adds a user with a password and
an API token, `stack.session_client(user)` signs a cookie session in as a browser does, and the
session fixture `users` holds one viewer and one reviewer.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import psycopg
import pytest
import redis

ROOT = Path(__file__).resolve().parent.parent
LOCAL_PG = "postgresql://postgres@127.0.0.1:5432/postgres"
LOCAL_REDIS = "redis://127.0.0.1:6379"


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def local_services_available() -> bool:
    if not (port_open(5432) and port_open(6379)):
        return False
    try:
        with psycopg.connect(LOCAL_PG, connect_timeout=3):
            return True
    except psycopg.Error:
        return False


@dataclass
class TestDatabase:
    url: str
    name: str

    def drop(self) -> None:
        with psycopg.connect(LOCAL_PG, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


def create_local_database() -> TestDatabase:
    name = f"drivelab_test_{secrets.token_hex(4)}"
    with psycopg.connect(LOCAL_PG, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return TestDatabase(url=f"postgresql://postgres@127.0.0.1:5432/{name}", name=name)


CSRF_COOKIE = "drivelab_csrf"


@dataclass
class User:
    id: int
    name: str
    role: str
    password: str
    token: str


REPORT_TIMEOUT_S = 60.0


def reported_device(
    c: httpx.Client,
    bench: str,
    target: str,
    serial: str | None = None,
    *,
    timeout: float = REPORT_TIMEOUT_S,
) -> dict:
    """The entry of bench `bench`'s device report for `target` (its path or a by-id name),
    once the bench's worker reports it (with `serial`, when given): a device attached or a
    file created a moment ago is in the report within a second or two."""
    deadline = time.monotonic() + timeout
    last: object = None
    while True:
        r = c.get(f"/api/benches/{bench}/devices")
        if r.status_code == 200:
            last = r.json()
            for entry in last:
                names = [entry["path"], *(entry.get("links") or [])]
                if target in names and (serial is None or entry["serial"] == serial):
                    return entry
        else:
            last = r.text
        if time.monotonic() >= deadline:
            raise AssertionError(
                f"bench {bench} did not report {target} (serial {serial}) within {timeout} s: "
                f"{last}"
            )
        time.sleep(0.2)


def report_devices(c: httpx.Client, bench_token: str, devices: list[dict]) -> None:
    """For a bench with no worker (its runs stay queued): post the device report its worker
    would (POST /api/worker/hello with the bench's token), adding `devices` to what it
    reported before."""
    with httpx.Client(
        base_url=str(c.base_url), headers={"Authorization": f"Bearer {bench_token}"}, timeout=30
    ) as bench:
        me = bench.post("/api/worker/hello", json={"host_info": {}})
        assert me.status_code == 200, me.text
        name = me.json()["name"]
        r = c.get(f"/api/benches/{name}/devices")
        before = r.json() if r.status_code == 200 else []
        paths = {d["path"] for d in devices}
        report = [d for d in before if d["path"] not in paths] + devices
        r = bench.post("/api/worker/hello", json={"host_info": {"devices": report}})
        assert r.status_code == 200, r.text


def synthetic_device(
    path: str, serial: str, size_bytes: int, *, simulated: bool = True, model: str | None = None
) -> dict:
    """One entry of a device report (worker/report.py) for a device no worker has."""
    return {
        "path": path,
        "kind": "block",
        "name": path.rsplit("/", 1)[-1],
        "model": model,
        "serial": serial,
        "firmware": None,
        "size_bytes": size_bytes,
        "logical_sector": 512,
        "physical_sector": 512,
        "rotational": False,
        "transport": "loop" if simulated else "nvme",
        "backing_file": None,
        "discard_max_bytes": None,
        "scheduler": None,
        "partitions": [],
        "holders": [],
        "links": [],
        "system": None,
        "in_use": [],
        "simulated": simulated,
        "emulated": False,
    }


def register_drive(
    c: httpx.Client,
    body: dict,
    *,
    bench_token: str | None = None,
    refused: bool = False,
    sandbox: Path | None = None,
) -> httpx.Response:
    """THE way tests register a drive: wait until the bench's worker reports the target (with
    the body's serial), then POST /api/drives with `body`.

    `bench_token`: a bench with no worker; its report is posted here first, with the body's
    target, serial and capacity (simulated unless the body says `simulated: False`).
    `refused`: the test expects the registration to be refused (a name the bench cannot
    report, say): post at once, without waiting for the report.

    The kernel hands the next test the loop device name an earlier test detached, while the
    stack still has that test's drive registered there (with another serial: refused, 409).
    As the api's message asks a lab to, move the earlier drive off the name first (to a file
    of its own in the bench's `sandbox`, which the bench reports); only for loop devices,
    whose names never identify a drive."""
    path = str(body["target_path"])
    if bench_token is not None:
        device = synthetic_device(
            path,
            str(body["serial"]),
            int(body.get("capacity_bytes") or 2**30),
            simulated=body.get("simulated", True) is not False,
            model=body.get("model"),
        )
        report_devices(c, bench_token, [device])
    if not refused:
        reported_device(c, str(body["bench"]), path, body.get("serial"))
    r = c.post("/api/drives", json=body)
    if r.status_code == 409 and re.fullmatch(r"/dev/loop[0-9]+", path) and sandbox:
        for drive in c.get("/api/drives").json():
            if drive["target_path"] == path and drive["bench"]["name"] == body["bench"]:
                gone = sandbox / f"gone-drive-{drive['id']}.img"
                with open(gone, "wb") as f:
                    f.truncate(1 << 20)
                entry = reported_device(c, str(body["bench"]), str(gone))
                moved = c.patch(
                    f"/api/drives/{drive['id']}",
                    json={"target_path": str(gone), "serial": entry["serial"]},
                )
                assert moved.status_code == 200, moved.text
        r = c.post("/api/drives", json=body)
    return r


def _send_csrf(client: httpx.Client) -> Callable[[httpx.Request], None]:
    """As the web app does: echo the CSRF cookie in X-CSRF-Token on unsafe requests."""

    def hook(request: httpx.Request) -> None:
        if request.method not in ("GET", "HEAD", "OPTIONS"):
            value = client.cookies.get(CSRF_COOKIE)
            if value:
                request.headers["X-CSRF-Token"] = value

    return hook


@dataclass
class Stack:
    api_url: str
    data_dir: Path
    database_url: str | None
    proc: subprocess.Popen[bytes]
    log: Path

    @property
    def token(self) -> str:
        return json.loads((self.data_dir / "credentials.json").read_text())["token"]

    def client(self, token: str | None = None, **kwargs: object) -> httpx.Client:
        """As the admin (the CLI's token); `token=""`: anonymous; any other: that token."""
        tok = self.token if token is None else token
        headers = {"Authorization": f"Bearer {tok}"} if tok else {}
        return httpx.Client(base_url=self.api_url, headers=headers, timeout=30, **kwargs)  # type: ignore[arg-type]

    def add_drive(self, target: Path | str, model: str, *, size: int | None = None) -> dict:
        """Register `target` as a simulated drive of bench local, with a model of its own
        named `model`; with `size`, first create it as a sparse file of that size."""
        if size is not None:
            with open(target, "wb") as f:
                f.truncate(size)
        from worker.devices import identify

        info = identify(target)
        with self.client() as c:
            r = register_drive(
                c,
                {
                    "bench": "local",
                    "target_path": str(target),
                    "serial": info.serial,
                    "vendor": "drivelab",
                    "model": model,
                    "capacity_bytes": info.size_bytes,
                    "interface": "file" if info.kind == "file" else "loop",
                    "simulated": True,
                },
                sandbox=self.data_dir / "targets",
            )
        assert r.status_code == 201, r.text
        return r.json()

    def create_user(self, role: str, name: str | None = None) -> User:
        """A new user with this role, a password and an API token (created by the admin)."""
        name = name or f"{role}-{secrets.token_hex(3)}"
        password = f"pw-{secrets.token_urlsafe(12)}"
        with self.client() as c:
            r = c.post("/api/users", json={"name": name, "role": role, "password": password})
            assert r.status_code == 201, r.text
            user = r.json()
            r = c.post(f"/api/users/{user['id']}/tokens", json={"name": "tests"})
            assert r.status_code == 201, r.text
        return User(user["id"], name, role, password, r.json()["token"])

    def session_client(self, user: User, *, csrf: bool = True, **kwargs: object) -> httpx.Client:
        """Signed in with the user's name and password, as a browser: cookies, and (unless
        csrf=False) the CSRF header on unsafe requests. Already open: close it (or use
        contextlib.closing), do not enter it with `with`."""
        client = httpx.Client(base_url=self.api_url, timeout=30, **kwargs)  # type: ignore[arg-type]
        r = client.post("/api/auth/login", json={"name": user.name, "password": user.password})
        assert r.status_code == 200, r.text
        if csrf:
            client.event_hooks["request"].append(_send_csrf(client))
        return client

    def login_link(self, user: str | None = None, ttl_s: int = 900) -> str:
        """A one-time sign-in link (as the admin creates one: POST /api/auth/links)."""
        body: dict[str, object] = {"ttl_s": ttl_s}
        if user:
            body["user"] = user
        with self.client() as c:
            r = c.post("/api/auth/links", json=body)
            assert r.status_code == 201, r.text
            return str(r.json()["url"])

    def printed_login_link(self, timeout: float = 10) -> str:
        """The one-time link `drivelab up` printed when it started. `up` prints it once its
        own health check passes, which may come a moment after the stack answers here; the
        log of a reused data directory also holds the links of earlier starts."""
        pattern = re.escape(self.api_url) + r"/login\?once=[\w-]+"
        deadline = time.monotonic() + timeout
        while True:
            found = re.findall(pattern, self.log.read_text(errors="replace"))
            if found or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert found, f"drivelab up printed no sign-in link for {self.api_url}:\n{self.log_tail()}"
        return found[-1]

    def cli(
        self, *args: str, check: bool = True, timeout: float = 300
    ) -> subprocess.CompletedProcess[str]:
        return run_cli(self.data_dir, *args, check=check, timeout=timeout)

    def log_tail(self, n: int = 60) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-n:])


def run_cli(
    data_dir: Path,
    *args: str,
    check: bool = True,
    timeout: float = 300,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    out = subprocess.run(
        [sys.executable, "-m", "backend.cli", "--data-dir", str(data_dir), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
    )
    if check and out.returncode != 0:
        raise AssertionError(
            f"drivelab {' '.join(args)} failed ({out.returncode}):\n{out.stdout}\n{out.stderr}"
        )
    return out


def start_stack(
    data_dir: Path, env: dict[str, str], *, sim_size: str = "1g", timeout: float = 90
) -> Stack:
    port = free_port()
    log = data_dir.parent / f"{data_dir.name}-up.log"
    data_dir.mkdir(parents=True, exist_ok=True)
    full_env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DRIVELAB_DATABASE_URL", "DRIVELAB_REDIS_URL")
    }
    full_env.update(env)
    full_env["DRIVELAB_HEARTBEAT_TIMEOUT_S"] = full_env.get("DRIVELAB_HEARTBEAT_TIMEOUT_S", "30")
    with open(log, "ab") as logf:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "backend.cli",
                "--data-dir",
                str(data_dir),
                "up",
                "--port",
                str(port),
                "--sim-size",
                sim_size,
            ],
            cwd=ROOT,
            env=full_env,
            stdout=logf,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    stack = Stack(
        api_url=f"http://127.0.0.1:{port}",
        data_dir=data_dir,
        database_url=env.get("DRIVELAB_DATABASE_URL"),
        proc=proc,
        log=log,
    )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"drivelab up exited ({proc.returncode}):\n{stack.log_tail()}")
        try:
            health = httpx.get(f"{stack.api_url}/api/health", timeout=2).json()
            # The admin's token, once `up` has written it (a reused data directory holds the
            # previous one until then: it is refused, and the loop tries again).
            auth = {"Authorization": f"Bearer {stack.token}"}
            drives = httpx.get(f"{stack.api_url}/api/drives", headers=auth, timeout=2).json()
            if health["status"] == "ok" and drives and drives[0]["bench"]["online"]:
                return stack
        except (httpx.HTTPError, ValueError, KeyError, TypeError, OSError):
            pass
        time.sleep(0.3)
    stop_stack(stack)
    raise AssertionError(f"drivelab up did not become ready:\n{stack.log_tail()}")


def stop_stack(stack: Stack, timeout: float = 60) -> int:
    """Ctrl-C, as a user stops it; returns the exit status."""
    let_pgserver_in(stack.data_dir)
    if stack.proc.poll() is None:
        stack.proc.send_signal(signal.SIGINT)
        try:
            stack.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            kill_session(stack.proc.pid)
            stack.proc.wait()
    return stack.proc.returncode


def kill_session(sid: int) -> None:
    """SIGKILL every process of the session `drivelab up` leads (start_new_session), in
    whichever process group: the api's processes have a group of their own."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            # pid (comm) state ppid pgrp session ...: comm may hold spaces and parentheses
            session = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[3])
            if session == sid:
                os.kill(int(entry.name), signal.SIGKILL)
        except (OSError, ValueError, IndexError):
            continue


def let_pgserver_in(data_dir: Path) -> None:
    """As root, pgserver runs the embedded PostgreSQL as the system user `pgserver`, and opens
    the directories above its data to others when it starts it. Every pytest session that
    starts later on the machine (another checkout's) closes pytest's own directory
    (/tmp/pytest-of-root) to its owner again, and pgserver's `pg_ctl stop` would then be
    refused: open the way again before it is needed."""
    if os.geteuid() == 0 and (data_dir / "postgres").is_dir():
        from pgserver.utils import ensure_prefix_permissions

        ensure_prefix_permissions(data_dir / "postgres")


# `make test` runs the suite on several xdist workers (`-n N --dist loadfile`), each a
# session with a stack of its own. A module's tests run on one worker, so its module fixtures
# start once; the modules named together here run on one worker, so they can share a
# session fixture. (xdist's own `xdist_group` marks do not work with pytest 9.2: xdist
# renames the test, and pytest no longer takes the name.) The slow parts are handed out
# first, so that none of them is left to run alone at the end.
SHARED_WORKER = {
    # The quick demo that both check (tests/e2e/conftest.py: quick_demo).
    "tests/e2e/test_demo.py": "demo",
    "tests/e2e/test_compare_ui.py": "demo",
    "tests/e2e/test_chart_boxes.py": "demo",
    # The virtual bench: one QEMU guest at a time on the machine (tests/e2e/vm.py).
    "tests/e2e/test_vmbench.py": "vm",
    # Simulated drives on a busy CPU (each module spins every core): one after the other.
    "tests/e2e/test_simulated_drives.py": "sim",
    "tests/e2e/test_significance_truth.py": "sim",
    "tests/e2e/test_thermal_sim.py": "sim",
    "tests/e2e/test_heat_sim.py": "sim",
    "tests/e2e/test_thermal_plan.py": "sim",
    "tests/e2e/test_slc_sim.py": "sim",
    "tests/e2e/test_bursts_sim.py": "sim",
    "tests/e2e/test_mixed_sim.py": "sim",
    "tests/e2e/test_file_copy_sim.py": "sim",
    "tests/e2e/test_as_ssd_sim.py": "sim",
    "tests/e2e/test_dirth_sim.py": "sim",
    "tests/e2e/test_composite_sim.py": "sim",
    "tests/e2e/test_full_drive_sim.py": "sim",
    "tests/e2e/test_vmbench_lost.py": "vm",
    "tests/e2e/test_article_print.py": "demo",
    "tests/e2e/test_article_pages.py": "demo",
}
SLOW_FIRST = ("tests/fuzz/", "tests/faults/", "tests/e2e/", "tests/test_up.py")
# The longest modules (minutes each on a busy 2-core machine, `--durations`), longest first:
# handed out before the rest, so that the workers end together.
LONGEST = (
    "tests/e2e/test_vmbench.py",  # a QEMU guest under TCG: boots, then runs on slow drives
    "tests/e2e/test_vmbench_lost.py",
    "tests/e2e/test_compare_ui.py",  # with test_demo.py: the quick demo, then the exports
    "tests/e2e/test_demo.py",
    "tests/e2e/test_chart_boxes.py",  # the quick demo's charts measured, a five-drive pack
    "tests/e2e/test_article_print.py",  # with the quick demo: two reports printed
    "tests/e2e/test_pts_browser.py",
    "tests/fuzz/",
    "tests/e2e/test_qos.py",
    "tests/e2e/test_pts.py",
    "tests/e2e/test_simulated_drives.py",
    "tests/e2e/test_pts_truth.py",
    "tests/e2e/test_interlock_fio.py",  # PTS rounds while a name changes
    "tests/e2e/test_interlock_fio_more.py",
    "tests/e2e/test_api_processes.py",  # two more apis, two runs, a killed api supervisor
    "tests/e2e/test_significance_truth.py",  # 36 runs on simulated drives, busy CPU
    "tests/e2e/test_series.py",
    "tests/e2e/test_series_ui.py",  # a series of two in the browser, ~70 s
)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class ByModule(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return SHARED_WORKER.get(module, module)

    return ByModule(config, log)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> tuple[int, int]:
        longest = next(
            (i for i, path in enumerate(LONGEST) if item.nodeid.startswith(path)), len(LONGEST)
        )
        slow = next(
            (i for i, path in enumerate(SLOW_FIRST) if item.nodeid.startswith(path)),
            len(SLOW_FIRST),
        )
        return longest, slow

    items.sort(key=rank)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item,
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A failed test that used the session's stack gets the end of its log in the report:
    what the api and the worker said is often the answer, and the stack is gone after."""
    report = yield
    stack = getattr(item, "funcargs", {}).get("stack")
    if report.failed and isinstance(stack, Stack):
        report.sections.append(("drivelab up log (last lines)", stack.log_tail(80)))
    return report


@pytest.fixture(scope="session")
def services() -> Iterator[dict[str, str]]:
    """Environment for `drivelab up`: a fresh database on the machine's PostgreSQL, or {} for
    the embedded one. Redis is always the stack's own (the embedded one, in its data
    directory): Celery's queues live in Redis, and a Redis of its own per stack lets any number
    of test sessions (xdist workers, other checkouts, CI) run on one machine at once."""
    if os.environ.get("DRIVELAB_TEST_EMBEDDED") == "1" or not local_services_available():
        yield {}
        return
    db = create_local_database()
    try:
        yield {"DRIVELAB_DATABASE_URL": db.url}
    finally:
        db.drop()


def reserve_redis_db() -> tuple[int, Callable[[], None]]:
    """A Redis database number no other session on this machine is using (the benchmarks run
    on the machine's Redis): Celery queues live in the database, so two sessions sharing one
    would take each other's runs."""
    token = secrets.token_hex(8)
    for number in range(1, 16):
        client = redis.Redis.from_url(f"{LOCAL_REDIS}/{number}")
        if client.set("drivelab-test-session", token, nx=True, ex=3600):
            client.flushdb()
            client.set("drivelab-test-session", token, ex=3600)

            def release(client: redis.Redis = client) -> None:
                if client.get("drivelab-test-session") == token.encode():
                    client.flushdb()

            return number, release
    raise AssertionError("every Redis database 1-15 on 127.0.0.1:6379 is in use")


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory, services: dict[str, str]) -> Iterator[Stack]:
    data_dir = tmp_path_factory.mktemp("stack") / "data"
    s = start_stack(data_dir, services)
    try:
        yield s
    finally:
        stop_stack(s)


@pytest.fixture(scope="session")
def users(stack: Stack) -> dict[str, User]:
    """One viewer and one reviewer, each with a password and an API token."""
    return {role: stack.create_user(role) for role in ("viewer", "reviewer")}


@pytest.fixture(scope="session")
def sim_drive(stack: Stack) -> dict:
    with stack.client() as c:
        drives = c.get("/api/drives").json()
    return next(d for d in drives if d["simulated"] and d["bench"]["name"] == "local")


def wait_run(
    client: httpx.Client,
    run_id: int,
    *,
    timeout: float = 240,
    until: tuple[str, ...] = ("done", "failed", "cancelled", "lost"),
) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run = client.get(f"/api/runs/{run_id}").json()
        if run["status"] in until:
            return run
        time.sleep(0.25)
    raise AssertionError(f"run {run_id} did not reach {until} within {timeout} s: {run}")


def run_done(
    client: httpx.Client, drive: dict, plan: str, params: dict, *, timeout: float = 240
) -> dict:
    """Queue `plan` on `drive` (its serial confirmed), wait for it, and return the finished
    run; fails saying why when the api refused it or it did not end done."""
    resp = client.post(
        "/api/runs",
        json={"plan": plan, "drive_id": drive["id"], "params": params,
              "confirm_serial": drive["serial"]},
    )  # fmt: skip
    assert resp.status_code < 300, resp.text
    done = wait_run(client, resp.json()["id"], timeout=timeout)
    assert done["status"] == "done", done
    return done
