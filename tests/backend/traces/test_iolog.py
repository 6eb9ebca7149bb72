"""drivelab's reading of an iolog, case by case, each checked against real fio where fio is
installed: the same I/Os issued (direction, offset, length), or the same refusal or crash."""

from __future__ import annotations

from pathlib import Path

import pytest

from backend.core.errors import InvalidParams
from backend.plans.base import DriveContext
from backend.runs.service import check_trace_fits
from backend.traces import iolog
from backend.traces.formats import TraceFormatError, summarise
from backend.traces.models import Trace
from tests.backend.traces.fio_replay import FIO, compare, expected, fio_replay
from tests.backend.traces.test_formats import blk_record

needs_fio = pytest.mark.skipif(FIO is None, reason="fio is not installed (make fio)")

V2 = b"fio version 2 iolog\n"
OPEN = b"x add\nx open\n"
GiB = 2**30


def v2(*lines: bytes) -> bytes:
    return V2 + OPEN + b"".join(line + b"\n" for line in lines)


def ios(trace: bytes) -> list[tuple[str, int, int]]:
    return expected(trace).ios


@needs_fio
def test_a_carriage_return_separates_fields_and_the_write_lands_at_2_gib(tmp_path: Path) -> None:
    """The line that was summarised as a write ending at 4096: fio writes at 2 GiB. Replayed
    here with a real ioengine onto a scratch file, which fio extends to 2 GiB + 4 KiB."""
    trace = v2(b"x write\r2147483648 4096")
    assert ios(trace) == [("write", 2 * GiB, 4096)]
    summary = summarise(trace)
    assert (summary.ios, summary.write_bytes, summary.end_bytes) == (1, 4096, 2 * GiB + 4096)
    replayed = fio_replay(trace, tmp_path, ioengine="psync")
    assert replayed.ios == [("write", 2 * GiB, 4096)], replayed.output
    assert (tmp_path / "scratch.img").stat().st_size == 2 * GiB + 4096
    # Queued on a 1 GiB drive, the trace is refused before anything is written.
    stored = Trace(id=7, end_bytes=summary.end_bytes, align_bytes=summary.align_bytes)
    drive = DriveContext(
        target_path="/dev/loop9", capacity_bytes=GiB, serial="S", logical_sector=512
    )
    with pytest.raises(InvalidParams, match=f"reaches byte {2 * GiB + 4096}"):
        check_trace_fits(stored, drive)


@needs_fio
@pytest.mark.parametrize(
    ("line", "io"),
    [
        (b"x\tread\t8192\t4096", ("read", 8192, 4096)),
        (b"x\vread\v8192\v4096", ("read", 8192, 4096)),
        (b"x\fread\f8192\f4096", ("read", 8192, 4096)),
        (b" \t x \r\v\f read  +8192\t+4096\r", ("read", 8192, 4096)),
        (b"x read 8192 4096 and anything after", ("read", 8192, 4096)),
        (b"x read 8192 4096abc", ("read", 8192, 4096)),
        (b"x sync 0 0", ("sync", 0, 0)),
        (b"x read 8192 4294971392", ("read", 8192, 4096)),
        (b"x read -4096 512", ("read", 2**64 - 4096, 512)),
        (b"x read 99999999999999999999 -1", ("read", 2**64 - 1, 2**32 - 1)),
        (b"x read -99999999999999999999 -0", None),  # a length of 0: the replay ends
    ],
)
def test_fields_are_split_and_numbers_read_as_fio_does(
    tmp_path: Path, line: bytes, io: tuple[str, int, int] | None
) -> None:
    # A trace without writes: fio fills the buffers of a writing job (4 GiB for a length of -1).
    trace = v2(b"x read 0 512", line)
    assert ios(trace) == [("read", 0, 512), *([io] if io else [])]
    compare(trace, tmp_path)


@pytest.mark.parametrize(
    ("line", "words"),
    [
        (b"x write -4096 4096", "fio reads the offset '-4096' as 18446744073709547520"),
        (b"x write 4096 -4096", "fio reads the length '-4096' as 4294963200"),
        (b"x write 4096 4294971392", "fio reads the length '4294971392' as 4096"),
        (b"x write 99999999999999999999 4096", "a number past 2^64 - 1 stops there"),
        (b"x write 18446744073709551615 4096", "ends past byte 9223372036854775807"),
        (b"x write 0x1000 4096", "fio reads no length (a decimal number) after the offset"),
        (b"x write 4096", "fio reads no length"),
        (b"x wrote 0 4096", "fio skips the action 'wrote'"),
        (b"x opened", "fio skips the file action 'opened'"),
        (b"x write\x1c0", "fio skips the file action 'write\\x1c0'"),
        (b"x write 0 4096\x00 8192", "holds a NUL byte"),
        (b" " * 4090 + b"x write 0 4096", "longer than the 4095 bytes fio reads"),
        (b"n" * 300 + b" write 0 4096", "the name is longer than the 256 bytes fio reads"),
        (b"x datasync 0 4096", "a datasync of 4096 bytes: fio fails the replay"),
        (b"x write 0 100", "100 bytes is not a whole number of 512-byte sectors"),
        (b"x read 0 0", "a read of 0 bytes: fio cannot issue it and stops the replay"),
    ],
)
def test_what_fio_reads_otherwise_or_skips_is_refused_saying_which_line(
    line: bytes, words: str
) -> None:
    with pytest.raises(TraceFormatError, match="iolog line 5") as refused:
        summarise(v2(b"x write 0 4096", line))
    assert words in str(refused.value)


