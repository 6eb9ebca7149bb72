from __future__ import annotations

import pytest

from backend.core.errors import InvalidParams, NotFound
from backend.plans.base import DriveContext, format_size, parse_size
from backend.plans.catalog import compile_plan

DRIVE = DriveContext(target_path="/dev/nvme9n1", capacity_bytes=500 * 10**9, serial="S1")


def options(job_file: str) -> dict[str, str]:
    """The job section's options (after the [global] section)."""
    section = job_file.split("\n\n", 1)[1]
    return dict(line.split("=", 1) for line in section.splitlines()[1:] if "=" in line)


def test_review_defaults_match_methods() -> None:
    _plan, params, steps = compile_plan("four-corners", {}, DRIVE)
    assert params["span"] == "8g" and params["runtime_s"] == 180
    by = {s.name: options(s.job_file or "") for s in steps}
    assert by["prewrite"] == {
        **by["prewrite"],
        "rw": "write",
        "bs": "128k",
        "iodepth": "32",
        "size": "8g",
    }
    rr = by["randread-4k-qd3"]
    assert (rr["rw"], rr["bs"], rr["iodepth"], rr["size"], rr["runtime"]) == (
        "randread",
        "4k",
        "3",
        "8g",
        "180",
    )
    assert rr["time_based"] == "1" and rr["norandommap"] == "1"
    for qd in (3, 32):
        inc = by[f"randwrite-4k-qd{qd}-incompressible"]
        comp = by[f"randwrite-4k-qd{qd}-compressible"]
        assert inc["iodepth"] == comp["iodepth"] == str(qd)
        assert inc["refill_buffers"] == "1" and "buffer_compress_percentage" not in inc
        assert comp["buffer_compress_percentage"] == "50"
    seq = by["seqread-128k-qd1"]
    assert (seq["bs"], seq["iodepth"], seq["runtime"]) == ("128k", "1", "60")
    # "over the full span": the whole drive by default.
    assert parse_size(seq["size"]) == DRIVE.capacity_bytes
    for s in steps:
        assert "filename=/dev/nvme9n1\n" in (s.job_file or "")
        assert "direct=1\n" in (s.job_file or "") and "randseed=20261121\n" in (s.job_file or "")


def test_shortened_and_single_pattern() -> None:
    _p, _params, steps = compile_plan(
        "four-corners",
        {"span": "64m", "runtime_s": 2, "patterns": ["compressible"], "prewrite": False},
        DRIVE,
    )
    assert [s.name for s in steps] == [
        "randread-4k-qd3",
        "randwrite-4k-qd3-compressible",
        "randwrite-4k-qd32-compressible",
        "seqread-128k-qd1",
        "seqwrite-128k-qd1-compressible",
    ]
    assert options(steps[0].job_file or "")["runtime"] == "2"


@pytest.mark.parametrize(
    ("params", "field", "words"),
    [
        ({"span": "8t"}, "span", "larger than the drive"),
        ({"span": "12kb!"}, "params.span", "span"),
        ({"runtime_s": -1}, "params.runtime_s", "runtime_s"),
        ({"patterns": []}, "params.patterns", "patterns"),
        ({"patterns": ["zeros"]}, "params.patterns.0", "patterns"),
        ({"typo": 1}, "params.typo", "typo"),
    ],
)
def test_bad_params_name_the_parameter(params: dict, field: str, words: str) -> None:
    with pytest.raises(InvalidParams) as exc:
        compile_plan("four-corners", params, DRIVE)
    assert exc.value.field == field and words in exc.value.message


def test_unknown_plan() -> None:
    with pytest.raises(NotFound, match="four-corners"):
        compile_plan("five-corners", {}, DRIVE)


def test_sizes_use_fio_binary_units() -> None:
    assert parse_size("8g") == 8 * 1024**3
    assert parse_size("512") == 512
    assert format_size(8 * 1024**3) == "8g" and format_size(1536 * 1024**2) == "1536m"
    with pytest.raises(ValueError, match="not a size"):
        parse_size("lots")
