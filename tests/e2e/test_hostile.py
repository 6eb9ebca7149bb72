"""The api under hostile requests, through the whole stack: bodies too large for it, sign-in
attempts all at once, what a worker's token may read, and what the local worker's process
shows (`ps`, /proc/PID/environ).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import select
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from backend.openapi import schema
from tests.conftest import ROOT, Stack, User, register_drive, wait_run
from tests.e2e.test_run_path import queue

pytestmark = pytest.mark.e2e

KIB = 1024
MIB = 1024 * KIB
LIMIT = 512 * KIB  # DRIVELAB_MAX_BODY_BYTES's default


# --- the stack's processes -----------------------------------------------------------------


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == pid:
            found.append(int(entry.name))
    return found


def cmdline(pid: int) -> list[str]:
    """The process's command line; none when it ended since it was listed."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (FileNotFoundError, ProcessLookupError):
        return []
    return raw.decode().rstrip("\0").split("\0")


def environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().decode(errors="replace")
    return dict(item.split("=", 1) for item in raw.split("\0") if "=" in item)


def stack_process(stack: Stack, marker: str) -> int:
    """The process `drivelab up` started whose command line holds `marker`."""
    for pid in _children(stack.proc.pid):
        if marker in " ".join(cmdline(pid)):
            return pid
    raise AssertionError(f"drivelab up runs no process with {marker!r}")


def api_processes(stack: Stack) -> list[int]:
    """The processes that serve the api: uvicorn's worker processes (multiprocessing's
    spawned children of its supervisor), or uvicorn itself when it runs one process."""
    top = stack_process(stack, "uvicorn")
    workers = [pid for pid in _children(top) if "spawn_main" in " ".join(cmdline(pid))]
    return workers or [top]


class PeakRss:
    """Each api process's peak RSS over a block, from its RSS at the start (VmHWM reset)."""

    def __init__(self, stack: Stack) -> None:
        self.pids = api_processes(stack)
        self.before = {}
        for pid in self.pids:
            Path(f"/proc/{pid}/clear_refs").write_text("5")
            self.before[pid] = status_kib(pid, "VmRSS")

    def grown_kib(self) -> dict[int, int]:
        return {pid: status_kib(pid, "VmHWM") - self.before[pid] for pid in self.pids}


def worker_processes(stack: Stack) -> list[int]:
    """The local worker and every process under it (Celery's pool)."""
    top = stack_process(stack, "backend.cli worker")
    pids, todo = [], [top]
    while todo:
        pid = todo.pop()
        pids.append(pid)
        todo.extend(_children(pid))
    return pids


def status_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {field} in /proc/{pid}/status")


# --- body limits ---------------------------------------------------------------------------


def chunks(total: int, size: int = MIB) -> Iterator[bytes]:
    """`total` bytes of a JSON-looking body, `size` at a time, never all in memory."""
    block = b"x" * size
    yield b'{"name": "'
    sent = 0
    while sent < total:
        n = min(size, total - sent)
        yield block[:n]
        sent += n
    yield b'", "password": "x"}'


def assert_413(r: httpx.Response, limit: int = LIMIT) -> None:
    assert r.status_code == 413, r.text[:500]
    detail = r.json()["detail"]
    shown = f"{limit // MIB} MiB" if limit % MIB == 0 else f"{limit // KIB} KiB"
    assert "too large" in detail and shown in detail, detail


@pytest.mark.parametrize("path", ["/api/auth/login", "/api/runs"])
def test_oversized_body_is_refused_before_it_is_read(stack: Stack, path: str) -> None:
    big = b'{"name": "' + b"a" * (LIMIT + 10) + b'"}'
    with stack.client(token="") as c:
        # Declared: refused from the Content-Length alone.
        r = c.post(path, content=big, headers={"Content-Type": "application/json"})
        assert_413(r)
        assert "declared" in r.json()["detail"]
        # Streamed (chunked, no Content-Length): refused once the count passes the limit.
        r = c.post(path, content=chunks(2 * LIMIT, 64 * KIB))
        assert r.request.headers.get("transfer-encoding") == "chunked"
        assert_413(r)
        # Just under the limit is read (and answered on its merits).
        r = c.post(path, json={"name": "a" * (LIMIT - 100), "password": "x"})
        assert r.status_code in (401, 422), r.text[:300]