@needs_fio
@pytest.mark.parametrize(
    "line",
    [b"x write 0x1000 4096", b" " * 4090 + b"x write 8192 4096", b"x wrote 0 4096"],
)
def test_fio_skips_what_the_upload_refuses(tmp_path: Path, line: bytes) -> None:
    """fio replays the rest of the trace without these lines (a long line is read in two
    pieces that are no I/O either): the upload refuses them instead of replaying something
    other than what was written."""
    trace = v2(b"x write 0 4096", line)
    assert ios(trace) == [("write", 0, 4096)]
    compare(trace, tmp_path)


@needs_fio
def test_a_line_longer_than_fios_buffer_is_read_as_two(tmp_path: Path) -> None:
    """fio reads 4095 bytes of a line at once: what follows is another line to fio, here a
    write at 1 GiB glued to the end of a read."""
    first = b"x read 0 4096"
    pad = b" " * (iolog.LINE_BUFFER - 1 - len(first))
    trace = v2(b"x write 0 4096", pad + first + b"x write 1073741824 4096")
    assert ios(trace) == [("write", 0, 4096), ("read", 0, 4096), ("write", GiB, 4096)]
    compare(trace, tmp_path)
    with pytest.raises(TraceFormatError, match="line 5 is longer than the 4095 bytes"):
        summarise(trace)


@needs_fio
def test_a_version_3_line_has_a_timestamp_first(tmp_path: Path) -> None:
    trace = (
        b"fio version 3 iolog\n10 /dev/sdb add\n11 /dev/sdb open\n"
        b"12 /dev/sdb write 1048576 65536\n+13\t/dev/sdb\rread 0 4096\n"
        b"14 /dev/sdb wait 0 0\n15 /dev/sdb close\n"
    )
    assert ios(trace) == [("write", 1048576, 65536), ("read", 0, 4096)]
    compare(trace, tmp_path)
    with pytest.raises(TraceFormatError, match="line 6: fio ignores a wait in a version 3"):
        summarise(trace)
    summary = summarise(trace.replace(b"14 /dev/sdb wait 0 0\n", b""))
    assert (summary.format, summary.ios, summary.end_bytes) == ("iolog-v3", 2, 1048576 + 65536)


@needs_fio
@pytest.mark.parametrize(
    ("header", "accepted"),
    [
        (b"fio version 2 iolog", True),
        (b"fio version 2 iolog\r", True),
        (b"fio version 2 iolog, anything after", True),
        (b"fio version 3 iolog", False),  # accepted, but its lines then have no timestamp
        (b" fio version 2 iolog", False),
        (b"fio version 1 iolog", False),
        (b"FIO VERSION 2 IOLOG", False),
    ],
)
def test_the_version_line(tmp_path: Path, header: bytes, accepted: bool) -> None:
    trace = header + b"\n" + OPEN + b"x write 0 4096\n"
    compare(trace, tmp_path)
    if accepted:
        assert summarise(trace).ios == 1
    else:
        with pytest.raises(TraceFormatError):
            summarise(trace)


@needs_fio
def test_a_version_line_longer_than_fio_reads_runs_on_into_a_line(tmp_path: Path) -> None:
    """fio reads 255 bytes of the version line: the rest is read as the next line, here the
    add that opens the file."""
    header = b"fio version 2 iolog" + b" " * (255 - 19)
    trace = header + b"x add\nx open\nx write 0 4096\n"
    assert ios(trace) == [("write", 0, 4096)]
    compare(trace, tmp_path)
    with pytest.raises(TraceFormatError, match="line 1 is longer than the 255 bytes"):
        summarise(trace)


def test_blank_lines_and_windows_line_ends_are_accepted() -> None:
    trace = b"fio version 2 iolog\r\n\r\nx add\r\n\nx open\r\n \t\nx write 0 4096\r\n\n\n"
    summary = summarise(trace)
    assert (summary.ios, summary.write_bytes) == (1, 4096)


