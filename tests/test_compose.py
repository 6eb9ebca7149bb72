"""docker-compose.yml cannot run here (no Docker engine): check it against the code instead."""

from __future__ import annotations

import ipaddress
import os
import re
import secrets
import socket
import subprocess
import time
from pathlib import Path

import redis
import yaml

from backend.certs import CA_CERT, SERVER_CERT, SERVER_KEY
from backend.cli import build_parser
from backend.core.redis_tls import redis_target
from backend.core.settings import Settings, WorkerSettings
from backend.runs.router import KEEPALIVE_S, SSE_HEADERS
from tests.tls_redis import make_certs, redis_server_with_tls
from worker.main import broker_problem

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]


# The api's and the workers' broker URL: the password of the broker, from the environment.
BROKER_URL = "redis://:${DRIVELAB_REDIS_PASSWORD}@redis:6379/0"


def env_fields(model: type) -> set[str]:
    return {f"DRIVELAB_{name.upper()}" for name in model.model_fields}


def drivelab_env(service: str) -> dict[str, str]:
    env = SERVICES[service].get("environment", {})
    return {k: str(v) for k, v in env.items() if k.startswith("DRIVELAB_")}


def test_services_present() -> None:
    assert {"postgres", "redis", "api", "proxy", "worker"} <= set(SERVICES)


def test_api_environment_matches_settings() -> None:
    env = drivelab_env("api")
    assert set(env) <= env_fields(Settings), set(env) - env_fields(Settings)
    # The api binds to 0.0.0.0, so it must have a secret (Settings refuses otherwise).
    assert "DRIVELAB_SECRET_KEY" in env and ":?" in env["DRIVELAB_SECRET_KEY"]
    db = env["DRIVELAB_DATABASE_URL"]
    assert re.match(r"postgresql://drivelab:\$\{POSTGRES_PASSWORD\}@postgres:5432/drivelab$", db)
    pg = SERVICES["postgres"]["environment"]
    assert pg["POSTGRES_DB"] == "drivelab" and pg["POSTGRES_USER"] == "drivelab"
    assert env["DRIVELAB_REDIS_URL"] == BROKER_URL


def test_worker_environment_matches_worker_settings() -> None:
    env = drivelab_env("worker")
    assert set(env) <= env_fields(WorkerSettings), set(env) - env_fields(WorkerSettings)
    assert env["DRIVELAB_API_URL"] == "http://api:8000"
    assert env["DRIVELAB_BROKER_URL"] == drivelab_env("api")["DRIVELAB_REDIS_URL"] == BROKER_URL
    assert "DRIVELAB_DATABASE_URL" not in env  # workers hold no database credentials


def test_commands_are_valid_drivelab_commands() -> None:
    parser = build_parser()
    api = parser.parse_args(SERVICES["api"]["command"][1:])
    assert api.command == "up" and api.host == "0.0.0.0" and api.no_worker
    # The proxy publishes the api's port; the api's replicas publish none (they could not
    # all bind it on the host).
    assert "ports" not in SERVICES["api"] and SERVICES["api"]["expose"] == [str(api.port)]
    assert SERVICES["proxy"]["ports"] == [f"{api.port}:{api.port}"]
    worker = parser.parse_args(SERVICES["worker"]["command"][1:])
    assert worker.command == "worker" and worker.bench == "bench1"
    assert "/api/health" in " ".join(SERVICES["api"]["healthcheck"]["test"])


def test_dockerfile_builds_what_compose_expects() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert SERVICES["api"]["build"] == "."
    for path in re.findall(r"^COPY (?!--from)(\S+)", dockerfile, flags=re.M):
        assert (ROOT / path).exists(), f"Dockerfile copies missing {path}"
    assert "apt-get install" in dockerfile and " fio " in dockerfile
    assert drivelab_env("api")["DRIVELAB_FRONTEND_DIR"] in dockerfile
    cmd = re.search(r"^CMD (\[.*\])", dockerfile, flags=re.M)
    assert cmd is not None and '"up"' in cmd.group(1)


