"""The whole stack on a broker over TLS: `drivelab up` with DRIVELAB_REDIS_URL=rediss://... and
DRIVELAB_BROKER_CA (certificates from `drivelab certs`) on the OS's redis-server with TLS. The
api sends the run over TLS, the local `drivelab worker` consumes it over TLS verified against
the CA, and fio runs it to the end."""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import httpx
import pytest

from tests.conftest import create_local_database, local_services_available, start_stack, stop_stack
from tests.tls_redis import make_certs, tls_redis

pytestmark = pytest.mark.e2e


def test_a_run_goes_through_a_tls_broker_end_to_end(tmp_path: Path) -> None:
    certs = make_certs(tmp_path / "broker-certs", "localhost")
    db = create_local_database() if local_services_available() else None
    try:
        _run_through_tls(tmp_path, certs, db.url if db is not None else None)
    finally:
        if db is not None:
            db.drop()


def _run_through_tls(tmp_path: Path, certs: Path, database_url: str | None) -> None:
    with tls_redis(certs, tmp_path, secrets.token_hex(16)) as server:
        env = {
            "DRIVELAB_REDIS_URL": server.url("localhost"),
            "DRIVELAB_BROKER_CA": str(certs / "ca.pem"),
        }
        if database_url is not None:
            env["DRIVELAB_DATABASE_URL"] = database_url
        stack = start_stack(tmp_path / "data", env, sim_size="256m")
        try:
            health = httpx.get(f"{stack.api_url}/api/health").json()
            assert health["broker"]["ok"], health
            drive = json.loads(stack.cli("drives", "--json").stdout)[0]
            run = json.loads(
                stack.cli(
                    "run", "four-corners", "--drive", str(drive["id"]), "--param", "span=32m",
                    "--param", "runtime_s=1", "--param", "seq_runtime_s=1",
                    "--param", 'patterns=["incompressible"]', "--param", "prewrite=false",
                    "--confirm-serial", drive["serial"], "--wait", "--json",
                ).stdout
            )  # fmt: skip
            assert run["status"] == "done", (run, stack.log_tail(40))
            log = stack.log.read_text()
            assert f"(TLS, verified against {certs / 'ca.pem'})" in log, log
            assert server.password not in log
            # A second bench on this machine gets the same broker and CA to start with.
            out = stack.cli("benches", "add", f"tls-{secrets.token_hex(3)}").stdout
            assert f"export DRIVELAB_BROKER_URL={server.url('localhost')}" in out
            assert f"export DRIVELAB_BROKER_CA={certs / 'ca.pem'}" in out
        finally:
            assert stop_stack(stack) == 0
