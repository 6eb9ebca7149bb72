"""`make fuzz`: drivelab's reading of random iologs against real fio's replay of them, with
many more examples than `make test` runs (tests/backend/traces/test_fio_fuzz.py), and not
derandomized: each run tries new iologs (DRIVELAB_FUZZ_SEED fixes them)."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings

from tests.backend.traces.fio_replay import FIO
from tests.backend.traces.fuzz_lines import traces
from tests.backend.traces.test_fio_fuzz import fuzz_one

pytestmark = [
    pytest.mark.skipif(FIO is None, reason="fio is not installed (make fio)"),
    pytest.mark.skipif(
        "DRIVELAB_FUZZ_EXAMPLES" not in os.environ,
        reason="make fuzz runs this; make test runs tests/backend/traces/test_fio_fuzz.py",
    ),
]

EXAMPLES = int(os.environ.get("DRIVELAB_FUZZ_EXAMPLES", "300"))
SEED = os.environ.get("DRIVELAB_FUZZ_SEED")
# Each example runs fio, about a second on a busy machine; pytest's own limit is 300 s.
TIMEOUT_S = max(300, EXAMPLES * 4)


@pytest.mark.timeout(TIMEOUT_S)
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],  # each example runs fio: no shrinking
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(traces())
def test_drivelab_reads_random_iologs_as_fio_replays_them(trace: bytes) -> None:
    fuzz_one(trace)


if SEED is not None:
    test_drivelab_reads_random_iologs_as_fio_replays_them = seed(int(SEED))(
        test_drivelab_reads_random_iologs_as_fio_replays_them
    )