# --- the broker ------------------------------------------------------------------------------


def test_broker_requires_a_password_that_compose_refuses_to_do_without() -> None:
    svc = SERVICES["redis"]
    # Compose stops with this message when DRIVELAB_REDIS_PASSWORD is unset or empty: no
    # default secret.
    password = svc["environment"]["REDIS_PASSWORD"]
    m = re.fullmatch(r"\$\{DRIVELAB_REDIS_PASSWORD:\?(.+)\}", password)
    assert m and "DRIVELAB_REDIS_PASSWORD" in m.group(1), password
    assert '--requirepass "$$REDIS_PASSWORD"' in " ".join(svc["command"])
    # Every broker URL in the file carries that password (or says where it goes).
    text = (ROOT / "docker-compose.yml").read_text()
    for url in re.findall(r"redis://\S+", text):
        assert url.startswith(("redis://:${DRIVELAB_REDIS_PASSWORD}@", "redis://:PASSWORD@")), url
    assert text.count(BROKER_URL) == 2  # the api's and the example worker's


def _redis_args() -> dict[str, str]:
    """The redis service's redis-server options, as --name value pairs."""
    words = SERVICES["redis"]["command"][2].split()
    assert words[:2] == ["exec", "redis-server"]
    return {w[2:]: v for w, v in zip(words[2:], words[3:], strict=False) if w.startswith("--")}


def test_broker_publishes_only_its_tls_port_with_the_certificates_mounted() -> None:
    """Lab machines reach Redis on its TLS port only; the plain port serves the compose
    network (the api, the example worker, the healthcheck) and is not published."""
    svc = SERVICES["redis"]
    args = _redis_args()
    assert args["tls-port"] == "6380" and args["port"] == "6379"
    published = [p.split(":")[-1] for p in svc["ports"]]
    assert published == ["6380"], svc["ports"]
    assert "6379" not in " ".join(svc["ports"])
    assert "expose" not in svc  # nothing else offered beyond the compose network
    # The certificates `drivelab certs` writes, from the directory its default --dir names.
    certs_dir = build_parser().parse_args(["certs"]).dir
    assert f"./{certs_dir}:/tls:ro" in svc["volumes"]
    assert args["tls-cert-file"] == f"/tls/{SERVER_CERT}"
    assert args["tls-key-file"] == f"/tls/{SERVER_KEY}"
    assert args["tls-ca-cert-file"] == f"/tls/{CA_CERT}"
    assert args["tls-auth-clients"] == "no"  # clients prove who they are with the password
    # The keys are never committed nor sent into an image build.
    assert f"{certs_dir}/" in (ROOT / ".gitignore").read_text().splitlines()
    assert certs_dir in (ROOT / ".dockerignore").read_text().splitlines()
    # The api stays on the plain port inside the compose network and tells lab machines the
    # TLS one, at the host the certificate names (compose refuses to start without it).
    api = drivelab_env("api")
    assert api["DRIVELAB_REDIS_URL"] == BROKER_URL
    public = api["DRIVELAB_BROKER_PUBLIC_URL"]
    m = re.fullmatch(r"rediss://\$\{DRIVELAB_BROKER_HOST:\?(.+)\}:(\d+)/0", public)
    assert m and m.group(2) == "6380" and "certificate" in m.group(1), public


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _compose_shell(value: str) -> str:
    """A compose string as the container's shell gets it ($$ is compose's escaped $)."""
    return value.replace("$$", "$")


