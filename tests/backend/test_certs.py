"""`drivelab certs`: the broker's CA and server certificate, their names and file modes."""

from __future__ import annotations

import ipaddress
import ssl
import stat
from pathlib import Path

import pytest
from cryptography import x509

from backend.certs import fingerprint
from backend.cli import main as drivelab


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_makes_a_ca_and_a_server_certificate_for_the_names_given(tmp_path: Path) -> None:
    d = tmp_path / "broker-certs"
    assert (
        drivelab(["certs", "--dir", str(d), "--host", "lab.example.com", "--ip", "192.0.2.10"]) == 0
    )
    assert {p.name for p in d.iterdir()} == {"ca.pem", "ca.key", "redis.pem", "redis.key"}
    # The keys are the owner's only; the certificates are public.
    assert _mode(d / "ca.key") == 0o600 and _mode(d / "redis.key") == 0o600
    assert _mode(d / "ca.pem") == 0o644 and _mode(d / "redis.pem") == 0o644

    cert = x509.load_pem_x509_certificate((d / "redis.pem").read_bytes())
    names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert names.get_values_for_type(x509.DNSName) == ["lab.example.com"]
    assert names.get_values_for_type(x509.IPAddress) == [ipaddress.ip_address("192.0.2.10")]
    assert not cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    ca = x509.load_pem_x509_certificate((d / "ca.pem").read_bytes())
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    cert.verify_directly_issued_by(ca)
    # Python's TLS client (what redis-py uses) takes the CA and the server's key pair.
    ssl.create_default_context(cafile=str(d / "ca.pem"))
    ssl.create_default_context().load_cert_chain(d / "redis.pem", d / "redis.key")


def test_a_second_run_keeps_the_ca_and_issues_a_new_server_certificate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    d = tmp_path / "c"
    assert drivelab(["certs", "--dir", str(d), "--host", "old.example.com"]) == 0
    ca_before, server_before = (d / "ca.pem").read_bytes(), (d / "redis.pem").read_bytes()
    capsys.readouterr()
    assert drivelab(["certs", "--dir", str(d), "--host", "new.example.com"]) == 0
    out = capsys.readouterr().out
    assert "CA kept (the one already there)" in out
    assert fingerprint(d / "ca.pem") in out
    assert (d / "ca.pem").read_bytes() == ca_before  # lab machines keep their copy
    assert (d / "redis.pem").read_bytes() != server_before
    cert = x509.load_pem_x509_certificate((d / "redis.pem").read_bytes())
    ca = x509.load_pem_x509_certificate(ca_before)
    cert.verify_directly_issued_by(ca)
    names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert names.get_values_for_type(x509.DNSName) == ["new.example.com"]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ([], "name the broker's host: --host NAME and/or --ip ADDRESS"),
        (["--ip", "lab.example.com"], "--ip 'lab.example.com' is not an IP address"),
        (["--host", "192.0.2.1"], "--host 192.0.2.1 is an address: give it with --ip"),
        (["--host", "lab", "--days", "0"], "--days must be at least 1"),
    ],
)
def test_bad_options_are_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    assert drivelab(["certs", "--dir", str(tmp_path / "c"), *args]) == 2
    assert said in capsys.readouterr().err
    assert not (tmp_path / "c" / "redis.key").exists()


def test_a_ca_without_its_key_is_not_replaced_silently(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    d = tmp_path / "c"
    assert drivelab(["certs", "--dir", str(d), "--host", "lab"]) == 0
    (d / "ca.key").unlink()
    before = (d / "ca.pem").read_bytes()
    assert drivelab(["certs", "--dir", str(d), "--host", "lab"]) == 2
    assert "has ca.pem but not ca.key" in capsys.readouterr().err
    assert (d / "ca.pem").read_bytes() == before
