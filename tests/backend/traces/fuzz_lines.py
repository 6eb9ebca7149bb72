"""Random iologs for fuzzing drivelab's reading of them against fio's (hypothesis)."""

from __future__ import annotations

from hypothesis import strategies as st

SPACES = [b" ", b"\t", b"\r", b"\v", b"\f", b"  ", b" \t", b"\r\v\f"]
# Bytes that are not C spaces but may look like one, or end a string for sscanf.
NOT_SPACES = [b"\x1c", b"\x85", b"\xa0", b"\x00"]
NAMES = [b"x", b"/dev/sdb", b"/tmp/t.img", b"n" * 255, b"n" * 256, b"n" * 257, b"y"]
ACTIONS = [
    b"add",
    b"open",
    b"close",
    b"read",
    b"write",
    b"trim",
    b"sync",
    b"datasync",
    b"wait",
    b"scribble",
    b"READ",
    b"writ",
    b"writes",
]


@st.composite
def numbers(draw: st.DrawFn, forms: tuple[str, ...] = ()) -> bytes:
    value = draw(
        st.one_of(
            st.sampled_from([0, 512, 4096, 8192, 65536, 2**31, 2**32, 2**32 + 4096, 2**63]),
            st.integers(min_value=0, max_value=2**22).map(lambda v: v * 512),
            st.integers(min_value=0, max_value=2**70),
        )
    )
    text = str(value).encode()
    form = draw(
        st.sampled_from(forms or ("plain", "plain", "plus", "minus", "hex", "junk", "dot", "none"))
    )
    if form == "plus":
        return b"+" + text
    if form == "minus":
        return b"-" + text
    if form == "hex":
        return b"0x" + format(value, "x").encode()
    if form == "junk":
        return text + draw(st.sampled_from([b"abc", b"k", b"x1", b"-", b"+5"]))
    if form == "dot":
        return text + b".5"
    if form == "none":
        return draw(st.sampled_from([b"", b"+", b"-", b"--5", b"four", b"+-1"]))
    return text


@st.composite
def well_formed(draw: st.DrawFn, version: int) -> bytes:
    """An I/O line fio replays, with any spaces between its fields and numbers fio reads as
    other values (signs, past 2^64, lengths past 2^32)."""
    spaces = st.lists(st.sampled_from(SPACES), min_size=1, max_size=3).map(b"".join)
    fields = []
    if version == 3:
        fields.append(str(draw(st.integers(0, 10**7))).encode())
    fields.append(draw(st.sampled_from(NAMES[:3])))
    fields.append(draw(st.sampled_from([b"read", b"write", b"write", b"read", b"sync"])))
    fields.append(draw(numbers(("plain", "plain", "plus", "minus"))))
    fields.append(draw(numbers(("plain", "plain", "plain", "plus", "minus", "junk", "dot"))))
    line = draw(st.sampled_from([b"", b" ", b"\t", b"\v"]))
    for i, f in enumerate(fields):
        line += f if i == 0 else draw(spaces) + f
    if draw(st.integers(0, 4)) == 0:
        line += draw(spaces) + draw(st.sampled_from([b"extra", b"7", b"write 0 4096"]))
    return line + draw(st.sampled_from([b"\n", b"\r\n", b"\f\n"]))


@st.composite
def mangled(draw: st.DrawFn, version: int) -> bytes:
    """Any line: unknown actions, missing or extra fields, hex, bytes that are not C spaces,
    NUL, names longer than fio reads, lines longer than fio's buffer."""

    def sep() -> bytes:
        return draw(st.sampled_from(SPACES + [b""] * 1 + NOT_SPACES[:1]))

    fields = []
    if version == 3:
        fields.append(draw(numbers()))
    fields.append(draw(st.sampled_from(NAMES)))
    fields.append(draw(st.sampled_from(ACTIONS)))
    for _ in range(draw(st.sampled_from([0, 2, 2, 2, 1, 3]))):
        fields.append(draw(numbers()))
    line = draw(st.sampled_from([b"", b" ", b"\t", b"\r"]))
    for i, f in enumerate(fields):
        line += f if i == 0 else sep() + f
    if draw(st.integers(0, 9)) == 0:
        line += draw(st.sampled_from(NOT_SPACES))
    if draw(st.integers(0, 9)) == 0:  # a line fio reads in two pieces
        line = b" " * draw(st.integers(4060, 4100)) + line
    return line + draw(st.sampled_from([b"\n", b"\n", b"\n", b"\r\n", b"\n\n"]))


@st.composite
def file_action(draw: st.DrawFn, version: int) -> bytes:
    """add, open or close of a name: fio replays them all on one file (replay_redirect)."""
    ts = str(draw(st.integers(0, 10**7))).encode() + b" " if version == 3 else b""
    name = draw(st.sampled_from(NAMES[:3] + NAMES[-1:]))
    action = draw(st.sampled_from([b"add", b"open", b"close", b"close"]))
    return ts + name + draw(st.sampled_from(SPACES)) + action + b"\n"


def lines(version: int) -> st.SearchStrategy[bytes]:
    return st.one_of(
        well_formed(version), well_formed(version), file_action(version), mangled(version)
    )


@st.composite
def traces(draw: st.DrawFn) -> bytes:
    version = draw(st.sampled_from([2, 3]))
    header = b"fio version %d iolog" % version
    variants = [header + b"\r", header + b" junk", b" " + header, b"fio version 1 iolog"]
    header = draw(st.sampled_from([header] * 12 + variants))
    if draw(st.integers(0, 29)) == 0:  # a version line fio reads in two pieces
        header += b" " * draw(st.integers(230, 260))
    ts = [b"", b""] if version == 2 else [b"1 ", b"2 "]
    opened = ts[0] + b"x add\n" + ts[1] + b"x open\n"
    prologue = draw(st.sampled_from([opened] * 5 + [ts[0] + b"x add\n", b""]))
    body = b"".join(draw(st.lists(lines(version), min_size=1, max_size=12)))
    return header + b"\n" + prologue + body
