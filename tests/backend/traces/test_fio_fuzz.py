"""drivelab reads an iolog as fio does: random iologs (every kind of C space between fields,
signs, hex, numbers past 2^64, extra and missing fields, unknown actions, names and lines
longer than fio's buffers) replayed by real fio, which must issue exactly the I/Os drivelab's
reading says (direction, offset, length, in order), or refuse or crash where it says.

A few dozen fio runs here (`make test`); `make fuzz` runs many more (tests/fuzz)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings

from backend.traces import iolog
from tests.backend.traces.fio_replay import FIO, compare
from tests.backend.traces.fuzz_lines import traces

pytestmark = pytest.mark.skipif(FIO is None, reason="fio is not installed (make fio)")

EXAMPLES = int(os.environ.get("DRIVELAB_TRACE_FUZZ_EXAMPLES", "20"))
# fio sizes its buffers by the longest I/O of the iolog and, when it writes, fills them with
# random data: 4 GiB (a length of -1) takes it minutes. Longer I/Os are checked by the unit
# tests, one fio run each.
MAX_FUZZ_LENGTH = 64 * 2**20


def longest(trace: bytes) -> int:
    try:
        log = iolog.read(trace)
    except iolog.FioRefuses:
        return 0
    return max((e.length for e in log.entries), default=0)


def fuzz_one(trace: bytes) -> None:
    assume(longest(trace) <= MAX_FUZZ_LENGTH)
    with tempfile.TemporaryDirectory(prefix="drivelab-trace-fuzz-") as tmp:
        compare(trace, Path(tmp))


# Each example runs fio: a failure is reported as found, without shrinking it (minutes of
# fio runs).
FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@FUZZ_SETTINGS
@given(traces())
def test_drivelab_reads_an_iolog_as_fio_replays_it(trace: bytes) -> None:
    fuzz_one(trace)
