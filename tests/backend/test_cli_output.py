"""The CLI's tables, progress and errors (rich): aligned columns, text kept as typed (no
markup eaten), whole lines when piped, errors that say what to fix."""

from __future__ import annotations

from typing import Any

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

    def call(_client: Any, _method: str, _path: str) -> dict[str, Any]:
        return next(answers)

    monkeypatch.setattr(cli, "call", call)
    monkeypatch.setattr(cli.time, "sleep", lambda _s: None)
    run = cli.wait_for(None, 7, quiet=False)  # type: ignore[arg-type]
    assert run["status"] == "done"
    assert capsys.readouterr().err.splitlines() == [
        "run 7   0.0% queued",
        "run 7  50.0% step 2/2 4K random read QD3",
        "run 7 100.0% done",
    ]
