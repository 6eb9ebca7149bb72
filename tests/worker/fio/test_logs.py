from __future__ import annotations

from pathlib import Path

import pytest

from worker.fio.logs import collect_logs, parse_window_log

LOGS = Path(__file__).resolve().parents[2] / "fixtures" / "fio-3.33" / "logs"


def test_rows_keep_fios_own_times() -> None:
    """No grid: rows stay at the times fio wrote them (a 300 ms pause: a gap from 243 to 543 ms
    that the analysis reads as time without completions)."""
    text = (LOGS / "hitch_bw.1.log").read_text()
    series = parse_window_log(text, 100, scale=1024)
    rows = [line for line in text.splitlines() if line.strip()]
    assert series["t_ms"] == [int(r.split(",")[0]) for r in rows]
    assert series["t_ms"][:4] == [142, 243, 543, 643]
    assert series["write"][0] == pytest.approx(1317859 * 1024)
    assert len(series["t_ms"]) == len(series["write"]) == len(series["read"])
    assert all(v == 0 for v in series["read"])


def test_a_direction_without_a_row_at_a_time_is_zero_there() -> None:
    text = "100, 10, 0, 0, 0\n100, 20, 1, 0, 0\n200, 30, 1, 0, 0\n"
    series = parse_window_log(text, 100)
    assert series["t_ms"] == [100, 200]
    assert series["read"] == [10.0, 0.0]
    assert series["write"] == [20.0, 30.0]


def test_collect_logs_reads_both_kinds(tmp_path: Path) -> None:
    for name in ("hitch_bw.1.log", "hitch_iops.1.log"):
        (tmp_path / name).write_text((LOGS / name).read_text())
    logs = collect_logs(tmp_path, "hitch", 100)
    assert logs["window_ms"] == 100
    assert set(logs) == {"window_ms", "bw", "iops"}
    assert len(logs["bw"]["t_ms"]) == len(logs["iops"]["t_ms"])


def test_rejects_bad_window() -> None:
    with pytest.raises(ValueError):
        parse_window_log("", 0)
