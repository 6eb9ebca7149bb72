"""The api on several processes: what one process does, every other sees.

Two more apis (one process each, started as `drivelab up` starts its api) on the stack's
database and Redis: a run queued through A is watched live through B while the stack's own
local worker (reporting to the stack's api, a third group of processes) runs it; every sample
reaches B's viewer exactly once. Failed sign-ins through A and B count together, and `drivelab
up` itself runs one api process per core.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from backend.core.settings import Settings
from backend.up import Child
from backend.up import _api as up_api
from tests.conftest import Stack, User, free_port, wait_run
from tests.e2e.test_hostile import _children, api_processes, environ, stack_process
from tests.e2e.test_run_path import SHORT, queue

pytestmark = pytest.mark.e2e


@contextmanager
def api_process(stack: Stack) -> Iterator[tuple[str, Child]]:
    """One api process (no supervisor) on the stack's database and Redis, on a port of its
    own."""
    api_env = environ(stack_process(stack, "uvicorn"))
    port = free_port()
    env = {
        **os.environ,
        **{k: v for k, v in api_env.items() if k.startswith("DRIVELAB_")},
        "DRIVELAB_HOST": "127.0.0.1",
        "DRIVELAB_PORT": str(port),
        "DRIVELAB_API_WORKERS": "1",
    }
    child = up_api(Settings(host="127.0.0.1", port=port, api_workers=1), env, verbose=False)
    child.start()
    assert child.proc is not None
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            assert child.exited() is None, f"the api exited ({child.exited()})"
            try:
                if httpx.get(f"{url}/api/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the api did not answer"
            time.sleep(0.2)
        # One process: whatever it answers, it answers itself.
        assert _children(child.proc.pid) == []
        yield url, child
    finally:
        child.proc.terminate()
        child.proc.wait(60)


@pytest.fixture(scope="module")
def two_apis(stack: Stack) -> Iterator[tuple[str, str]]:
    with api_process(stack) as (a, _), api_process(stack) as (b, _):
        yield a, b


@dataclass
class Watch:
    """An SSE stream read in a thread: its events as (name, data), in order."""

    url: str
    token: str
    events: list[tuple[str, dict]] = field(default_factory=list)
    opened: threading.Event = field(default_factory=threading.Event)
    error: list[BaseException] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            with httpx.stream(
                "GET",
                self.url,
                headers={"Authorization": f"Bearer {self.token}"},
                timeout=httpx.Timeout(30, read=60),
            ) as resp:
                assert resp.status_code == 200, resp.read()
                name = None
                for line in resp.iter_lines():
                    if line.startswith("event: "):
                        name = line[7:]
                    elif line.startswith("data: ") and name:
                        self.events.append((name, json.loads(line[6:])))
                        self.opened.set()
                    if self.stop.is_set():
                        return
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.error.append(exc)
        finally:
            self.opened.set()

    def names(self) -> list[str]:
        return [n for n, _ in self.events]

    def of(self, name: str) -> list[dict]:
        return [d for n, d in self.events if n == name]


def test_a_run_queued_through_one_process_is_watched_live_through_another(
    stack: Stack, sim_drive: dict, two_apis: tuple[str, str]
) -> None:
    a, b = two_apis
    token = stack.token
    # B's lab overview, open before anything is queued.
    lab = Watch(f"{b}/api/runs/events", token)
    assert lab.opened.wait(60) and not lab.error, lab.error
    assert lab.names()[0] == "hello"
    params = {**SHORT, "prewrite": False, "patterns": ["incompressible"]}
    with httpx.Client(base_url=a, headers={"Authorization": f"Bearer {token}"}, timeout=30) as c:
        # The first run keeps the drive busy; the second waits behind it, so B's viewer is
        # watching it from before its first sample.
        first = queue(c, sim_drive, params)
        second = queue(c, sim_drive, params)
        watch = Watch(f"{b}/api/runs/{second['id']}/events", token)
        assert watch.opened.wait(60) and not watch.error, watch.error
        watch.thread.join(300)
        assert not watch.thread.is_alive(), "B's stream did not end with the run"
        assert not watch.error, watch.error
        runs = [wait_run(c, run["id"]) for run in (first, second)]
        stored = c.get(f"/api/runs/{second['id']}/samples").json()
    lab.stop.set()
    assert [r["status"] for r in runs] == ["done", "done"], runs
    # The stream opened with the run waiting (so nothing came before it) and ended with it
    # done, once.
    runs_seen = watch.of("run")
    assert runs_seen[0]["status"] == "queued", runs_seen[0]
    assert watch.events[-1] == ("run", watch.events[-1][1])
    assert runs_seen[-1]["status"] == "done"
    assert [r["status"] for r in runs_seen].count("done") == 1
    # Every sample the worker reported, exactly once, in the order it was stored.
    live = [(batch["step_id"], s["t"]) for batch in watch.of("samples") for s in batch["samples"]]
    assert len(watch.of("samples")) >= 4
    assert len(live) == len(set(live)), "a sample reached B's viewer twice"
    assert sorted(live) == sorted((s["step_id"], s["t"]) for s in stored)
    # Each batch once: no two `samples` events carry the same samples.
    batches = [json.dumps(batch, sort_keys=True) for batch in watch.of("samples")]
    assert len(batches) == len(set(batches))
    # Progress never goes back (an event relayed twice, late, would).
    progress = [d["progress"] for n, d in watch.events if n in ("run", "progress")]
    assert progress == sorted(progress)
    # The status moves forward only: queued, running, done, each in one stretch.
    statuses = [r["status"] for r in runs_seen]
    stretches = [s for i, s in enumerate(statuses) if i == 0 or statuses[i - 1] != s]
    assert stretches == ["queued", "running", "done"], statuses
    # B's lab overview heard of both runs queued through A.
    deadline = time.monotonic() + 30
    while {first["id"], second["id"]} - {d.get("run_id") for d in lab.of("runs")}:
        assert time.monotonic() < deadline, lab.events
        time.sleep(0.2)


def _sign_in(url: str, user: User, password: str) -> httpx.Response:
    with httpx.Client(base_url=url, timeout=30) as c:
        return c.post("/api/auth/login", json={"name": user.name, "password": password})


def test_failed_sign_ins_count_across_processes(stack: Stack, two_apis: tuple[str, str]) -> None:
    """The limit is 5 failures for a name from an address: alternating between two processes,
    each of which saw fewer than 5, the 6th attempt is refused by both."""
    a, b = two_apis
    user = stack.create_user("viewer")
    for i in range(5):
        r = _sign_in((a, b)[i % 2], user, "not the password")
        assert r.status_code == 401, r.text
    for url in (a, b, stack.api_url):
        r = _sign_in(url, user, user.password)
        assert r.status_code == 429, (url, r.text)
        assert f"too many failed sign-ins for user {user.name} from 127.0.0.1" in r.text
    # Another user, from the same address, is not refused by either.
    other = stack.create_user("viewer")
    assert _sign_in(b, other, other.password).status_code == 200


def test_an_idle_connection_outlives_the_clients_own_idle_expiry(stack: Stack) -> None:
    """The api keeps an idle keep-alive connection open well past httpx's 5 s idle expiry (the
    CLI's and the workers' client), so a client never reuses one the api is closing: one
    socket, a request, 8 s idle, still open on the api's side, a second request answered."""
    import socket

    host, port = stack.api_url.removeprefix("http://").rsplit(":", 1)
    request = f"GET /api/health HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()

    def answer(sock: socket.socket) -> bytes:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            assert chunk, f"the api closed the connection: {data!r}"
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = int(next(
            line.split(b":", 1)[1] for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        ))  # fmt: skip
        while len(body) < length:
            body += sock.recv(65536)
        return head

    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(request)
        assert answer(sock).startswith(b"HTTP/1.1 200")
        time.sleep(8)
        sock.setblocking(False)
        try:
            closed = sock.recv(1, socket.MSG_PEEK) == b""
        except BlockingIOError:
            closed = False  # nothing to read: open
        sock.setblocking(True)
        assert not closed, "the api closed an idle connection within 8 s"
        sock.sendall(request)
        assert answer(sock).startswith(b"HTTP/1.1 200")


