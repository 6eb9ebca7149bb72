"""Target paths as fio reads them, and fio's own verdict on job files (real fio)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from backend.plans import fio_check
from backend.plans.base import (
    fio_filename,
    job_file_target,
    retarget_job_file,
    target_path_problem,
    with_randseed_offset,
)

JOB = "; drivelab: t\n[global]\nfilename=/dev/disk/by-id/x\nsize=1m\n\n[write]\nrw=write\n"


@pytest.mark.parametrize(
    "path",
    [
        "/dev/disk/by-id/nvme-Samsung_SSD_990_PRO_2TB_S6XXNX0R123456",
        "/dev/disk/by-path/pci-0000:00:05.0-nvme-1",
        "/var/lib/drivelab/targets/sim drive.img",
        "/var/lib/drivelab/targets/lecteur-données.img",
        "/dev/sdb",
    ],
)
def test_stable_names_are_accepted(path: str) -> None:
    assert target_path_problem(path) is None


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("", "it is empty"),
        ("/", "it is the root directory"),
        ("dev/sdb", "it is relative"),
        ("/dev/sdb/", "it ends with /"),
        ("/dev/./sdb", ". or .. components"),
        ("/a#b", "contains '#'"),
        ("/a\\:b", "contains '\\\\'"),
        ("/a\tb", "control character 0x09"),
        ("/dev/sdb ", "starts or ends with a blank"),
        ("/t/a\u2028exec_prerun=touch x/b.img", "U+2028 (line separator)"),
        ("/t/a\u2029b", "U+2029 (paragraph separator)"),
        ("/t/a\x85b", "U+0085"),
        ("/t/a\u200bb", "U+200B (zero width space)"),
        ("/t/a\xa0b", "U+00A0 (no-break space)"),
    ],
)
def test_names_fio_reads_differently_are_refused(path: str, problem: str) -> None:
    found = target_path_problem(path)
    assert found is not None and problem in found, found


def test_colons_are_escaped_for_filename_and_read_back() -> None:
    path = "/dev/disk/by-path/pci-0000:00:05.0"
    assert fio_filename(path) == "/dev/disk/by-path/pci-0000\\:00\\:05.0"
    job = retarget_job_file(JOB, path)
    assert "filename=/dev/disk/by-path/pci-0000\\:00\\:05.0\n" in job
    assert job_file_target(job) == path
    assert retarget_job_file(job, path) == job  # the worker's and the api's views agree
    assert job.replace(fio_filename(path), "/dev/disk/by-id/x") == JOB


def test_fio_writes_one_file_for_an_escaped_colon_name(tmp_path: Path) -> None:
    target = tmp_path / "c:" / "drive.img"
    target.parent.mkdir()
    job = retarget_job_file(JOB, str(target))
    (tmp_path / "j.fio").write_text(job)
    subprocess.run(
        ["fio", "--output-format=terse", "j.fio"], cwd=tmp_path, check=True, capture_output=True
    )
    assert target.stat().st_size == 1 << 20
    assert not (tmp_path / "c").exists()


def test_fio_check_names_the_step_fio_rejects(tmp_path: Path) -> None:
    good = retarget_job_file(JOB, str(tmp_path / "t.img"))
    bad = good.replace("rw=write", "rw=randrw\nbssplit=4k/50:99999999999999999999k/50")
    assert fio_check.rejected([("fill", good), ("mixed", good)]) is None
    found = fio_check.rejected([("fill", good), ("mixed", bad), ("read", good)])
    assert found is not None and found.step == "mixed"
    assert "failed parsing bssplit" in found.message
    assert not (tmp_path / "t.img").exists()  # parsing runs no I/O


def test_fio_check_remembers_what_a_fio_binary_accepted(tmp_path: Path) -> None:
    """A second look at the same job files with the same fio runs no fio; another binary (or a
    changed one) is asked again."""
    job = retarget_job_file(JOB, str(tmp_path / "remembered.img"))
    calls = tmp_path / "calls"
    wrapper = tmp_path / "fio"
    wrapper.write_text(f'#!/bin/sh\necho x >> {calls}\nexec fio "$@"\n')
    wrapper.chmod(0o755)
    assert fio_check.rejected([("a", job)], fio_binary=str(wrapper)) is None
    assert fio_check.rejected([("a", job)], fio_binary=str(wrapper)) is None
    assert calls.read_text().count("x") == 1
    wrapper.write_text(wrapper.read_text() + "# changed\n")
    assert fio_check.rejected([("a", job)], fio_binary=str(wrapper)) is None
    assert calls.read_text().count("x") == 2


def test_a_line_separator_in_a_value_cannot_add_an_option(tmp_path: Path) -> None:
    """Python's splitlines cuts at U+2028, fio does not: a target name holding one had the
    worker's copy of the job file (retarget_job_file) carry what followed it as an option of
    its own, here exec_prerun, a command fio runs. Job files are now cut where fio cuts them
    (and such names are refused, above)."""
    target = tmp_path / "d\u2028exec_prerun=touch ran" / "drive.img"
    target.parent.mkdir()
    with open(target, "wb") as f:
        f.truncate(1 << 20)
    job = "[global]\nfilename=" + str(target) + "\nsize=64k\n\n[write]\nrw=write\n"
    retargeted = retarget_job_file(job, str(target))
    assert retargeted == job
    assert [ln for ln in retargeted.split("\n") if ln.startswith("exec_prerun")] == []
    assert job_file_target(retargeted) == str(target)
    assert with_randseed_offset(job + "randseed=1\n", 1).split("\n")[1] == f"filename={target}"
    (tmp_path / "j.fio").write_text(retargeted)
    done = subprocess.run(
        ["fio", "--output-format=terse", "j.fio"], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "ran").exists()  # fio ran no command
    assert os.stat(target).st_blocks > 0  # and wrote the file it was given


def test_an_ioengine_fio_parses_but_cannot_run_is_found_before_any_write(tmp_path: Path) -> None:
    """fio's parse takes any engine it was built with; whether it runs is known only when it
    runs (io_uring under Docker's default seccomp, an old kernel, kernel.io_uring_disabled).
    The probe writes a scratch file in the working directory, never the target."""
    job = "[global]\nfilename=/dev/disk/by-id/x\nioengine=libaio\n[j]\nioengine=nbd\nrw=read\n"
    assert fio_check.ioengines(job) == {"libaio", "nbd"}
    assert fio_check.rejected([("j", job)]) is None  # fio's parse takes it
    assert fio_check.engine_problem("libaio", workdir=tmp_path) is None
    problem = fio_check.engine_problem("nbd", workdir=tmp_path)
    assert problem is not None and "nbd: uri parameter was not specified" in problem
    assert list(tmp_path.iterdir()) == []  # the scratch directory is gone


def test_a_working_ioengine_is_probed_once(tmp_path: Path) -> None:
    calls = tmp_path / "calls"
    wrapper = tmp_path / "fio"
    wrapper.write_text(f'#!/bin/sh\necho x >> {calls}\nexec fio "$@"\n')
    wrapper.chmod(0o755)
    for _ in range(3):
        assert fio_check.engine_problem("sync", fio_binary=str(wrapper), workdir=tmp_path) is None
    assert calls.read_text().count("x") == 1
    for _ in range(2):
        assert fio_check.engine_problem("nbd", fio_binary=str(wrapper), workdir=tmp_path)
    assert calls.read_text().count("x") == 3  # a failure is asked again: it may be fixed
