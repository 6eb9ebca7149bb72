"""Redis over TLS (`rediss://`): the connection options of redis-py and Celery, checked at start.

A lab machine's worker reaches the broker across the lab network, where the Redis password and
every task would otherwise travel in clear. With a `rediss://` URL the connection is TLS and the
server's certificate must verify against a CA the lab gives the worker (`--broker-ca FILE`,
DRIVELAB_BROKER_CA, or `ssl_ca_certs=FILE` in the URL's query), for the host name or address in
the URL. Nothing here ever turns verification off: kombu alone would fall back to an
unverified connection for a `rediss://` URL without options.

The same options go to redis-py (`Redis.from_url(url, **options)`) and to Celery
(`broker_use_ssl`), which hands them to redis-py's SSLConnection.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

# The `ssl_*` query parameters a broker URL may carry; any other is refused, by name.
URL_PARAMS = ("ssl_ca_certs", "ssl_certfile", "ssl_keyfile", "ssl_cert_reqs")
REQUIRED = ("required", "CERT_REQUIRED")


class BrokerTlsError(ValueError):
    """A broker URL or certificate file that cannot give a verified TLS connection; the
    message says what to set."""


@dataclass(frozen=True)
class RedisTarget:
    """A Redis URL without its `ssl_*` query parameters, and the TLS options that go with it
    (empty for `redis://`)."""

    url: str
    tls: dict[str, Any] = field(default_factory=dict)

    @property
    def uses_tls(self) -> bool:
        return bool(self.tls)

    @property
    def ca_file(self) -> str | None:
        return self.tls.get("ssl_ca_certs")


def redis_target(
    url: str,
    *,
    ca_file: Path | str | None = None,
    cert_file: Path | str | None = None,
    key_file: Path | str | None = None,
    ca_setting: str = "--broker-ca FILE (DRIVELAB_BROKER_CA)",
) -> RedisTarget:
    """The connection to Redis at `url`: for `rediss://`, a verified TLS connection against
    the CA in `ca_file` (or the URL's `ssl_ca_certs`), with an optional client certificate.
    `ca_setting` names where the CA is set, for the error messages. Raises BrokerTlsError
    with what to fix."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    given = {k: v for k, v in query if k.startswith("ssl_")}
    rest = [(k, v) for k, v in query if not k.startswith("ssl_")]
    plain_url = parts._replace(query=urlencode(rest)).geturl()
    if parts.scheme != "rediss":
        if given:
            raise BrokerTlsError(
                f"the broker URL has {', '.join(sorted(given))} but is {parts.scheme}:// "
                "(no TLS): use rediss:// for TLS, or drop the ssl_ parameters"
            )
        return RedisTarget(plain_url)
    unknown = sorted(set(given) - set(URL_PARAMS))
    if unknown:
        raise BrokerTlsError(
            f"unknown TLS parameter {', '.join(unknown)} in the broker URL: drivelab reads "
            f"{', '.join(URL_PARAMS)}"
        )
    reqs = given.get("ssl_cert_reqs")
    if reqs is not None and reqs not in REQUIRED:
        raise BrokerTlsError(
            f"ssl_cert_reqs={reqs} in the broker URL: drivelab always verifies the broker's "
            "certificate (that is what keeps the password and the tasks from an impostor); "
            f"drop the parameter and give the CA that signed the certificate with {ca_setting}"
        )
    ca = _one_of(ca_file, given.get("ssl_ca_certs"), "CA", ca_setting, "ssl_ca_certs")
    if ca is None:
        raise BrokerTlsError(
            f"the broker URL is rediss:// (TLS) but no CA certificate was given to verify the "
            f"broker with: pass {ca_setting}, the lab's CA certificate (ca.pem from "
            "`drivelab certs` on the broker's host), or ssl_ca_certs=FILE in the URL"
        )
    _check_ca(ca, ca_setting)
    tls: dict[str, Any] = {
        "ssl_cert_reqs": ssl.CERT_REQUIRED,
        "ssl_ca_certs": ca,
        "ssl_check_hostname": True,
    }
    cert = _one_of(cert_file, given.get("ssl_certfile"), "client certificate", "", "")
    key = _one_of(key_file, given.get("ssl_keyfile"), "client key", "", "")
    if key is not None and cert is None:
        raise BrokerTlsError(
            "a client key was given without its certificate: pass --broker-cert FILE "
            "(DRIVELAB_BROKER_CERT) too, or neither"
        )
    if cert is not None:
        _check_client_cert(cert, key)
        tls["ssl_certfile"] = cert
        if key is not None:
            tls["ssl_keyfile"] = key
    return RedisTarget(plain_url, tls)


def _one_of(
    setting: Path | str | None, in_url: str | None, what: str, setting_name: str, param: str
) -> str | None:
    value = str(setting) if setting else None
    if value and in_url and Path(value).resolve() != Path(in_url).resolve():
        where = f" ({setting_name})" if setting_name else ""
        raise BrokerTlsError(
            f"two {what} files for the broker: {value}{where} and {in_url} (the URL's "
            f"{param or what}); give one"
        )
    return value or in_url or None


def _check_ca(path: str, ca_setting: str) -> None:
    p = Path(path)
    if not p.is_file():
        raise BrokerTlsError(
            f"the broker's CA certificate {path} does not exist (or is not a file): copy the "
            f"lab's CA certificate (ca.pem from `drivelab certs` on the broker's host) there, "
            f"or point {ca_setting} at it"
        )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    try:
        context.load_verify_locations(cafile=path)
    except PermissionError:
        raise BrokerTlsError(
            f"the broker's CA certificate {path} cannot be read by this user"
        ) from None
    except ssl.SSLError as exc:
        raise BrokerTlsError(
            f"the broker's CA certificate {path} holds no PEM certificate ({exc.reason}): "
            "give ca.pem as `drivelab certs` wrote it"
        ) from None


def _check_client_cert(cert: str, key: str | None) -> None:
    for path in (cert, key):
        if path is not None and not Path(path).is_file():
            raise BrokerTlsError(f"the broker client certificate or key {path} does not exist")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    try:
        context.load_cert_chain(cert, key)
    except (ssl.SSLError, OSError) as exc:
        raise BrokerTlsError(
            f"the broker client certificate {cert}"
            + (f" and key {key}" if key else "")
            + f" cannot be used ({exc}): give a PEM certificate and its unencrypted key"
        ) from None


def tls_problem(exc: BaseException, target: RedisTarget, where: str) -> str | None:
    """What a failed TLS connection to the broker means, said so that it can be fixed; None
    when `exc` is not about TLS."""
    text = str(exc)
    causes = [exc, exc.__cause__, exc.__context__]
    if any(isinstance(c, ssl.SSLCertVerificationError) for c in causes) or (
        "CERTIFICATE_VERIFY_FAILED" in text
    ):
        reason = (
            next(
                (c.verify_message for c in causes if isinstance(c, ssl.SSLCertVerificationError)),
                None,
            )
            or text
        )
        return (
            f"the broker at {where} presented a certificate that does not verify against the "
            f"CA in {target.ca_file} ({reason}): give the worker the CA certificate that "
            "signed the broker's (ca.pem from `drivelab certs` on the broker's host), and "
            "reach the broker by a name or address its certificate lists"
        )
    if not target.uses_tls:
        return None
    if "WRONG_VERSION_NUMBER" in text or "record layer failure" in text or "wrong version" in text:
        return (
            f"the broker at {where} does not speak TLS on that port ({text}): use its TLS "
            "port (6380 in drivelab's docker-compose.yml)"
        )
    if "CERTIFICATE_REQUIRED" in text or "certificate required" in text:
        return (
            f"the broker at {where} requires a client certificate ({text}): give the worker "
            "one the lab's CA signed, --broker-cert FILE and --broker-key FILE "
            "(DRIVELAB_BROKER_CERT, DRIVELAB_BROKER_KEY), or set tls-auth-clients no on Redis"
        )
    if "Timeout" in text or "timed out" in text:
        return (
            f"the broker at {where} did not complete a TLS handshake ({text}): check that the "
            "port is Redis's TLS port (6380 in drivelab's docker-compose.yml), not its plain "
            "one, and that the lab network lets it through"
        )
    hint = ""
    if "ssl_certfile" not in target.tls and ("EOF occurred" in text or "SSL" in text):
        # Under TLS 1.3 a server that wants a client certificate may just close the
        # connection once the client writes: the alert saying why is not always read.
        hint = (
            "; if the broker requires client certificates (tls-auth-clients yes), give the "
            "worker one the lab's CA signed, --broker-cert FILE and --broker-key FILE"
        )
    if isinstance(exc, ssl.SSLError) or "SSL" in text or "EOF occurred" in text:
        return f"the TLS connection to the broker at {where} failed: {text}{hint}"
    return None