def test_validation_errors_echo_only_an_excerpt(stack: Stack) -> None:
    """A field of 400 KiB (under the body limit) comes back as a short excerpt."""
    with stack.client(token="") as c:
        r = c.post("/api/auth/login", json={"name": 7, "password": ["p" * (400 * KIB)]})
    assert r.status_code == 422, r.text[:300]
    assert len(r.content) < 4 * KIB, len(r.content)
    body = r.json()
    assert body["detail"].startswith("invalid request")
    assert any("characters)" in str(e.get("input")) for e in body["errors"]), body


def test_ten_megabyte_field_gets_a_small_422(stack: Stack) -> None:
    """Workers may send bigger bodies (sample batches, fio's output): a 10 MB string where a
    number belongs is refused, and the answer quotes a few characters of it."""
    token = _new_bench_token(stack)
    huge = "9" * (10 * 1000 * 1000)
    body = json.dumps({"status": "done", "metrics": [{"metric": "x", "value": huge}]}).encode()
    with stack.client(token=token) as c:
        r = c.post(
            "/api/worker/runs/1/steps/1/finish",
            content=body,
            headers={"Content-Type": "application/json"},
        )
    assert r.status_code == 422, r.text[:300]
    assert len(r.content) < 4 * KIB, len(r.content)
    assert "characters)" in r.text


def objects(total: int, size: int = MIB) -> Iterator[bytes]:
    """`total` bytes of a JSON array of empty objects: the most objects per byte a parser can
    be made to build (60 MiB of it is 20 million dicts, gigabytes)."""
    count, per = total // 3, size // 3
    yield b"["
    while count > 0:
        n = min(per, count)
        yield b"{}," * n
        count -= n
    yield b"{}]"


def objects_length(total: int) -> int:
    return 1 + total // 3 * 3 + 3


# The routes that take a worker's large reports (DRIVELAB_WORKER_MAX_BODY_BYTES, 64 MiB).
LARGE = [
    "/api/worker/runs/1/samples",
    "/api/worker/runs/1/steps/1/finish",
    "/api/worker/runs/1/steps/1/rounds",
    "/api/worker/runs/1/environment",
]


def test_a_workers_large_body_is_read_only_for_a_bench_token(stack: Stack) -> None:
    """The worker routes that take up to 64 MiB check the bench's token before they read the
    body: 60 MiB of `[{},{},...]` without a token, or with a wrong one, is answered 401
    without being parsed (it had taken the api from 120 MB to 1.7 GB). The other worker
    routes keep the 512 KiB limit of every body."""
    rss = PeakRss(stack)
    total = 60 * MIB
    with httpx.Client(base_url=stack.api_url, timeout=300) as c:
        for path in LARGE:
            for headers in ({}, {"Authorization": "Bearer dlb_not-a-bench-token"}):
                try:
                    r = c.post(
                        path,
                        content=objects(total),
                        headers={
                            **headers,
                            "Content-Type": "application/json",
                            "Content-Length": str(objects_length(total)),
                        },
                    )
                except httpx.TransportError:
                    continue  # answered before the whole body was sent: what matters is memory
                assert r.status_code == 401, (path, headers, r.text[:300])
        for path in ("/api/worker/hello", "/api/worker/runs/1/claim", "/api/worker/runs/1/finish"):
            r = c.post(path, content=objects(total), headers={"Content-Type": "application/json"})
            assert_413(r)
    grown = rss.grown_kib()
    assert max(grown.values()) < 50 * 1024, f"api processes' RSS grew by (KiB): {grown}"
    # A bench's own report of that size is read and answered on its merits.
    token = _new_bench_token(stack)
    with stack.client(token=token) as c:
        r = c.post(
            "/api/worker/runs/1/steps/1/finish",
            content=b'{"status": "done", "output": "' + b"x" * (8 * MIB) + b'"}',
            headers={"Content-Type": "application/json"},
        )
        assert r.status_code in (403, 404), r.text[:300]  # not this bench's run, or none


