"""The CLI's tables, progress and errors (rich): aligned columns, text kept as typed (no
markup eaten), whole lines when piped, errors that say what to fix."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from backend import cli


def test_tables_align_columns_and_keep_text_as_it_is(capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        ["1", "local", "drivelab Simulated [simulated]", "0.268 GB", "SIM-1"],
        ["12", "bench-two", "Samsung 990 PRO", "2 TB", "S6Z2NJ0W" + "X" * 150],
    ]
    cli._table(rows, ["ID", "BENCH", "MODEL", "CAPACITY", "SERIAL"])
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3  # piped: one line per row, however long
    assert lines[0].split() == ["ID", "BENCH", "MODEL", "CAPACITY", "SERIAL"]
    assert "[simulated]" in lines[1]  # not taken for markup
    assert lines[2].endswith("X" * 150)
    # numbers to the right: the ids end in one column
    assert lines[1].index("1 ") == lines[2].index("12 ") + 1
    # columns start where their header does
    assert lines[1].index("local") == lines[0].index("BENCH") == lines[2].index("bench-two")


def test_errors_say_what_to_fix_on_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    long = "span '1x' is not a size: use a whole number with k, m, g or t " + "x" * 200
    cli.error(long)
    err = capsys.readouterr().err
    assert err == f"drivelab: {long}\n"


def test_main_reports_a_cli_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["run", "four-corners", "--drive", "1", "--param", "oops"]) == 2
    assert "drivelab: --param 'oops': write it as name=value" in capsys.readouterr().err


def test_waiting_prints_progress_lines_when_piped(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = iter(
        [
            {"progress": 0.0, "status": "queued", "steps": []},
            {"progress": 0.5, "status": "running",
             "steps": [{"status": "running", "idx": 1, "label": "4K random read QD3"}, {}]},
            {"progress": 1.0, "status": "done", "steps": []},
        ]
    )  # fmt: skip

    def poll(_client: Any, _path: str) -> dict[str, Any]:
        return next(answers)

    monkeypatch.setattr(cli, "poll", poll)
    monkeypatch.setattr(cli.time, "sleep", lambda _s: None)
    run = cli.wait_for(None, 7, quiet=False)  # type: ignore[arg-type]
    assert run["status"] == "done"
    assert capsys.readouterr().err.splitlines() == [
        "run 7   0.0% queued",
        "run 7  50.0% step 2/2 4K random read QD3",
        "run 7 100.0% done",
    ]


class _Flaky(BaseHTTPRequestHandler):
    """An api behind a proxy that answers 503 `failures` times (an api process restarting),
    then the run."""

    failures = 0
    seen: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        type(self).seen.append(self.path)
        if len(type(self).seen) <= type(self).failures:
            self.send_response(503)
            self.end_headers()
            self.wfile.write(b"upstream restarting")
            return
        body = json.dumps({"id": 7, "status": "done", "progress": 1.0, "steps": []}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: Any) -> None:
        pass


@pytest.fixture
def flaky_api() -> Iterator[tuple[str, type[_Flaky]]]:
    handler = type("Flaky", (_Flaky,), {"failures": 2, "seen": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", handler
    finally:
        server.shutdown()
        server.server_close()


def test_a_wait_rides_out_an_api_that_does_not_answer_for_a_while(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    flaky_api: tuple[str, type[_Flaky]],
) -> None:
    url, handler = flaky_api
    monkeypatch.setattr(cli, "WAIT_RETRY_S", 0.01)
    with httpx.Client(base_url=url, timeout=5) as client:
        run = cli.wait_for(client, 7, quiet=True)
    assert run["status"] == "done"
    assert handler.seen == ["/api/runs/7"] * 3  # two 503s, then the answer
    err = capsys.readouterr().err
    assert "did not answer GET /api/runs/7 (HTTP 503)" in err and "the run goes on" in err
    assert "the api answers again" in err


def test_a_wait_gives_up_after_its_patience_saying_the_run_goes_on(
    monkeypatch: pytest.MonkeyPatch, flaky_api: tuple[str, type[_Flaky]]
) -> None:
    url, handler = flaky_api
    handler.failures = 10**6
    monkeypatch.setattr(cli, "WAIT_RETRY_S", 0.01)
    with httpx.Client(base_url=url, timeout=5) as client:
        with pytest.raises(cli.CliError) as caught:
            cli.poll(client, "/api/runs/7", patience_s=0.2)
        # A refusal that is not the api's passing trouble is said at once, as before.
        handler.failures = 0
        assert cli.poll(client, "/api/runs/7")["status"] == "done"
    message = str(caught.value)
    assert "has not answered GET /api/runs/7 for 0 s (HTTP 503)" in message, message
    assert "the run goes on" in message and "drivelab api /api/runs/7" in message
    # Nothing listening at all: the same, for a transport error.
    with (
        httpx.Client(base_url="http://127.0.0.1:9", timeout=1) as client,
        pytest.raises(cli.CliError) as caught,
    ):
        cli.poll(client, "/api/runs/7", patience_s=0.05)
    assert "ConnectError" in str(caught.value), caught.value


def test_a_device_is_listed_as_the_drive_at_its_name_with_its_serial() -> None:
    """A sandbox file deleted and made again can get its inode number, and so its serial,
    back: the drive registered at the device's own name with its serial is the one listed,
    not an older drive that only shares the serial."""
    from backend.cli import _registered_as

    dev = {"path": "/t/new.img", "links": [], "serial": "SIM-1"}
    old = {"id": 30, "target_path": "/t/old.img", "serial": "SIM-1"}
    moved = {"id": 31, "target_path": "/t/new.img", "serial": "SIM-0"}
    new = {"id": 32, "target_path": "/t/new.img", "serial": "SIM-1"}
    assert _registered_as(dev, [old, moved, new]) == new
    assert _registered_as(dev, [old, moved]) == moved
    assert _registered_as(dev, [old]) == old
    assert _registered_as({**dev, "serial": "SIM-9"}, [old]) is None
