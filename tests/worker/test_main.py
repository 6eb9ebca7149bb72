"""The worker's start-up work that is not the Celery loop."""

from __future__ import annotations

import logging
from pathlib import Path
from types import SimpleNamespace
from typing import get_args

import pytest

from backend.plans import fio_check
from backend.plans.common import IoEngine
from worker.main import _probe_engines


def test_ioengines_are_probed_at_start_so_the_first_run_does_not_wait(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    calls = tmp_path / "calls"
    wrapper = tmp_path / "fio"
    # A fio that refuses io_uring, as a kernel with io_uring disabled does.
    wrapper.write_text(
        f'#!/bin/sh\necho "$@" >> {calls}\n'
        'case "$*" in *ioengine=io_uring*) echo "io_uring: not permitted" >&2; exit 1;; esac\n'
        'exec fio "$@"\n'
    )
    wrapper.chmod(0o755)
    ctx = SimpleNamespace(data_dir=tmp_path / "data", fio_binary=str(wrapper))
    with caplog.at_level(logging.WARNING, logger="drivelab.worker"):
        _probe_engines(ctx)  # type: ignore[arg-type]
    probed = calls.read_text().splitlines()
    assert len(probed) == len(get_args(IoEngine)) == 2
    assert "ioengine io_uring does not work on this bench" in caplog.text
    assert "io_uring: not permitted" in caplog.text
    assert "libaio" not in caplog.text
    # A run naming libaio is answered from memory: fio is not started again.
    workdir = tmp_path / "run"
    workdir.mkdir()
    assert fio_check.engine_problem("libaio", fio_binary=str(wrapper), workdir=workdir) is None
    assert len(calls.read_text().splitlines()) == 2
    # The scratch files are gone, only the probe's directory stays.
    assert list((tmp_path / "data" / "engine-probe").iterdir()) == []