def _new_bench_token(stack: Stack, name: str | None = None) -> str:
    name = name or f"hostile-{secrets.token_hex(3)}"
    out = stack.cli("benches", "add", name).stdout
    token = next((w.split("=", 1)[1] for w in out.split() if w.startswith("DRIVELAB_TOKEN=")), None)
    assert token, out
    return token


def test_api_memory_stays_flat_under_a_gigabyte_body(stack: Stack) -> None:
    # Each api process's peak RSS (VmHWM) reset, so the peak measured is this test's.
    rss = PeakRss(stack)
    gib = 1024 * MIB
    with httpx.Client(base_url=stack.api_url, timeout=300) as c:
        for path in ("/api/auth/login", "/api/runs"):
            # chunked: the api cannot know the size before reading
            try:
                r = c.post(path, content=chunks(gib))
                assert_413(r)
            except httpx.TransportError:
                pass  # the api may close the connection; what matters is its memory
            r = c.post(
                path,
                content=chunks(gib - 29),
                headers={"Content-Length": str(gib), "Content-Type": "application/json"},
            )
            assert_413(r)
    grown = rss.grown_kib()
    assert max(grown.values()) < 50 * 1024, f"api processes' RSS grew by (KiB): {grown}"
    with stack.client() as c:
        assert c.get("/api/health").json()["status"] == "ok"


# --- numbers JSON cannot carry ------------------------------------------------------------

# What Python's and pydantic's JSON decoders take although JSON has no such number.
NON_FINITE = ("NaN", "Infinity", "-Infinity", "1e400", "-1e400")


def _json_operations() -> list[tuple[str, str, dict[str, Any]]]:
    """(method, path, body schema) of every operation of the api's OpenAPI schema
    (app.openapi()) that takes a JSON body."""
    api = schema()
    found = []
    for path, operations in api["paths"].items():
        for method, op in operations.items():
            body = op.get("requestBody", {}).get("content", {}).get("application/json")
            if body is None:
                continue
            ref = body["schema"].get("$ref", "")
            resolved = (
                api["components"]["schemas"][ref.rsplit("/", 1)[1]] if ref else body["schema"]
            )
            found.append((method.upper(), path, resolved))
    return found


def _non_finite_body(body_schema: dict[str, Any], literal: str) -> tuple[bytes, list[list[Any]]]:
    """A body with `literal` in every top-level field, and the fields' locations."""
    fields = list(body_schema.get("properties", {}))
    if fields:
        text = "{" + ", ".join(f"{json.dumps(f)}: {literal}" for f in fields) + "}"
        return text.encode(), [["body", f] for f in fields]
    if body_schema.get("type") == "array":
        return f"[{literal}]".encode(), [["body", 0]]
    return f'{{"value": {literal}}}'.encode(), [["body", "value"]]


