from __future__ import annotations

import struct
from pathlib import Path

import pytest

from backend.traces.formats import BLK_HEADER, BLK_MAGIC, TraceFormatError, summarise

TRACES = Path(__file__).resolve().parents[2] / "fixtures" / "traces"


def test_recorded_fio_iolog_totals_match_fio() -> None:
    summary = summarise((TRACES / "mixed-v3.iolog").read_bytes())
    # The totals fio itself reported for the run that wrote this log (see the README).
    assert (summary.format, summary.ios) == ("iolog-v3", 400)
    assert (summary.read_bytes, summary.write_bytes) == (4550656, 3457024)


def test_iolog_v2() -> None:
    text = (
        b"fio version 2 iolog\n/dev/x add\n/dev/x open\n/dev/x read 0 4096\n"
        b"/dev/x write 8192 65536\n/dev/x close\n"
    )
    s = summarise(text)
    assert (s.format, s.ios, s.read_bytes, s.write_bytes) == ("iolog-v2", 2, 4096, 65536)


def blk_record(action: int, nbytes: int, pdu: bytes = b"", sector: int = 0) -> bytes:
    header = BLK_HEADER.pack(BLK_MAGIC | 7, 1, 0, sector, nbytes, action, 1, 0, 0, 0, len(pdu))
    return header + pdu


def test_blktrace_counts_queued_reads_and_writes() -> None:
    queue_read = 1 | (1 << 16)
    queue_write = 1 | (1 << 17)
    complete_write = 8 | (1 << 17)  # a completion event: not counted again
    data = (
        blk_record(queue_read, 4096)
        + blk_record(queue_write, 8192, b"pdu!")
        + blk_record(complete_write, 8192)
    )
    s = summarise(data)
    assert (s.format, s.ios, s.read_bytes, s.write_bytes) == ("blktrace", 2, 4096, 8192)


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"hello world", "fio iolog"),
        (b"fio version 3 iolog\n1 /dev/x open\n", "no read or write"),
        (b"fio version 2 iolog\n/dev/x read zero 4096\n", "line 2"),
        (
            b"fio version 2 iolog\n/dev/x add\n/dev/x open\n/dev/x scribble 0 4096\n",
            "line 4: fio skips the action 'scribble'",
        ),
        (struct.pack("<I", BLK_MAGIC | 7) + b"\0" * 10, "no queued"),
    ],
)
def test_rejects_what_is_not_a_trace(data: bytes, words: str) -> None:
    with pytest.raises(TraceFormatError, match=words):
        summarise(data)


def test_the_extent_and_the_alignment_of_lengths_are_recorded() -> None:
    s = summarise((TRACES / "mixed-v3.iolog").read_bytes())
    assert (s.end_bytes, s.align_bytes) == (33378304, 4096)
    text = (
        b"fio version 2 iolog\n/dev/x add\n/dev/x open\n/dev/x read 1048576 1536\n"
        b"/dev/x trim 8388608 4096\n/dev/x write 0 8192\n"
    )
    s = summarise(text)
    assert (s.end_bytes, s.align_bytes) == (8388608 + 4096, 512)
    sector = 2048
    data = blk_record(1 | (1 << 17), 4096, sector=sector) + blk_record(1 | (1 << 16), 1024)
    s = summarise(data)
    assert (s.end_bytes, s.align_bytes) == (sector * 512 + 4096, 1024)


@pytest.mark.parametrize(
    ("line", "words"),
    [
        (b"/dev/x write -4096 4096", "fio reads the offset '-4096' as 18446744073709547520"),
        (b"/dev/x read 0 0", "fio cannot issue it and stops the replay here"),
        (b"/dev/x write 0 100", "100 bytes is not a whole number of 512-byte sectors"),
    ],
)
def test_ranges_direct_io_cannot_replay_are_refused(line: bytes, words: str) -> None:
    """fio replays these with direct I/O and fails on them (EINVAL) after the fill."""
    with pytest.raises(TraceFormatError, match=words):
        summarise(
            b"fio version 2 iolog\n/dev/x add\n/dev/x open\n/dev/x write 0 4096\n" + line + b"\n"
        )


def test_a_blktrace_extent_is_the_one_fio_replays_with_replay_align() -> None:
    """fio moves a blktrace I/O's offset down to 4 KiB and rounds its length up: 512 bytes at
    sector 9 (byte 4608) are replayed as 4 KiB at byte 4096, ending at 8192, not 5120."""
    queue_write = 1 | (1 << 17)
    s = summarise(blk_record(queue_write, 512, sector=9))
    assert (s.ios, s.write_bytes, s.end_bytes, s.align_bytes) == (1, 512, 8192, 512)
    s = summarise(blk_record(queue_write, 4608, sector=8))
    assert s.end_bytes == 8192 + 4096


@pytest.mark.parametrize(
    ("record", "words"),
    [
        (BLK_HEADER.pack(BLK_MAGIC | 6, 1, 0, 0, 4096, 1 | (1 << 17), 1, 0, 0, 0, 0), "version 6"),
        (blk_record(1 | (1 << 17), 4096, sector=2**60), "beyond any drive"),
    ],
)
def test_blktrace_records_fio_refuses_or_no_drive_holds_are_refused(
    record: bytes, words: str
) -> None:
    with pytest.raises(TraceFormatError, match=words):
        summarise(blk_record(1 | (1 << 16), 4096) + record)
