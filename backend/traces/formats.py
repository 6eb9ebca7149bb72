"""Recognise and summarise I/O traces (pure): fio iolog v2/v3 text and blktrace binary."""

from __future__ import annotations

import struct
from dataclasses import dataclass

from backend.traces import iolog

BLK_MAGIC = 0x65617400
BLK_VERSION = 7  # fio refuses a record of another version ("bad blktrace version")
BLK_HEADER = struct.Struct("<IIQQIIIIIHH")  # struct blk_io_trace, 48 bytes, little endian
BLK_TA_QUEUE = 1
BLK_TC_READ = 1 << 16
BLK_TC_WRITE = 1 << 17


class TraceFormatError(ValueError):
    pass


# Every length of a read or write is a multiple of this (at most 4 KiB): a drive whose logical
# sector is larger cannot replay the trace with direct I/O.
MAX_ALIGN = 4096
SECTOR = 512


@dataclass(frozen=True)
class TraceSummary:
    format: str  # iolog-v2 | iolog-v3 | blktrace
    ios: int
    read_bytes: int
    write_bytes: int
    # The end of the furthest range the trace reads, writes or trims: the device must hold it.
    end_bytes: int = 0
    # The largest power of two (up to 4 KiB) every read and write length is a multiple of.
    align_bytes: int = MAX_ALIGN


def _alignment(length: int) -> int:
    return min(length & -length, MAX_ALIGN)


def summarise(data: bytes) -> TraceSummary:
    if data[:4] and len(data) >= 4 and struct.unpack("<I", data[:4])[0] & 0xFFFFFF00 == BLK_MAGIC:
        return _blktrace(data)
    if any(data.startswith(prefix) for prefix in iolog.VERSION_PREFIXES.values()):
        return _iolog(data)
    raise TraceFormatError(
        "not a trace drivelab can replay: upload a fio iolog (first line 'fio version 2 iolog' "
        "or 'fio version 3 iolog', e.g. from fio's write_iolog=) or a blktrace binary "
        "(blktrace -o - DEV > trace.bin, or a device's merged .blktrace.N file)"
    )


# No drive holds a byte past this (PostgreSQL's bigint, where the extent is kept).
MAX_END = 2**63 - 1
# The replay_align of a trace replay (backend.plans.trace_replay).
REPLAY_ALIGN = 4096


def _misread(number: iolog.Misread) -> TraceFormatError:
    """A number fio reads as another value than it says: the trace would replay an I/O its
    author did not write."""
    face = int(number.text)
    if face < 0:
        why = "a negative number wraps around 2^64"
    elif face >= 2**64:
        why = "a number past 2^64 - 1 stops there"
    else:
        why = "a length keeps only its low 32 bits"
    return TraceFormatError(
        f"iolog line {number.line}: fio reads the {number.field} {number.text!r} as "
        f"{number.value} ({why}): write the {number.field} as a decimal number of bytes"
    )


def _iolog(data: bytes) -> TraceSummary:
    """Summarise an iolog as fio replays it (backend.traces.iolog), and refuse what fio
    refuses, skips or would replay otherwise than it reads."""
    try:
        log = iolog.read(data)
    except iolog.FioRefuses as exc:
        raise TraceFormatError(str(exc)) from None
    if log.long_lines:
        n = log.long_lines[0]
        limit = iolog.HEADER_BUFFER if n == 1 else iolog.LINE_BUFFER
        raise TraceFormatError(
            f"iolog line {n} is longer than the {limit - 1} bytes fio reads of a line at once: "
            "fio would read the rest as a line of its own; shorten it"
        )
    if log.nul_lines:
        raise TraceFormatError(
            f"iolog line {log.nul_lines[0]} holds a NUL byte, where fio stops reading the "
            "line: remove it"
        )
    for skipped in log.skipped:
        if not skipped.harmless:
            text = skipped.text.rstrip(b"\n").decode("utf-8", errors="backslashreplace")
            raise TraceFormatError(f"iolog line {skipped.line}: {skipped.reason}: {text!r}")
    if log.misread:
        raise _misread(log.misread[0])
    try:
        iolog.check_has_io(log)
    except iolog.FioRefuses as exc:
        raise TraceFormatError(str(exc)) from None
    replayed = iolog.replay(log)
    if replayed.stop is not None:
        raise TraceFormatError(f"iolog line {replayed.stop_line}: {replayed.stop}")
    ios = read = write = end = 0
    align = MAX_ALIGN
    for n, action, offset, length in [*replayed.issued, *log.trims]:
        if action in ("sync", "datasync"):
            if length:
                raise TraceFormatError(
                    f"iolog line {n}: a {action} of {length} bytes: fio fails the replay there "
                    "with an I/O error (a synchronous ioengine leaves the length undone); "
                    "write its offset and length as 0 0"
                )
            continue
        if length == 0:
            raise TraceFormatError(f"iolog line {n}: a {action} of 0 bytes: lengths start at 1")
        if offset + length > MAX_END:
            raise TraceFormatError(
                f"iolog line {n}: a {action} of {length} bytes at offset {offset} ends past "
                f"byte {MAX_END}, beyond any drive"
            )
        end = max(end, offset + length)
        ios += 1
        if action in ("read", "write"):
            if length % SECTOR:
                raise TraceFormatError(
                    f"iolog line {n}: a {action} of {length} bytes is not a whole number of "
                    f"{SECTOR}-byte sectors, which direct I/O (how drivelab replays) needs"
                )
            align = min(align, _alignment(length))
            if action == "read":
                read += length
            else:
                write += length
    return TraceSummary(f"iolog-v{log.version}", ios, read, write, end, align)


def _blktrace(data: bytes) -> TraceSummary:
    ios = read = write = end = 0
    align = MAX_ALIGN
    pos = 0
    size = BLK_HEADER.size
    while pos + size <= len(data):
        magic, _seq, _time, sector, nbytes, action, _pid, _dev, _cpu, _err, pdu_len = (
            BLK_HEADER.unpack_from(data, pos)
        )
        if magic & 0xFFFFFF00 != BLK_MAGIC:
            raise TraceFormatError(f"blktrace record at byte {pos} has a bad magic number")
        if magic & 0xFF != BLK_VERSION:
            raise TraceFormatError(
                f"blktrace record at byte {pos} is of version {magic & 0xFF}: fio replays "
                f"version {BLK_VERSION} only"
            )
        if action & 0xFFFF == BLK_TA_QUEUE and nbytes:
            ios += 1
            offset = sector * SECTOR
            # fio's replay_align moves the offset down to 4 KiB and rounds the length up.
            rounded = -(-nbytes // REPLAY_ALIGN) * REPLAY_ALIGN
            furthest = max(offset + nbytes, (offset & -REPLAY_ALIGN) + rounded)
            if furthest > MAX_END:
                raise TraceFormatError(
                    f"blktrace record at byte {pos}: {nbytes} bytes at sector {sector} end "
                    f"past byte {MAX_END}, beyond any drive"
                )
            end = max(end, furthest)
            align = min(align, _alignment(nbytes))
            if action & BLK_TC_WRITE:
                write += nbytes
            elif action & BLK_TC_READ:
                read += nbytes
        pos += size + pdu_len
    if ios == 0:
        raise TraceFormatError("the blktrace holds no queued read or write: nothing to replay")
    return TraceSummary("blktrace", ios, read, write, end, align)