def test_non_finite_numbers_get_a_422_naming_the_field_on_every_operation(stack: Stack) -> None:
    """NaN, Infinity and 1e400 in any JSON body, anonymously and signed in (a user's token;
    a bench's on the worker api): a 422 in JSON that names every field holding one, or 401
    where a route checks the token before it reads the body; never a 500."""
    from backend.runs.worker_router import LARGE_BODY_PATHS

    raw_first = [re.compile(f"/api/worker{p}") for p in LARGE_BODY_PATHS]
    operations = _json_operations()
    assert len(operations) > 20, operations  # the schema was read
    bench = _new_bench_token(stack)
    wrong: list[str] = []
    with stack.client(token="") as anon, stack.client() as admin, stack.client(token=bench) as b:
        for method, template, body_schema in operations:
            path = re.sub(r"\{[^}]+\}", "1", template)
            worker = path.startswith("/api/worker/")
            checks_token_first = any(p.fullmatch(path) for p in raw_first)
            for who, client in (("anonymous", anon), ("signed in", b if worker else admin)):
                for literal in NON_FINITE:
                    body, locs = _non_finite_body(body_schema, literal)
                    r = client.request(
                        method, path, content=body, headers={"Content-Type": "application/json"}
                    )
                    where = f"{method} {path} {who} {literal}"
                    if who == "anonymous" and checks_token_first:
                        if r.status_code != 401:
                            wrong.append(f"{where}: {r.status_code}, want 401: {r.text[:200]}")
                        continue
                    if r.status_code != 422:
                        wrong.append(f"{where}: {r.status_code}, want 422: {r.text[:200]}")
                        continue
                    answer = r.json()  # valid JSON, or this fails
                    named = [e["loc"] for e in answer["errors"] if e["type"] == "finite_number"]
                    if named != locs:
                        wrong.append(f"{where}: names {named}, want {locs}: {r.text[:300]}")
                    for loc in locs[:10]:
                        if f"{loc[1]}: Input should be a finite number" not in answer["detail"]:
                            wrong.append(f"{where}: the detail does not name {loc[1]}")
    assert not wrong, f"{len(wrong)} wrong answers:\n" + "\n".join(wrong[:40])


def test_a_non_finite_number_deep_in_a_workers_batch_is_refused(stack: Stack) -> None:
    """The worker's large bodies are parsed by pydantic, which took NaN in a float field as it
    is: a sample batch with one reaches no run, and the 422 says where it is."""
    bench = _new_bench_token(stack)
    counts = '"dt_ms": 1000, "read_bytes": 0, "write_bytes": 0, "read_ios": 0, "write_ios": 0'
    batch = (
        f'{{"step_id": 1, "progress": 0.5, "samples": [{{"t_ms": 1000, {counts}}}, '
        f'{{"t_ms": 2000, {counts}, "read_lat_mean_us": NaN}}]}}'
    ).encode()
    with stack.client(token=bench) as c:
        r = c.post(
            "/api/worker/runs/1/samples",
            content=batch,
            headers={"Content-Type": "application/json"},
        )
    assert r.status_code == 422, r.text
    loc = ["body", "samples", 1, "read_lat_mean_us"]
    assert [e["loc"] for e in r.json()["errors"]] == [loc], r.text
    assert "samples.1.read_lat_mean_us: Input should be a finite number" in r.json()["detail"]


# --- the rest of an oversized body is never read ------------------------------------------


def _raw(stack: Stack) -> socket.socket:
    port = int(urlsplit(stack.api_url).port or 80)
    sock = socket.create_connection(("127.0.0.1", port), timeout=60)
    return sock


def _head(path: str, *headers: str) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: drivelab", "Content-Type: application/json"]
    return ("\r\n".join([*lines, *headers]) + "\r\n\r\n").encode()


def _read_to_close(sock: socket.socket) -> bytes:
    """Everything the api sends until it closes the connection (a timeout fails the test:
    the api kept the connection open, waiting for the rest of the body)."""
    data = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            return data
        except TimeoutError:
            raise AssertionError(f"the api kept the connection open after {data[:300]!r}") from None
        if not chunk:
            return data
        data += chunk