def test_broker_command_and_healthcheck_work_as_compose_runs_them(tmp_path: Path) -> None:
    """The redis service's own command and healthcheck, run here with the OS's redis-server
    (built with TLS) on free ports and the certificates `drivelab certs` made in place of
    /tls: a client without the password is refused, one with it is served on the plain port,
    a worker verifying the lab's CA is served on the TLS port, the healthcheck passes, and
    the password is not on the server's command line (`ps`)."""
    binary = redis_server_with_tls()
    certs = make_certs(tmp_path / "broker-certs", "localhost")
    svc = SERVICES["redis"]
    port, tls_port = _free_port(), _free_port()
    password = secrets.token_hex(16)
    bin_dir = str(Path(binary).parent)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "REDIS_PASSWORD": password}
    shell, flag, script = svc["command"]
    assert (shell, flag) == ("sh", "-c")
    script = _compose_shell(script).replace("/tls/", f"{certs}/")
    proc = subprocess.Popen(
        [shell, flag, script + f" --port {port} --tls-port {tls_port} --bind 127.0.0.1"],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        anonymous = redis.Redis(port=port, socket_timeout=5)
        deadline = time.monotonic() + 15
        while True:
            try:
                anonymous.ping()
                raise AssertionError("the broker answered a client without the password")
            except redis.AuthenticationError:
                break  # refused: authentication required
            except redis.ConnectionError:
                assert proc.poll() is None and time.monotonic() < deadline, "redis did not start"
                time.sleep(0.1)
        assert redis.Redis(port=port, password=password).ping()
        url = f"rediss://:{password}@localhost:{tls_port}/0"
        assert broker_problem(redis_target(url, ca_file=certs / "ca.pem")) is None
        assert "use rediss://" in (broker_problem(url.replace("rediss", "redis")) or "")
        check = svc["healthcheck"]["test"]
        assert check[0] == "CMD-SHELL"
        probe = _compose_shell(check[1]).replace("redis-cli", f"redis-cli -p {port}")
        assert subprocess.run(["sh", "-c", probe], env=env, timeout=30).returncode == 0
        wrong = {**env, "REDIS_PASSWORD": "wrong"}
        assert subprocess.run(["sh", "-c", probe], env=wrong, timeout=30).returncode != 0
        cmdline = Path(f"/proc/{proc.pid}/cmdline").read_bytes()
        assert password.encode() not in cmdline, cmdline
    finally:
        proc.terminate()
        proc.wait(10)


# --- the api's processes and replicas behind the proxy ----------------------------------------


def _interpolate(value: str, env: dict[str, str]) -> str:
    """Compose's ${NAME:-default} and ${NAME:?message} with `env`; $$ is a plain $."""

    def one(m: re.Match[str]) -> str:
        name, op, arg = m.group(1), m.group(2), m.group(3) or ""
        if env.get(name):
            return env[name]
        assert op != ":?", f"{name} is required: {arg}"
        return arg if op == ":-" else ""

    return re.sub(r"\$\{(\w+)(:-|:\?)?([^}]*)\}", one, value).replace("$$", "$")


def _api_settings(env: dict[str, str]) -> Settings:
    values = {k: _interpolate(v, env) for k, v in drivelab_env("api").items()}
    fields = {k.removeprefix("DRIVELAB_").lower(): v for k, v in values.items()}
    return Settings(**fields)  # type: ignore[arg-type]


REQUIRED = {
    "POSTGRES_PASSWORD": "p",
    "DRIVELAB_REDIS_PASSWORD": "r",
    "DRIVELAB_BROKER_HOST": "lab.example.com",
    "DRIVELAB_SECRET_KEY": "k" * 64,
}


def test_api_replicas_and_processes_are_settings_with_defaults() -> None:
    replicas = SERVICES["api"]["deploy"]["replicas"]
    assert _interpolate(replicas, REQUIRED) == "1"
    assert _interpolate(replicas, {**REQUIRED, "DRIVELAB_API_REPLICAS": "3"}) == "3"
    assert "container_name" not in SERVICES["api"]  # a fixed name allows one replica only
    # Unset: one api process per core of the container; set: that many.
    assert _api_settings(REQUIRED).api_workers is None
    assert _api_settings({**REQUIRED, "DRIVELAB_API_WORKERS": "3"}).api_processes == 3


def _proxy_config() -> str:
    proxy = SERVICES["proxy"]
    (mounted,) = proxy["configs"]
    assert mounted["target"].startswith("/etc/nginx/conf.d/") and mounted["target"].endswith(
        ".conf"
    )
    return _interpolate(COMPOSE["configs"][mounted["source"]]["content"], REQUIRED)


def _directives(config: str) -> list[tuple[str, ...]]:
    """nginx's directives as (name, arguments...), blocks flattened; every one ends with ;
    or opens a block, and the braces balance."""
    assert config.count("{") == config.count("}"), config
    out = []
    for statement in re.split(r"[;{}]", config):
        words = statement.split()
        if words:
            out.append(tuple(words))
    # Nothing but directives between the separators (a missing ; joins two lines into one).
    for line in config.splitlines():
        stripped = line.strip()
        assert not stripped or stripped[-1] in ";{}", f"nginx: {line!r} does not end a directive"
    return out


def test_the_proxy_spreads_requests_over_the_replicas_and_is_the_only_trusted_peer() -> None:
    config = _proxy_config()
    assert "$" not in config.replace("$api", "").replace("$http_host", "").replace(
        "$proxy_add_x_forwarded_for", ""
    ).replace("$scheme", ""), "a $ compose would have eaten: write $$ in docker-compose.yml"
    directives = _directives(config)
    names = [d[0] for d in directives]
    api_port = build_parser().parse_args(SERVICES["api"]["command"][1:]).port
    # Listens on the port it publishes...
    assert ("listen", str(api_port)) in directives
    # ...and passes to `api` through a variable, so Docker's DNS (127.0.0.11) is asked again
    # (valid=10s) and every replica, including ones added later, gets requests.
    assert any(d[:2] == ("resolver", "127.0.0.11") for d in directives)
    assert ("set", "$api", f"http://api:{api_port}") in directives
    assert ("proxy_pass", "$api") in directives
    # Bodies of any size stream to the api, which applies its own limits (and reads a
    # worker's large report only after checking its token); answers to live streams are not
    # buffered (the api's SSE answers say X-Accel-Buffering: no, which nginx obeys).
    assert ("client_max_body_size", "0") in directives
    assert ("proxy_request_buffering", "off") in directives
    assert SSE_HEADERS["X-Accel-Buffering"] == "no"
    timeout = next(d[1] for d in directives if d[0] == "proxy_read_timeout")
    assert timeout.endswith("h") or int(timeout.rstrip("s")) > KEEPALIVE_S
    assert ("proxy_http_version", "1.1") in directives
    # The client's address, appended to what a trusted proxy in front may have sent.
    assert ("proxy_set_header", "X-Forwarded-For", "$proxy_add_x_forwarded_for") in directives
    assert "proxy_buffering" not in names or ("proxy_buffering", "off") in directives
    # The api believes X-Forwarded-For from the proxy's fixed address, in the compose
    # network, and from nobody else unless the lab names its own HTTPS proxy.
    address = SERVICES["proxy"]["networks"]["default"]["ipv4_address"]
    (subnet,) = (c["subnet"] for c in COMPOSE["networks"]["default"]["ipam"]["config"])
    assert ipaddress.ip_address(address) in ipaddress.ip_network(subnet)
    assert _api_settings(REQUIRED).trusted_proxies == [f"{address}/32"]
    lab = _api_settings({**REQUIRED, "DRIVELAB_TRUSTED_PROXIES": "10.0.0.5"})
    assert lab.trusted_proxies == [f"{address}/32", "10.0.0.5/32"]
    # Lab machines reach the api through the proxy; the example worker may reach a replica.
    assert drivelab_env("worker")["DRIVELAB_API_URL"] == f"http://api:{api_port}"