@needs_fio
@pytest.mark.parametrize(
    ("trace", "words"),
    [
        (V2 + b"x write 0 4096\n", "line 2: write before any 'add' line"),
        (V2 + b"x add\nx write 0 4096\n", "line 3: a write while the file is not open"),
        (v2(b"x write 0 4096", b"x close", b"x write 0 4096"), "line 6: a write while"),
        (v2(b"x close", b"x close", b"x open", b"x write 0 4096"), "line 6: open after a"),
        # A second add repeats the file action before it: here a close of a closed file.
        (v2(b"x close", b"y add", b"x open", b"x write 0 4096"), "line 6: open after a"),
    ],
)
def test_fio_crashes_or_aborts_on_what_the_upload_refuses(
    tmp_path: Path, trace: bytes, words: str
) -> None:
    compare(trace, tmp_path)
    assert expected(trace).crashed
    with pytest.raises(TraceFormatError, match=words):
        summarise(trace)


@needs_fio
def test_a_name_added_again_repeats_the_file_action_before_it(tmp_path: Path) -> None:
    """Every name is the target (replay_redirect): an add after an open opens it again (a
    no-op), and a trace naming several files replays on the one target."""
    trace = v2(b"y add", b"y write 0 4096", b"z add", b"z read 0 4096", b"x close")
    assert ios(trace) == [("write", 0, 4096), ("read", 0, 4096)]
    compare(trace, tmp_path)
    assert summarise(trace).ios == 2


@needs_fio
def test_trims_count_for_the_extent_though_fio_3_33_skips_them(tmp_path: Path) -> None:
    trace = v2(b"x write 0 4096", b"x trim 1073741824 4096")
    assert ios(trace) == [("write", 0, 4096)]
    compare(trace, tmp_path)
    summary = summarise(trace)
    assert (summary.ios, summary.end_bytes) == (2, GiB + 4096)
    only_trims = v2(b"x trim 0 4096")
    compare(only_trims, tmp_path)
    with pytest.raises(TraceFormatError, match="holds no read or write"):
        summarise(only_trims)


@needs_fio
def test_a_sync_with_a_length_fails_the_replay(tmp_path: Path) -> None:
    """With a synchronous ioengine fio counts the sync's length as left undone and fails the
    job there with EIO: the upload refuses a sync or datasync with a length."""
    trace = v2(b"x write 0 4096", b"x sync 0 4096", b"x write 4096 4096")
    failed = fio_replay(trace, tmp_path, ioengine="psync")
    assert failed.ios == [("write", 0, 4096), ("sync", 0, 4096)], failed.output
    assert "error=Input/output error" in failed.output
    with pytest.raises(TraceFormatError, match="line 5: a sync of 4096 bytes"):
        summarise(trace)
    trace = v2(b"x write 0 4096", b"x sync 0 0", b"x write 4096 4096")
    synced = fio_replay(trace, tmp_path, ioengine="psync")
    assert synced.ios == [("write", 0, 4096), ("sync", 0, 0), ("write", 4096, 4096)]
    assert "error=" not in synced.output
    assert summarise(trace).ios == 2


@needs_fio
def test_fio_stops_at_a_read_or_write_of_0_bytes_and_may_then_abort(tmp_path: Path) -> None:
    """At a length of 0 (here '4294967296', 2^32) fio stops replaying; what it does with the
    rest depends on the byte totals: here it aborts on the read after. Refused at upload."""
    trace = v2(b"x write 0 4096", b"x write 0 4294967296", b"x read 0 4096")
    assert expected(trace).ios == [("write", 0, 4096)] and expected(trace).open_ended
    replayed = fio_replay(trace, tmp_path)
    assert replayed.ios == [("write", 0, 4096)] and replayed.crashed, replayed.output
    with pytest.raises(TraceFormatError, match="line 5: fio reads the length '4294967296' as 0"):
        summarise(trace)
    with pytest.raises(TraceFormatError, match="line 5: a write of 0 bytes: fio cannot issue"):
        summarise(trace.replace(b"4294967296", b"0"))


@needs_fio
def test_a_blktrace_extent_is_what_fio_replays_with_replay_align(tmp_path: Path) -> None:
    """With replay_align=4096 (as drivelab replays) fio moves a blktrace I/O down to 4 KiB and
    rounds its length up: the extent recorded is the end of what fio replays."""
    trace = blk_record(1 | (1 << 17), 512, sector=9) + blk_record(1 | (1 << 16), 4608, sector=8)
    replayed = fio_replay(trace, tmp_path, extra=("--replay_align=4096",))
    assert replayed.ios == [("write", 4096, 4096), ("read", 4096, 8192)], replayed.output
    assert summarise(trace).end_bytes == max(o + n for _d, o, n in replayed.ios) == 12288
