"""`drivelab certs`: a CA and a server certificate for the broker's Redis TLS port.

The lab's own small CA: lab machines' workers are given its certificate (ca.pem) and verify
the broker's against it, so no public CA is involved and nothing verifies but this lab's
broker. Run again with other names, the command keeps the CA that is there (workers keep
their copy of ca.pem) and issues a new server certificate.

Files, in the directory given:
  ca.pem      the CA certificate: copied to every lab machine (DRIVELAB_BROKER_CA); public
  ca.key      the CA's private key: signs server certificates; readable by its owner only
  redis.pem   the server certificate, for Redis's tls-cert-file
  redis.key   its private key, for Redis's tls-key-file; readable by its owner only
"""

from __future__ import annotations

import datetime
import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

CA_CERT, CA_KEY = "ca.pem", "ca.key"
SERVER_CERT, SERVER_KEY = "redis.pem", "redis.key"
CA_DAYS = 3650


class CertError(ValueError):
    pass


@dataclass(frozen=True)
class CertFiles:
    ca_cert: Path
    ca_key: Path
    server_cert: Path
    server_key: Path
    ca_created: bool
    names: list[str]


def _write(path: Path, data: bytes, mode: int) -> None:
    """Written whole under a temporary name with its final mode from the start, then renamed:
    a key is never readable by others, not even while it is being written."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.chmod(tmp, mode)  # the umask may have taken bits the mode asked for
    tmp.replace(path)


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _subject_names(hosts: list[str], ips: list[str]) -> list[x509.GeneralName]:
    names: list[x509.GeneralName] = []
    for host in hosts:
        host = host.strip()
        try:
            ipaddress.ip_address(host)
        except ValueError:
            pass
        else:
            raise CertError(f"--host {host} is an address: give it with --ip {host}")
        if not host or any(c.isspace() or c in "/:@" for c in host):
            raise CertError(f"--host {host!r} is not a host name (e.g. lab.example.com)")
        names.append(x509.DNSName(host))
    for ip in ips:
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(ip.strip())))
        except ValueError:
            raise CertError(f"--ip {ip!r} is not an IP address (e.g. 192.0.2.10)") from None
    if not names:
        raise CertError(
            "name the broker's host: --host NAME and/or --ip ADDRESS, as lab machines reach it "
            "(the host of their rediss:// URL); the certificate is valid for those only"
        )
    return names


KeyPair = tuple[x509.Certificate, ec.EllipticCurvePrivateKey]


def _load_ca(cert_path: Path, key_path: Path) -> KeyPair:
    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
    except (ValueError, TypeError) as exc:
        raise CertError(
            f"the CA in {cert_path.parent} cannot be read ({exc}): move {CA_CERT} and {CA_KEY} "
            "away to make a new CA (every lab machine then needs the new ca.pem)"
        ) from None
    if not isinstance(key, ec.EllipticCurvePrivateKey) or key.public_key() != cert.public_key():
        raise CertError(f"{key_path} is not the key of {cert_path}")
    return cert, key


def _new_ca(now: datetime.datetime) -> KeyPair:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "drivelab"),
            x509.NameAttribute(NameOID.COMMON_NAME, "drivelab broker CA"),
        ]
    )
    public = key.public_key()
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(public)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=CA_DAYS))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=False,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
        .sign(key, hashes.SHA256())
    )
    return cert, key


def _server_cert(
    ca: x509.Certificate,
    ca_key: ec.EllipticCurvePrivateKey,
    names: list[x509.GeneralName],
    days: int,
    now: datetime.datetime,
) -> KeyPair:
    key = ec.generate_private_key(ec.SECP256R1())
    public = key.public_key()
    first = names[0].value
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, str(first))]))
        .issuer_name(ca.subject)
        .public_key(public)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(min(now + datetime.timedelta(days=days), ca.not_valid_after_utc))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=False,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
            critical=False,
        )
        .sign(ca_key, hashes.SHA256())
    )
    return cert, key


def make_certs(directory: Path, hosts: list[str], ips: list[str], days: int = 825) -> CertFiles:
    """The CA (kept when `directory` has one) and a new server certificate for `hosts` and
    `ips`, valid `days` days (at most the CA's remaining life)."""
    if days < 1:
        raise CertError("--days must be at least 1")
    names = _subject_names(hosts, ips)
    directory.mkdir(parents=True, exist_ok=True)
    ca_cert_path, ca_key_path = directory / CA_CERT, directory / CA_KEY
    now = datetime.datetime.now(datetime.UTC)
    has_cert, has_key = ca_cert_path.exists(), ca_key_path.exists()
    if has_cert != has_key:
        there, missing = (CA_CERT, CA_KEY) if has_cert else (CA_KEY, CA_CERT)
        raise CertError(
            f"{directory} has {there} but not {missing}: put {missing} back, or move {there} "
            "away to make a new CA (every lab machine then needs the new ca.pem)"
        )
    created = not has_cert
    if created:
        ca, ca_key = _new_ca(now)
        _write(ca_key_path, _key_pem(ca_key), 0o600)
        _write(ca_cert_path, ca.public_bytes(serialization.Encoding.PEM), 0o644)
    else:
        ca, ca_key = _load_ca(ca_cert_path, ca_key_path)
        if ca.not_valid_after_utc <= now:
            raise CertError(
                f"the CA in {ca_cert_path} expired on {ca.not_valid_after_utc:%Y-%m-%d}: move "
                f"{CA_CERT} and {CA_KEY} away to make a new one"
            )
    cert, key = _server_cert(ca, ca_key, names, days, now)
    _write(directory / SERVER_KEY, _key_pem(key), 0o600)
    _write(directory / SERVER_CERT, cert.public_bytes(serialization.Encoding.PEM), 0o644)
    return CertFiles(
        ca_cert=ca_cert_path,
        ca_key=ca_key_path,
        server_cert=directory / SERVER_CERT,
        server_key=directory / SERVER_KEY,
        ca_created=created,
        names=[str(n.value) for n in names],
    )


def fingerprint(cert_path: Path) -> str:
    """The SHA-256 fingerprint of a PEM certificate, as `openssl x509 -fingerprint -sha256`
    prints it: to check a copy of ca.pem on a lab machine against the server's."""
    cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    return ":".join(f"{b:02X}" for b in cert.fingerprint(hashes.SHA256()))