def _response(data: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


@pytest.mark.parametrize(
    ("path", "limit"),
    [
        ("/api/auth/login", LIMIT),
        ("/api/runs", LIMIT),
        ("/api/worker/runs/1/samples", 64 * MIB),
        ("/api/traces?name=big", 256 * MIB),
        ("/api/prices/import", 5 * MIB),
    ],
)
def test_a_declared_gigabyte_is_answered_413_and_the_connection_closed_unread(
    stack: Stack, path: str, limit: int
) -> None:
    """Headers declaring 1 GiB and not one byte of the body: the 413 comes, and the api closes
    the connection rather than read (and throw away) the gigabyte it was promised."""
    with _raw(stack) as sock:
        sock.sendall(_head(path, f"Content-Length: {1024 * MIB}"))
        status, headers, body = _response(_read_to_close(sock))
    assert status == 413, body
    assert headers["connection"] == "close"
    detail = json.loads(body)["detail"]
    assert "1024.0 MiB declared" in detail and f"({limit} bytes)" in detail, detail


def test_an_answer_before_the_body_closes_the_connection(stack: Stack) -> None:
    """A worker route checks the bench's token before it reads its (up to 64 MiB) body: the
    401 comes without the body, and the connection is closed, not drained."""
    with _raw(stack) as sock:
        sock.sendall(_head("/api/worker/runs/1/samples", f"Content-Length: {60 * MIB}"))
        sock.sendall(b'{"samples": [')
        status, headers, body = _response(_read_to_close(sock))
    assert status == 401, body
    assert headers["connection"] == "close"
    assert "bench token missing" in json.loads(body)["detail"]
    # A request whose body has all arrived keeps its connection (no close for nothing).
    with _raw(stack) as sock:
        sock.sendall(_head("/api/auth/login", "Content-Length: 2") + b"{}")
        sock.settimeout(5)
        data = sock.recv(65536)
    status, headers, _body = _response(data)
    assert status == 422 and "connection" not in headers, data


def test_a_chunked_body_that_never_ends_is_cut_off_at_the_limit(stack: Stack) -> None:
    """A chunked body sent without end: the api reads up to its limit, answers 413 and closes
    the connection. The bytes the client got to send are the limit plus what the sockets'
    buffers hold (a few MB), never the 256 MiB this test is ready to send."""
    frame = b"%x\r\n" % (64 * KIB) + b"x" * (64 * KIB) + b"\r\n"
    sent, data, closed = 0, b"", False
    with _raw(stack) as sock:
        sock.sendall(_head("/api/auth/login", "Transfer-Encoding: chunked"))
        sock.setblocking(False)
        pending = b""
        while sent < 256 * MIB and not closed:
            readable, writable, _ = select.select([sock], [sock], [], 60)
            assert readable or writable, "the api neither read nor answered for 60 s"
            if readable:
                try:
                    chunk = sock.recv(65536)
                except ConnectionResetError:
                    chunk = b""
                data += chunk
                closed = not chunk
            elif writable:
                pending = pending or frame
                try:
                    n = sock.send(pending)
                except (BrokenPipeError, ConnectionResetError):
                    closed = True
                    continue
                sent, pending = sent + n, pending[n:]
        if not closed:
            sock.setblocking(True)
            sock.settimeout(60)
            data += _read_to_close(sock)
    assert closed, f"the api read {sent} bytes of a chunked body without closing"
    status, headers, body = _response(data)
    assert status == 413, data[:300]
    assert headers["connection"] == "close"
    assert "at most 512 KiB" in json.loads(body)["detail"]
    assert LIMIT < sent < LIMIT + 32 * MIB, sent


# --- sign-in attempts all at once ----------------------------------------------------------


def test_concurrent_wrong_passwords_get_at_most_the_limit_of_checks(stack: Stack) -> None:
    """60 wrong passwords at once from one address: each attempt is counted before its
    password is checked, so exactly 5 are checked (401) and every other one, the 6th
    included, is refused (429) without a check."""
    user = stack.create_user("viewer")
    wrong = {"name": user.name, "password": "not the password"}
    address = (
        f"127.{secrets.randbelow(200) + 20}.{secrets.randbelow(250)}.{secrets.randbelow(250) + 2}"
    )

    def attempt(_i: int) -> int:
        with httpx.Client(
            base_url=stack.api_url,
            transport=httpx.HTTPTransport(local_address=address),
            timeout=60,
        ) as c:
            return c.post("/api/auth/login", json=wrong).status_code

    with ThreadPoolExecutor(max_workers=60) as pool:
        statuses = list(pool.map(attempt, range(60)))
    assert set(statuses) <= {401, 429}, statuses
    assert statuses.count(401) == 5 and statuses.count(429) == 55, statuses
    # The window holds: the right password is refused too, without a check.
    with httpx.Client(
        base_url=stack.api_url, transport=httpx.HTTPTransport(local_address=address), timeout=60
    ) as c:
        r = c.post("/api/auth/login", json={"name": user.name, "password": user.password})
    assert r.status_code == 429, r.text


# --- what a worker's token may read --------------------------------------------------------

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def test_a_bench_reads_only_the_traces_its_runs_replay(stack: Stack) -> None:
    """Bench B (no worker: its run stays queued) reads the trace its run replays; the local
    bench, whose runs do not use it, is refused; once B's run is cancelled, B is refused too."""
    tag = secrets.token_hex(3)
    bench = f"traces-{tag}"
    token = _new_bench_token(stack, bench)
    data = (FIXTURES / "traces" / "mixed-v3.iolog").read_bytes()
    with stack.client() as admin:
        trace = admin.post("/api/traces", params={"name": f"own-{tag}"}, content=data).json()
        drive = register_drive(
            admin,
            {
                "bench": bench,
                "target_path": f"/dev/disk/by-id/nvme-hostile-{tag}",
                "serial": f"HOSTILE{tag}",
                "vendor": "drivelab",
                "model": f"Hostile {tag}",
                "capacity_bytes": 256 * MIB,
            },
            bench_token=token,
        )
        assert drive.status_code == 201, drive.text
        run = admin.post(
            "/api/runs",
            json={
                "plan": "trace-replay",
                "drive_id": drive.json()["id"],
                "params": {"trace_id": trace["id"], "prefill": False, "span": "8m"},
                "confirm_serial": f"HOSTILE{tag}",
            },
        )
        assert run.status_code == 201, run.text
        path = f"/api/worker/traces/{trace['id']}"
        with stack.client(token=token) as own:
            r = own.get(path)
            assert r.status_code == 200 and r.content == data
        with stack.client(token=_local_bench_token(stack)) as other:
            r = other.get(path)
            assert r.status_code == 403, r.text
            assert "reads only the traces of its own runs" in r.json()["detail"]
        assert admin.post(f"/api/runs/{run.json()['id']}/cancel").status_code == 200
        with stack.client(token=token) as own:
            assert own.get(path).status_code == 403


def _local_bench_token(stack: Stack) -> str:
    env = environ(stack_process(stack, "backend.cli worker"))
    return env["DRIVELAB_TOKEN"]


def test_local_worker_holds_no_database_url_and_no_token_on_its_command_line(
    stack: Stack,
) -> None:
    token = _local_bench_token(stack)
    pids = worker_processes(stack)
    for pid in pids:
        argv = " ".join(cmdline(pid))
        assert token not in argv and "--token" not in argv, argv
        env = environ(pid)
        assert "DRIVELAB_DATABASE_URL" not in env, f"worker {pid} has the database URL"
        assert not any(v.startswith("postgresql") for v in env.values()), pid
    # ...and the api process does have it (the check above reads the right variable).
    assert "DRIVELAB_DATABASE_URL" in environ(stack_process(stack, "uvicorn"))


# --- the broker's password -----------------------------------------------------------------


def _broker_of_stack(stack: Stack) -> tuple[str, int]:
    """(password, port) of the stack's Redis, as the api was given them."""
    url = urlsplit(environ(stack_process(stack, "uvicorn"))["DRIVELAB_REDIS_URL"])
    assert url.password, "the stack's Redis has no password"
    assert url.port is not None
    return url.password, url.port


def _worker_log_until(
    stack: Stack, tmp_path: Path, broker_url: str, wanted: str, times: int
) -> list[str]:
    """Start a lab worker (its own bench) against `broker_url`; its log lines holding
    `wanted`, once there are `times` of them."""
    bench = f"broker-{secrets.token_hex(3)}"
    token = _new_bench_token(stack, bench)
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DRIVELAB_DATABASE_URL", "DRIVELAB_REDIS_URL", "DRIVELAB_BROKER_URL")
    }
    env.update(
        DRIVELAB_API_URL=stack.api_url,
        DRIVELAB_TOKEN=token,
        DRIVELAB_BROKER_URL=broker_url,
        DRIVELAB_DATA_DIR=str(tmp_path / bench),
    )
    log = tmp_path / f"{bench}.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "backend.cli", "worker", "--bench", bench],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    try:
        deadline = time.monotonic() + 90
        while True:
            lines = [ln for ln in log.read_text(errors="replace").splitlines() if wanted in ln]
            if len(lines) >= times:
                # Still running: it keeps trying rather than exiting.
                assert proc.poll() is None, log.read_text()
                return lines
            assert proc.poll() is None, f"the worker exited:\n{log.read_text()}"
            assert time.monotonic() < deadline, f"no {wanted!r} {times} times:\n{log.read_text()}"
            time.sleep(0.2)
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_worker_says_the_broker_refused_its_password_and_keeps_trying(
    stack: Stack, tmp_path: Path
) -> None:
    password, port = _broker_of_stack(stack)
    lines = _worker_log_until(
        stack, tmp_path, f"redis://:not-{password}@127.0.0.1:{port}/0", "refused the password", 2
    )
    line = lines[0]
    assert f"the broker at redis://127.0.0.1:{port} refused the password" in line, line
    assert (
        f"DRIVELAB_BROKER_URL (or DRIVELAB_REDIS_URL) to redis://:PASSWORD@127.0.0.1:{port}/0"
        in line
    )
    assert "trying again in" in line
    assert password not in "\n".join(lines)  # the wrong one is not shown either
    # No password at all: said as such.
    lines = _worker_log_until(
        stack, tmp_path, f"redis://127.0.0.1:{port}/0", "requires a password (none given)", 1
    )
    assert f"the broker at redis://127.0.0.1:{port} requires a password" in lines[0]


