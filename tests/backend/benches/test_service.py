"""The worker command `POST /api/benches` hands out, for each kind of installation."""

from __future__ import annotations

from pathlib import Path

from backend.benches.service import WORKER_CA_PATH, worker_setup
from backend.certs import fingerprint
from backend.cli import _with_broker
from backend.cli import main as drivelab
from backend.core.redis_tls import redis_target


def test_embedded_broker_a_worker_on_this_machine_as_printed() -> None:
    setup = worker_setup(
        "bench2",
        "dlb_secret",
        api_address="http://127.0.0.1:8000/",
        broker_url="redis://:p4ss@127.0.0.1:41234/0",
    )
    assert setup.lines == [
        "export DRIVELAB_API_URL=http://127.0.0.1:8000",
        "export DRIVELAB_BROKER_URL=redis://:p4ss@127.0.0.1:41234/0",
        "export DRIVELAB_TOKEN=dlb_secret",
        "drivelab worker --bench bench2",
    ]
    assert len(setup.notes) == 1 and "listens on 127.0.0.1 only" in setup.notes[0]


def test_compose_broker_at_the_public_address() -> None:
    """compose's api reaches Redis as `redis`; lab machines at the server's published port."""
    setup = worker_setup(
        "bench1",
        "dlb_t",
        api_address="https://lab.example.com",
        broker_url="redis://:s3cret@redis:6379/2",
    )
    assert setup.api_url == "https://lab.example.com"
    assert setup.broker_url == "redis://:s3cret@lab.example.com:6379/2"
    assert setup.notes == []


def test_tls_broker_at_its_public_url_with_the_ca(tmp_path: Path) -> None:
    """compose: the api on plain Redis inside the compose network, lab machines at the TLS
    port named by DRIVELAB_BROKER_PUBLIC_URL, with the api's password and the lab's CA."""
    assert drivelab(["certs", "--dir", str(tmp_path), "--host", "lab.example.com"]) == 0
    setup = worker_setup(
        "bench1",
        "dlb_t",
        api_address="https://lab.example.com",
        broker_url="redis://:s3cret@redis:6379/0",
        broker_public_url="rediss://broker.lab.example.com:6380/0",
        broker_ca=tmp_path / "ca.pem",
    )
    assert setup.broker_url == "rediss://:s3cret@broker.lab.example.com:6380/0"
    assert setup.lines == [
        "export DRIVELAB_API_URL=https://lab.example.com",
        "export DRIVELAB_BROKER_URL=rediss://:s3cret@broker.lab.example.com:6380/0",
        f"export DRIVELAB_BROKER_CA={WORKER_CA_PATH}",
        "export DRIVELAB_TOKEN=dlb_t",
        "drivelab worker --bench bench1",
    ]
    assert len(setup.notes) == 1
    assert setup.notes[0].startswith(f"{WORKER_CA_PATH}: a copy of the broker's CA certificate")
    assert setup.notes[0].endswith(f"SHA-256 {fingerprint(tmp_path / 'ca.pem')}")
    # The lines work as printed: the worker accepts them (the CA copied where they say).
    ca_copy = tmp_path / "copy" / "broker-ca.pem"
    ca_copy.parent.mkdir()
    ca_copy.write_bytes((tmp_path / "ca.pem").read_bytes())
    target = redis_target(setup.broker_url, ca_file=ca_copy)
    assert target.uses_tls and target.url == setup.broker_url

    # Without the CA file on the api, the note still says where the CA comes from.
    bare = worker_setup(
        "bench1",
        "dlb_t",
        api_address="http://127.0.0.1:8000",
        broker_url="redis://redis:6379/0",
        broker_public_url="rediss://10.0.0.5:6380/0",
    )
    assert bare.broker_url == "rediss://10.0.0.5:6380/0"  # no password on that broker
    assert f"export DRIVELAB_BROKER_CA={WORKER_CA_PATH}" in bare.lines
    assert bare.api_url == "http://labserver:8000"
    assert any("ca.pem from `drivelab certs`" in n for n in bare.notes)


def test_embedded_broker_stays_plain_loopback_whatever_the_public_url() -> None:
    """`drivelab up`'s Redis listens on 127.0.0.1 only: the command is for this machine."""
    setup = worker_setup(
        "bench2",
        "t",
        api_address="http://127.0.0.1:8000",
        broker_url="redis://:p@127.0.0.1:41234/0",
        broker_public_url="rediss://lab.example.com:6380/0",
    )
    assert setup.broker_url == "redis://:p@127.0.0.1:41234/0"
    assert not any("BROKER_CA" in line for line in setup.lines)


def test_compose_without_a_public_address_names_what_to_fill_in() -> None:
    setup = worker_setup(
        "bench1",
        "dlb_t",
        api_address="http://127.0.0.1:8000",
        broker_url="redis://:s3cret@redis:6379/0",
    )
    assert setup.api_url == "http://labserver:8000"
    assert setup.broker_url == "redis://:s3cret@labserver:6379/0"
    assert len(setup.notes) == 1 and "DRIVELAB_PUBLIC_URL" in setup.notes[0]
    unknown = worker_setup("b", "t", api_address="http://lab:8000", broker_url=None)
    assert unknown.broker_url == "redis://:REDIS_PASSWORD@lab:6379/0"
    assert any(n.startswith("REDIS_PASSWORD: ") for n in unknown.notes)


def test_benches_add_broker_override_brings_the_ca_line_for_tls_only() -> None:
    """`drivelab benches add --broker URL` replaces the printed broker: a rediss:// one gets
    the CA line the worker needs, a plain one loses it (the worker refuses a CA it would not
    use)."""
    setup = worker_setup(
        "b", "t", api_address="https://lab.example.com", broker_url="redis://:p@redis:6379/0"
    )
    tls = _with_broker(setup.lines, "rediss://:p@broker.lab:6380/0")
    assert tls[1:3] == [
        "export DRIVELAB_BROKER_URL=rediss://:p@broker.lab:6380/0",
        f"export DRIVELAB_BROKER_CA={WORKER_CA_PATH}",
    ]
    assert _with_broker(tls, "redis://:p@10.0.0.5:6379/0") == [
        "export DRIVELAB_API_URL=https://lab.example.com",
        "export DRIVELAB_BROKER_URL=redis://:p@10.0.0.5:6379/0",
        "export DRIVELAB_TOKEN=t",
        "drivelab worker --bench b",
    ]
