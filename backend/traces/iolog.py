"""fio's own reading of an iolog (versions 2 and 3), pure.

drivelab checks an uploaded iolog on what fio will do with it, so this follows fio 3.33 (the fio
of Debian 12, which the lab runs; iolog.c: init_iolog_read, read_iolog and read_iolog_get) for a
replay as drivelab runs it, with `replay_redirect` and `replay_no_stall`:

- fio reads the version line with fgets into 256 bytes, and accepts it when it starts with
  "fio version 2 iolog" or "fio version 3 iolog", whatever follows; a longer first line is read
  on as the next line.
- It reads every later line with fgets into 4096 bytes: a line longer than 4095 bytes is read
  as several lines. Only "\\n" ends a line; "\\r", "\\v" and "\\f" are spaces like " " and "\\t".
- It splits a line with sscanf("%256s %256s %llu %u") (version 3: a "%llu " timestamp before):
  any C space separates fields, a name longer than 256 bytes runs on into the next field, a
  number takes a "+" or "-" sign and decimal digits only ("0x10" is 0 followed by "x10"), a
  negative number wraps around 2^64, one past 2^64 - 1 saturates, and a length keeps its low 32
  bits. What follows the last field is ignored; a NUL byte ends the line for sscanf.
- A line with the four (version 3: five) fields is an I/O: read, write, sync, datasync; trim
  is skipped by fio 3.33 (later versions replay it); a wait is dropped under replay_no_stall
  (version 2) or ignored (version 3). A line with two (three) fields is a file action: add,
  open or close. fio skips any other line, logging it, and replays the rest.
- With replay_redirect every name is the target: the first add adds it, a later add repeats the
  last file action before it (fio keeps that action from the line before). An open of an open
  file is ignored.
- fio refuses an iolog with no read or write (trims do not count in 3.33). It crashes on an I/O,
  open or close before the first add, aborts on an I/O while the file is not open and on an
  open after a close of a file that was not open, and stops replaying at a read or write of 0
  bytes (what it then does with the rest depends on the trace's byte totals).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import NamedTuple

VERSION_PREFIXES = {2: b"fio version 2 iolog", 3: b"fio version 3 iolog"}
HEADER_BUFFER = 256  # fgets(buffer, 256, f): at most 255 bytes of the version line
LINE_BUFFER = 4096  # fgets(str, 4096, f): at most 4095 bytes of a line
NAME_WIDTH = 256  # %256s
_C_SPACE_BYTES = b" \t\n\v\f\r"  # isspace() in the C locale
U64 = 2**64
IO_ACTIONS = ("read", "write", "sync", "datasync")
FILE_ACTIONS = ("add", "open", "close")
_ACTIONS = {a.encode(): a for a in (*IO_ACTIONS, *FILE_ACTIONS, "trim", "wait")}
IO_KNOWN = "an I/O is read, write, trim, sync or datasync, with an offset and a length"
FILE_KNOWN = "a file action (no offset or length) is add, open or close"


class FioRefuses(ValueError):
    """What fio does not replay: it stops with an error, crashes or aborts."""

    def __init__(self, line: int | None, message: str) -> None:
        super().__init__(message if line is None else f"iolog line {line}: {message}")
        self.line = line


class Entry(NamedTuple):
    """A line fio queues: an I/O (offset and length as fio stores them) or a file action
    (offset and length 0)."""

    line: int
    action: str
    offset: int = 0
    length: int = 0


class Misread(NamedTuple):
    """A number fio stores as another value than it says: '-4096' is 2^64 - 4096."""

    line: int
    field: str  # offset | length
    text: str
    value: int


@dataclass(frozen=True)
class Skipped:
    """A line fio reads but does not queue, and why."""

    line: int
    text: bytes
    reason: str
    # A blank line, or a wait replay_no_stall drops: nothing the author meant is lost.
    harmless: bool = False


@dataclass
class Iolog:
    version: int
    entries: list[Entry] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    # The trims fio 3.33 skips (later versions replay them).
    trims: list[Entry] = field(default_factory=list)
    # Lines fio reads in more than one piece (longer than its buffer), and lines with a NUL.
    long_lines: list[int] = field(default_factory=list)
    nul_lines: list[int] = field(default_factory=list)
    # The offsets and lengths of queued lines that fio reads as other values than written.
    misread: list[Misread] = field(default_factory=list)


def _pieces(body: bytes, size: int) -> list[bytes]:
    """What successive fgets(buf, size) read of one line (its "\n" included): size - 1 bytes
    at a time."""
    return [body[k : k + size - 1] for k in range(0, len(body), size - 1)]


# glibc's sscanf as one regular expression: possessive quantifiers take what %s and %llu take
# and never give back, and each conversion is optional only after the one before it matched.
_SPACE = rb"[ \t\n\v\f\r]*+"
_NAME = rb"([^ \t\n\v\f\r]{1,%d}+)" % NAME_WIDTH
_NUMBER = rb"([+-]?+[0-9]++)"


def _conversions(*parts: bytes) -> re.Pattern[bytes]:
    pattern = b""
    for part in reversed(parts):
        pattern = b"(?:" + _SPACE + part + pattern + b")?+"
    return re.compile(pattern)


_SCANF = {
    2: _conversions(_NAME, _NAME, _NUMBER, _NUMBER),  # "%256s %256s %llu %u"
    3: _conversions(_NUMBER, _NAME, _NAME, _NUMBER, _NUMBER),  # "%llu %256s %256s %llu %u"
}


def _number(text: bytes, bits: int) -> int:
    """The value fio's %llu (64 bits) or %u (32) stores for a number glibc's sscanf took."""
    magnitude = int(text.lstrip(b"+-"))
    # strtoul: past ULONG_MAX it saturates whatever the sign; a minus negates modulo 2^64.
    if magnitude >= U64:
        value = U64 - 1
    else:
        value = (-magnitude if text.startswith(b"-") else magnitude) % U64
    return value % 2**bits


def _chunks(data: bytes) -> Iterator[tuple[int, bytes]]:
    """(line number, what one fgets reads) for the lines after the version line."""
    lines = data.split(b"\n")
    last = len(lines) - 1
    for i, content in enumerate(lines):
        if i == 0:
            body = content + b"\n" if last else content
            for piece in _pieces(body[HEADER_BUFFER - 1 :], LINE_BUFFER):
                yield 1, piece
        elif len(content) < LINE_BUFFER - 1:
            if content or i < last:
                yield i + 1, content
        else:
            for piece in _pieces(content + b"\n" if i < last else content, LINE_BUFFER):
                yield i + 1, piece


def read(data: bytes) -> Iolog:
    """What fio queues from an iolog, line by line. Raises FioRefuses when fio refuses it."""
    header = data.split(b"\n", 1)[0][: HEADER_BUFFER - 1].split(b"\0")[0]
    version = next((v for v, p in VERSION_PREFIXES.items() if header.startswith(p)), None)
    if version is None:
        raise FioRefuses(
            None,
            "not a fio iolog: the first line must start with 'fio version 2 iolog' or "
            "'fio version 3 iolog' (fio refuses anything else as an iolog version 1)",
        )
    log = Iolog(version)
    scanf = _SCANF[version].match
    first = 1 if version == 3 else 0  # the fields after the timestamp
    entries, trims, skipped = log.entries, log.trims, log.skipped
    act: bytes | None = None  # fio keeps the action of the line before when a line has none
    previous = 1  # the version line: what fio reads of it past its buffer is a long line
    for number, chunk in _chunks(data):
        if number == previous and (not log.long_lines or log.long_lines[-1] != number):
            log.long_lines.append(number)
        previous = number
        text = chunk
        if b"\0" in chunk:
            if number not in log.nul_lines:
                log.nul_lines.append(number)
            text = chunk.split(b"\0")[0]
        match = scanf(text)
        assert match is not None  # every part is optional
        groups = match.groups()
        # Each conversion matched only after the one before it: the fields are a prefix.
        r = len(groups) - groups.count(None)
        if r == 0 and not text.strip(_C_SPACE_BYTES):
            r = -1
        n = r - first
        if n >= 2:
            act = groups[first + 1]
        if first and act == b"wait":
            skipped.append(Skipped(number, chunk, "fio ignores a wait in a version 3 iolog"))
            continue
        if n == 4:
            action = _ACTIONS.get(act or b"")
            if action is None or action in FILE_ACTIONS:
                name = (act or b"").decode("latin-1")
                why = f"fio skips the action {name!r}{_long_name(groups[first:])}"
                skipped.append(Skipped(number, chunk, why + ": " + IO_KNOWN))
                continue
            if action == "wait":
                skipped.append(
                    Skipped(number, chunk, "a wait, which replay_no_stall drops", harmless=True)
                )
                continue
            off_text, len_text = groups[first + 2], groups[first + 3]
            assert off_text is not None and len_text is not None
            # Decimal digits below 10^19 (offsets) and 10^9 (lengths): stored as written.
            if off_text.isdigit() and len(off_text) < 20:
                offset = int(off_text)
            else:
                offset = _number(off_text, 64)
                if int(off_text) != offset:
                    log.misread.append(Misread(number, "offset", off_text.decode(), offset))
            if len_text.isdigit() and len(len_text) < 10:
                length = int(len_text)
            else:
                length = _number(len_text, 32)
                if int(len_text) != length:
                    log.misread.append(Misread(number, "length", len_text.decode(), length))
            (trims if action == "trim" else entries).append(Entry(number, action, offset, length))
        elif n == 2:
            action = _ACTIONS.get(act or b"")
            if action in FILE_ACTIONS:
                entries.append(Entry(number, action))
            else:
                name = (act or b"").decode("latin-1")
                why = f"fio skips the file action {name!r}{_long_name(groups[first:])}"
                skipped.append(Skipped(number, chunk, why + ": " + FILE_KNOWN))
        elif r == -1:
            skipped.append(Skipped(number, chunk, "a blank line", harmless=True))
        else:
            fields = [g for g in groups[first:] if g is not None]
            skipped.append(Skipped(number, chunk, _malformed(version, n, fields)))
    return log


def _shape(version: int) -> str:
    if version == 3:
        return "'timestamp name action offset length' or 'timestamp name add|open|close'"
    return "'name action offset length' or 'name add|open|close'"


def _long_name(fields: Sequence[bytes | None]) -> str:
    if fields and fields[0] is not None and len(fields[0]) == NAME_WIDTH:
        return (
            f" (the name is longer than the {NAME_WIDTH} bytes fio reads of it: the rest runs "
            "on into the next field)"
        )
    return ""


def _malformed(version: int, n: int, fields: list[bytes]) -> str:
    if version == 3 and n < 0:
        why = "fio reads no timestamp (a decimal number) at its start"
    elif n == 3:
        why = "fio reads no length (a decimal number) after the offset"
    else:
        why = f"fio reads {max(n, 0)} field(s) of it, and skips it"
    return f"{why}{_long_name(fields)}: a line is {_shape(version)}"


class FileState(Enum):
    CLOSED = "closed"
    OPEN = "open"
    # after a close of a file that was not open: fio aborts at the next open
    CLOSING = "closing"


@dataclass
class Replay:
    """What fio does replaying the queued lines onto one target (replay_redirect)."""

    # The reads, writes, syncs and datasyncs fio issues, in order.
    issued: list[Entry]
    # Where fio stops before the end: the line, and why.
    stop_line: int | None = None
    stop: str | None = None
    # True when fio crashes or aborts there; False when it stops replaying there (at a read or
    # write of 0 bytes), after which it may end, go on with the rest or abort.
    crash: bool = False


def check_has_io(log: Iolog) -> None:
    """fio refuses an iolog with no read or write when it reads it (fio 3.33 skips trims)."""
    if not any(e.action in ("read", "write") for e in log.entries):
        raise FioRefuses(
            None,
            "the iolog holds no read or write fio replays: nothing to replay (fio refuses it; "
            "fio 3.33 skips trims)",
        )


def replay(log: Iolog) -> Replay:
    state: FileState | None = None  # None: no file added yet
    last_file_action = "add"
    result = Replay([])

    def stop(entry: Entry, why: str, crash: bool = True) -> Replay:
        result.stop_line, result.stop, result.crash = entry.line, why, crash
        return result

    for entry in log.entries:
        action = entry.action
        if action == "add":
            if state is None:
                state = FileState.CLOSED
                last_file_action = "add"
                continue
            action = last_file_action  # fio queues the file action of the line before
        elif action in FILE_ACTIONS:
            last_file_action = action
        if state is None:
            return stop(
                entry,
                f"{action} before any 'add' line: fio has no file for it and crashes; put "
                "'NAME add' and 'NAME open' before the first I/O",
            )
        if action == "open":
            if state is FileState.CLOSING:
                return stop(
                    entry,
                    "open after a close of the file while it was not open (fio takes an 'add' "
                    "of a file added before for the file action before it): fio aborts here; "
                    "remove that close or add",
                )
            state = FileState.OPEN
        elif action == "close":
            state = FileState.CLOSED if state is FileState.OPEN else FileState.CLOSING
        elif action != "add":
            if state is not FileState.OPEN:
                return stop(
                    entry,
                    f"a {action} while the file is not open: fio aborts here; put 'NAME open' "
                    "before it",
                )
            if action in ("read", "write") and entry.length == 0:
                return stop(
                    entry,
                    f"a {action} of 0 bytes: fio cannot issue it and stops the replay here; what "
                    "it does with the rest depends on the trace's byte totals (it may reopen "
                    "and go on, or abort); lengths start at 1",
                    crash=False,
                )
            result.issued.append(entry)
    return result