def test_up_runs_one_api_process_per_core(stack: Stack) -> None:
    """The stack's `drivelab up` runs uvicorn's supervisor with one worker process per core
    (DRIVELAB_API_WORKERS unset), and says so to its processes."""
    supervisor = stack_process(stack, "uvicorn")
    cores = len(os.sched_getaffinity(0))
    # uvicorn's workers (multiprocessing's spawned processes), not its resource tracker
    workers = api_processes(stack)
    if cores == 1:
        assert workers == [supervisor]  # one process serves, without a supervisor
    else:
        assert len(workers) == cores and supervisor not in workers, workers
    assert environ(supervisor)["DRIVELAB_API_WORKERS"] == str(cores)
    # Every one of them serves: connections held open are spread over them by the kernel
    # (each accepts on the one listening socket); a worker that never accepts holds none.
    port = int(stack.api_url.rsplit(":", 1)[1])
    clients: list[httpx.Client] = []
    try:
        held: dict[int, int] = {}
        for _ in range(200):
            c = httpx.Client(base_url=stack.api_url, timeout=30)
            clients.append(c)
            assert c.get("/api/health").status_code == 200
            held = _connections_held(workers, port)
            if all(held.values()):
                break
        assert all(held.values()), f"api processes and the connections each holds: {held}"
    finally:
        for c in clients:
            c.close()


def _connections_held(pids: list[int], port: int) -> dict[int, int]:
    """How many established TCP connections to `port` (on the api's side) each process holds."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            next(f)
            for line in f:
                cols = line.split()
                local, state, inode = cols[1], cols[3], cols[9]
                if state == "01" and int(local.rsplit(":", 1)[1], 16) == port:
                    inodes.add(inode)
    held = {}
    for pid in pids:
        count = 0
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:[") and target[8:-1] in inodes:
                count += 1
        held[pid] = count
    return held


def _gone(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")  # exited, not yet reaped


def test_a_killed_api_supervisor_is_replaced_with_all_its_processes(stack: Stack) -> None:
    """The OOM killer takes uvicorn's supervisor: its worker processes, left holding the
    port, are stopped with it, and `up` starts the api again with all its processes. (Last in
    this module: the stack's api restarts.)"""
    supervisor = stack_process(stack, "uvicorn")
    workers = api_processes(stack)
    os.kill(supervisor, signal.SIGKILL)
    deadline = time.monotonic() + 120
    while True:
        assert stack.proc.poll() is None, stack.log_tail()
        try:
            again = stack_process(stack, "uvicorn")
        except AssertionError:
            again = None
        if again is not None and again != supervisor:
            try:
                if httpx.get(f"{stack.api_url}/api/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
        assert time.monotonic() < deadline, stack.log_tail()
        time.sleep(0.3)
    assert all(_gone(pid) for pid in workers), workers
    cores = len(os.sched_getaffinity(0))
    deadline = time.monotonic() + 60
    while True:
        procs = api_processes(stack)
        if procs == [again] if cores == 1 else len(procs) == cores and again not in procs:
            break
        assert time.monotonic() < deadline, procs
        time.sleep(0.3)
    assert "starting it again" in stack.log_tail(40)
    with stack.client() as c:
        assert c.get("/api/drives").status_code == 200
