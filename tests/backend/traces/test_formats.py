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


def blk_record(action: int, nbytes: int, pdu: bytes = b"") -> bytes:
    return BLK_HEADER.pack(BLK_MAGIC | 7, 1, 0, 0, nbytes, action, 1, 0, 0, 0, len(pdu)) + pdu


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
        (b"fio version 2 iolog\n/dev/x scribble 0 4096\n", "unknown action"),
        (struct.pack("<I", BLK_MAGIC | 7) + b"\0" * 10, "no queued"),
    ],
)
def test_rejects_what_is_not_a_trace(data: bytes, words: str) -> None:
    with pytest.raises(TraceFormatError, match=words):
        summarise(data)
