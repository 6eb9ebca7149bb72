"""A file copy step's samples split into its copies, and its figures' names and direction
(backend.results.file_copy, backend.results.names)."""

from __future__ import annotations

from types import SimpleNamespace

from backend.results.file_copy import phase_samples
from backend.results.names import is_performance, lower_is_better, names


def test_a_copys_samples_are_those_that_end_within_its_phase() -> None:
    rows = [SimpleNamespace(t_ms=t) for t in (900, 1000, 1100, 2000, 2100, 3000)]
    phase = {"phase": "copy-1", "t_start_ms": 1000, "t_end_ms": 2000}
    assert [r.t_ms for r in phase_samples(rows, phase)] == [1100, 2000]


def test_the_figures_are_named_in_words_and_standstills_are_lower_better() -> None:
    m = "file-copy:file-copy:file_copy_repeated_standstill_s"
    assert names(m)["plan"] == "File copy after deletions"
    assert names(m)["test"] == "file copy through ext4, repeated after deletions"
    assert names(m)["measure"] == "repeated copy, time stood still"
    assert lower_is_better(m, "s") and is_performance(m)
    count = "file-copy:file-copy:file_copy_repeated_standstills"
    assert lower_is_better(count, "count")
    assert not lower_is_better("file-copy:file-copy:file_copy_repeated_mbps", "MB/s")
    assert not is_performance("file-copy:file-copy:file_copy_discarded_bytes")
