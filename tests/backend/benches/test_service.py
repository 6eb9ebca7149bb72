"""The worker command `POST /api/benches` hands out, for each kind of installation."""

from __future__ import annotations

from backend.benches.service import worker_setup


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
        broker_url="rediss://:s3cret@redis:6380/2",
    )
    assert setup.api_url == "https://lab.example.com"
    assert setup.broker_url == "rediss://:s3cret@lab.example.com:6380/2"
    assert setup.notes == []


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
