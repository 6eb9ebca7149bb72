"""Recognise and summarise I/O traces (pure): fio iolog v2/v3 text and blktrace binary."""

from __future__ import annotations

import struct
from dataclasses import dataclass

BLK_MAGIC = 0x65617400
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
    head = data[:64].decode("ascii", errors="replace")
    if head.startswith("fio version 2 iolog"):
        return _iolog(data, version=2)
    if head.startswith("fio version 3 iolog"):
        return _iolog(data, version=3)
    raise TraceFormatError(
        "not a trace drivelab can replay: upload a fio iolog (first line 'fio version 2 iolog' "
        "or 'fio version 3 iolog', e.g. from fio's write_iolog=) or a blktrace binary "
        "(blktrace -o - DEV > trace.bin, or a device's merged .blktrace.N file)"
    )


def _iolog(data: bytes, version: int) -> TraceSummary:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TraceFormatError(f"the iolog is not text: byte {exc.start} is not UTF-8") from None
    ios = read = write = end = 0
    align = MAX_ALIGN
    for n, line in enumerate(text.splitlines()[1:], start=2):
        parts = line.split()
        if not parts:
            continue
        if version == 3:
            parts = parts[1:]  # leading timestamp
        if len(parts) == 2:
            continue  # add / open / close of a file
        if len(parts) != 4:
            raise TraceFormatError(f"iolog line {n} is not 'file action offset length': {line!r}")
        action = parts[1]
        try:
            offset = int(parts[2])
            length = int(parts[3])
        except ValueError:
            raise TraceFormatError(f"iolog line {n} has a non-numeric offset or length") from None
        if action not in ("read", "write", "trim", "sync", "datasync", "wait"):
            raise TraceFormatError(f"iolog line {n}: unknown action {action!r}")
        if action in ("read", "write", "trim"):
            if offset < 0 or length <= 0:
                raise TraceFormatError(
                    f"iolog line {n}: {action} at offset {offset} of {length} bytes: offsets "
                    "start at 0 and lengths at 1"
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
    if ios == 0:
        raise TraceFormatError("the iolog holds no read or write: nothing to replay")
    return TraceSummary(f"iolog-v{version}", ios, read, write, end, align)


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
        if action & 0xFFFF == BLK_TA_QUEUE and nbytes:
            ios += 1
            end = max(end, sector * SECTOR + nbytes)
            align = min(align, _alignment(nbytes))
            if action & BLK_TC_WRITE:
                write += nbytes
            elif action & BLK_TC_READ:
                read += nbytes
        pos += size + pdu_len
    if ios == 0:
        raise TraceFormatError("the blktrace holds no queued read or write: nothing to replay")
    return TraceSummary("blktrace", ios, read, write, end, align)