# --- embargo on open streams ---------------------------------------------------------------


class Events:
    """An event stream read in a thread: (event, data) as they come; `ended` once it ends."""

    def __init__(self, client: httpx.Client, path: str) -> None:
        self.client = client
        self.path = path
        self.frames: list[tuple[str, Any]] = []
        self.ended = threading.Event()
        self.started = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        assert self.started.wait(30), f"{path} did not open"

    def _read(self) -> None:
        try:
            with self.client.stream("GET", self.path, timeout=httpx.Timeout(30, read=None)) as r:
                assert r.status_code == 200, r.read()
                self.started.set()
                event = ""
                for line in r.iter_lines():
                    if line.startswith("event: "):
                        event = line[len("event: ") :]
                    elif line.startswith("data: "):
                        self.frames.append((event, json.loads(line[len("data: ") :])))
        except httpx.HTTPError:
            pass
        finally:
            self.started.set()
            self.ended.set()

    def run_ids(self, since: int = 0) -> list[int]:
        return [d["run_id"] for e, d in self.frames[since:] if e == "runs"]

    def index_of_run(self, run_id: int) -> int | None:
        """The position of the first announcement of `run_id`."""
        return next(
            (i for i, (e, d) in enumerate(self.frames) if e == "runs" and d["run_id"] == run_id),
            None,
        )


