"""TRIM of a range on real loop devices and files: exactly that range becomes zero."""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable

import pytest

from tests.worker.steps.conftest import MiB, Target, pattern, read_direct, write
from worker.steps import StepError, TrimResult, trim

trim_module = importlib.import_module("worker.steps.trim")

SIZE = 64 * MiB


@pytest.fixture(params=["loop", "file"])
def target(
    request: pytest.FixtureRequest,
    loop_target: Callable[..., Target],
    file_target: Callable[..., Target],
) -> Target:
    """The same tests on a loop device (BLKDISCARD) and a simulated drive (hole punch)."""
    make = loop_target if request.param == "loop" else file_target
    return make(SIZE)


def expected_method(target: Target) -> str:
    return "blkdiscard" if target.info.kind == "block" else "file-punch"


def test_trim_a_range_in_the_middle_zeroes_only_that_range(target: Target) -> None:
    write(target.path, 0, pattern(16 * MiB))

    result = trim(target.info, 4 * MiB, 4 * MiB)

    assert (result.offset, result.length, result.method) == (
        4 * MiB,
        4 * MiB,
        expected_method(target),
    )
    assert read_direct(target.path, 0, 4 * MiB) == pattern(4 * MiB)
    assert read_direct(target.path, 4 * MiB, 4 * MiB) == bytes(4 * MiB)
    assert read_direct(target.path, 8 * MiB, 8 * MiB) == pattern(16 * MiB)[8 * MiB :]
    assert result.seconds > 0
    assert result.gbps == pytest.approx(4 * MiB / result.seconds / 1e9)
    assert result.gbps > 0
    assert result.as_dict() == {
        "offset": 4 * MiB,
        "length": 4 * MiB,
        "seconds": result.seconds,
        "method": expected_method(target),
        "gbps": result.gbps,
    }


def test_length_none_trims_to_the_end(target: Target) -> None:
    write(target.path, SIZE - 16 * MiB, pattern(16 * MiB))

    result = trim(target.info, SIZE - 8 * MiB)

    assert (result.offset, result.length) == (SIZE - 8 * MiB, 8 * MiB)
    assert read_direct(target.path, SIZE - 16 * MiB, 8 * MiB) == pattern(8 * MiB)
    assert read_direct(target.path, SIZE - 8 * MiB, 8 * MiB) == bytes(8 * MiB)


def test_trim_whole_target(target: Target) -> None:
    write(target.path, 0, pattern(MiB))
    write(target.path, SIZE - MiB, pattern(MiB))
    result = trim(target.info)
    assert (result.offset, result.length) == (0, SIZE)
    assert read_direct(target.path, 0, MiB) == bytes(MiB)
    assert read_direct(target.path, SIZE - MiB, MiB) == bytes(MiB)


def test_unaligned_range_shrinks_inward_to_whole_units(target: Target) -> None:
    """Nothing outside the requested bytes may be discarded: 1000..11000 becomes 4096..8192
    (4 KiB is the loop device's discard granularity and the file's block size here)."""
    write(target.path, 0, pattern(16384))

    result = trim(target.info, 1000, 10000)

    assert (result.offset, result.length) == (4096, 4096)
    data = read_direct(target.path, 0, 16384)
    assert data[:4096] == pattern(4096)
    assert data[4096:8192] == bytes(4096)
    assert data[8192:] == pattern(16384)[8192:]


@pytest.mark.parametrize(
    ("offset", "length"),
    [(SIZE - MiB, 2 * MiB), (SIZE + 4096, None), (-4096, 4096), (0, 0), (SIZE, None)],
)
def test_range_outside_the_target_is_refused(
    target: Target, offset: int, length: int | None
) -> None:
    write(target.path, SIZE - MiB, pattern(MiB))
    with pytest.raises(StepError, match=f"which is {SIZE} bytes \\(0.067 GB\\)"):
        trim(target.info, offset, length)
    assert read_direct(target.path, SIZE - MiB, MiB) == pattern(MiB)


def test_range_smaller_than_a_discard_unit_is_refused(target: Target) -> None:
    with pytest.raises(StepError, match="no whole 4096-byte discard unit"):
        trim(target.info, 512, 2048)


def test_device_without_discard_support_is_refused(
    loop_target: Callable[..., Target], monkeypatch: pytest.MonkeyPatch
) -> None:
    target = loop_target(SIZE)
    geometry = trim_module._geometry(target.info)
    monkeypatch.setattr(
        trim_module, "_geometry", lambda info: dataclasses.replace(geometry, discard_max_bytes=0)
    )
    with pytest.raises(StepError, match=r"does not support discard \(its discard_max_bytes is 0"):
        trim(target.info, 0, MiB)


def test_trim_result_rate() -> None:
    result = TrimResult(offset=0, length=10 * 10**9, seconds=4.0, method="blkdiscard")
    assert result.gbps == 2.5
