from __future__ import annotations

import pytest

from backend.core.errors import InvalidParams
from backend.plans.base import DriveContext, job_files_as_run
from backend.plans.catalog import compile_plan
from tests.backend.plans.jobfiles import TB2, sections

GiB = 1024**3
MiB = 1024**2


def test_a_small_drive_gets_smaller_files_by_default() -> None:
    """The defaults fit any drive the Queue page may show them for: 28% of 256 MiB (71.7 MiB)
    holds eight files of 8 MiB, not one of 1 GiB."""
    drive = DriveContext("/dev/loop7", 256 * MiB, "S")
    _p, _params, steps = compile_plan("file-copy", {}, drive)
    p = steps[-1].params
    assert (p["files"], p["file_bytes"]) == (8, 8 * MiB)


def test_pcpers_defaults_on_a_2tb_drive_ext4_with_online_discard() -> None:
    _p, params, steps = compile_plan("file-copy", {}, TB2)
    assert params["file_size"] is None and params["copy_size"] is None
    assert [s.name for s in steps] == ["purge", "file-copy"]
    step = steps[1]
    p = step.params
    assert step.kind == "file-copy"
    assert (p["fs"], p["mount_options"]) == ("ext4", "discard,noinit_itable")
    # No discard at mkfs (the purge did it), no inode tables zeroed before or behind the copy.
    assert "nodiscard,lazy_itable_init=1,lazy_journal_init=1" in p["mkfs_options"]
    assert (p["files"], p["file_bytes"], p["copy_bytes"]) == (10, GiB, 10 * GiB)
    assert p["delete_bytes"] == 10 * GiB
    assert p["deleted_files"] == [f"copy-1.{i}" for i in range(10)]
    assert p["status_interval_ms"] == 100
    runs = job_files_as_run(step.name, step.kind, p, step.job_file or "")
    assert [n for n, _ in runs] == [
        "file-copy (sources)", "file-copy (copy-1)", "file-copy (copy-2)"
    ]  # fmt: skip
    src = sections(runs[0][1])
    assert src["sources"]["filename_format"] == "src.$filenum"
    assert src["sources"]["rw"] == "write" and src["sources"]["end_fsync"] == "1"
    for name, text in runs[1:]:
        copy = sections(text)
        g = copy["global"]
        assert (g["bs"], g["direct"], g["fallocate"], g["nrfiles"], g["size"]) == (
            "1m", "1", "none", "10", "10g"
        )
        assert copy["read"]["filename_format"] == "src.$filenum"
        assert copy["read"]["rw"] == "read"
        which = name.split("(")[1].rstrip(")")
        assert copy["write"]["filename_format"] == f"{which}.$filenum"
        assert copy["write"]["rw"] == "write" and copy["write"]["end_fsync"] == "1"
    assert step.job_file == runs[1][1]
    # mkfs, then the sources and the two copies at 500 MB/s.
    assert step.estimate_s == pytest.approx(5 + 3 * 10 * GiB / 500e6)


def test_a_small_drive_gets_a_capped_copy_and_a_note() -> None:
    drive = DriveContext("/dev/loop9", 8 * GiB, "S")
    _p, _params, steps = compile_plan("file-copy", {"file_size": "256m"}, drive)
    p = steps[-1].params
    assert p["copy_bytes"] == int(8 * GiB * 0.28) // (256 * MiB) * 256 * MiB
    assert any("not PCPer's 10 GiB" in n for n in steps[0].params["notes"])


@pytest.mark.parametrize(
    ("params", "field", "words"),
    [
        ({"file_size": "1500k"}, "params.file_size", "whole number of MiB"),
        ({"file_size": "8m", "copy_size": "20m"}, "params.copy_size", "whole number of files"),
        ({"file_size": "1g", "copy_size": "1t"}, "params.copy_size", "the sources and both"),
        ({"file_size": "8m", "copy_size": "64m", "delete_size": "72m"}, "params.delete_size",
         "between 1 and 8 files"),
        ({"file_size": "1t"}, "params.file_size", "choose smaller files"),
    ],
)  # fmt: skip
def test_sizes_that_do_not_fit_are_refused_in_words(params: dict, field: str, words: str) -> None:
    with pytest.raises(InvalidParams) as exc:
        compile_plan("file-copy", params, TB2 if "1t" not in str(params) else DriveContext(
            "/dev/loop9", 2 * GiB, "S"))
    assert exc.value.field == field and words in exc.value.message


def test_the_deletions_are_the_first_copys_first_files() -> None:
    _p, _params, steps = compile_plan(
        "file-copy",
        {"file_size": "8m", "copy_size": "96m", "delete_size": "32m", "purge": False},
        TB2,
    )
    assert [s.name for s in steps] == ["file-copy"]
    p = steps[0].params
    assert p["deleted_files"] == ["copy-1.0", "copy-1.1", "copy-1.2", "copy-1.3"]
    assert (p["files"], p["delete_bytes"]) == (12, 32 * MiB)
    assert any("no purge" in n for n in p["notes"])