def wait_for(what: str, condition: Callable[[], object], timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.1)


def test_an_embargo_stops_open_streams_for_viewers(
    stack: Stack, tmp_path: Path, users: dict[str, User]
) -> None:
    """A viewer's run stream opened before the embargo ends at its next event after it (the
    run still running), and the viewer's lab stream stops announcing the run, while the
    admin's keeps announcing it."""
    tag = secrets.token_hex(3)
    target = stack.data_dir / "targets" / f"hostile-embargo-{tag}.img"
    drive = stack.add_drive(target, f"Hostile embargo {tag}", size=128 * MIB)
    # The marker: a run on a drive of a bench with no worker (it stays queued), visible to all.
    bench = f"marker-{tag}"
    marker_token = _new_bench_token(stack, bench)
    with stack.client() as admin:
        marker_drive = register_drive(
            admin,
            {
                "bench": bench,
                "target_path": f"/dev/disk/by-id/nvme-marker-{tag}",
                "serial": f"MARKER{tag}",
                "vendor": "drivelab",
                "model": f"Marker {tag}",
                "capacity_bytes": 256 * MIB,
            },
            bench_token=marker_token,
        ).json()
        params = {"span": "32m", "runtime_s": 60, "seq_runtime_s": 60, "prewrite": False}
        run = queue(admin, drive, {**params, "patterns": ["incompressible"]})
        wait_run(admin, run["id"], until=("running",), timeout=120)
        viewer = stack.client(token=users["viewer"].token)
        run_stream = Events(viewer, f"/api/runs/{run['id']}/events")
        viewer_lab = Events(stack.client(token=users["viewer"].token), "/api/runs/events")
        admin_lab = Events(stack.client(), "/api/runs/events")
        try:
            wait_for(
                "the viewer's run stream to show progress",
                lambda: any(e in ("samples", "progress") for e, _ in run_stream.frames),
            )
            wait_for(
                "the viewer's lab stream to announce the run",
                lambda: run["id"] in viewer_lab.run_ids(),
            )
            until = (datetime.now(UTC) + timedelta(days=7)).isoformat()
            r = admin.patch(f"/api/models/{drive['model']['id']}", json={"embargo_until": until})
            assert r.status_code == 200, r.text
            marker = queue(
                admin,
                marker_drive,
                {"profile": "light", "runtime_s": 1, "span": "8m"},
                "trace-replay",
            )
            # Past the marker, the admin still hears of the run (it runs on)...
            wait_for(
                "the marker on both lab streams",
                lambda: (
                    viewer_lab.index_of_run(marker["id"]) is not None
                    and admin_lab.index_of_run(marker["id"]) is not None
                ),
            )
            after = admin_lab.index_of_run(marker["id"]) or 0
            wait_for(
                "the admin's lab stream to announce the run twice after the embargo",
                lambda: admin_lab.run_ids(after + 1).count(run["id"]) >= 2,
            )
            # ...the viewer does not.
            seen_after = viewer_lab.run_ids((viewer_lab.index_of_run(marker["id"]) or 0) + 1)
            assert run["id"] not in seen_after, seen_after
            # The viewer's run stream has ended, while the run runs on.
            wait_for("the viewer's run stream to end", run_stream.ended.is_set)
            assert admin.get(f"/api/runs/{run['id']}").json()["status"] == "running"
            assert viewer.get(f"/api/runs/{run['id']}").status_code == 404
        finally:
            admin.patch(f"/api/models/{drive['model']['id']}", json={"embargo_until": None})
            admin.post(f"/api/runs/{run['id']}/cancel")
            for stream in (run_stream, viewer_lab, admin_lab):
                stream.client.close()
            viewer.close()
        if "marker" in locals():
            admin.post(f"/api/runs/{marker['id']}/cancel")
        wait_run(admin, run["id"], timeout=60)


