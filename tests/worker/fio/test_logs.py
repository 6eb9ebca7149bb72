from __future__ import annotations

from pathlib import Path

import pytest

from worker.fio.logs import collect_logs, parse_window_log

LOGS = Path(__file__).resolve().parents[2] / "fixtures" / "fio-3.33" / "logs"


def test_missing_windows_are_zero_not_dropped() -> None:
    text = (LOGS / "hitch_bw.1.log").read_text()
    series = parse_window_log(text, 100, scale=1024)
    # Rows at 142, 243, 543, 643, 948, ... ms: the grid starts at 42 ms + k * 100 ms.
    assert series["t_ms"][:6] == [142, 242, 342, 442, 542, 642]
    assert series["write"][0] == pytest.approx(1317859 * 1024)
    assert series["write"][2:4] == [0.0, 0.0]  # the 300 ms pause: two empty windows
    rows = [line for line in text.splitlines() if line.strip()]
    assert sum(1 for v in series["write"] if v > 0) == len(rows)
    assert len(series["t_ms"]) == len(series["write"]) == len(series["read"])
    assert all(v == 0 for v in series["read"])


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