def test_trace_uploads_have_their_own_limit(stack: Stack) -> None:
    """A trace may be larger than other bodies (here 1 MiB, over the 512 KiB of the rest), up
    to 256 MiB: past that, declared or streamed, 413 saying so."""
    lines = ["fio version 3 iolog", "0 /tmp/t.img add", "1 /tmp/t.img open"]
    lines += [f"{10 + i} /tmp/t.img write {i * 4096} 4096" for i in range(40_000)]
    lines += ["500000 /tmp/t.img close", ""]
    trace = "\n".join(lines).encode()
    assert len(trace) > 2 * LIMIT
    with stack.client() as c:
        r = c.post("/api/traces", params={"name": f"big-{secrets.token_hex(3)}"}, content=trace)
        assert r.status_code == 201, r.text[:300]
        assert r.json()["size_bytes"] == len(trace) and r.json()["write_bytes"] == 40_000 * 4096
        too_big = 256 * MIB + 1
        r = c.post(
            "/api/traces",
            params={"name": "too-big"},
            content=chunks(too_big - 29),
            headers={"Content-Length": str(too_big)},
        )
        assert_413(r, 256 * MIB)
        r = c.post("/api/traces", params={"name": "too-big"}, content=chunks(too_big))
        assert_413(r, 256 * MIB)
