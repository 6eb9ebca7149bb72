"""The CrystalDiskMark-style preset: the four workloads readers quote, read and write, as fio
runs them (METHODS.md, "The figures readers quote"; README, plan `cdm-style`).

CrystalDiskMark's default profile, as drivelab runs it on a raw drive:
- a test area of `span` (CrystalDiskMark's test size, 1 GiB by default) at the start of the
  drive, written once first with incompressible data (CrystalDiskMark creates its test file
  with random data before measuring; reads of LBAs never written are answered without reading
  flash and would flatter the drive);
- SEQ1M Q8T1 (1 MiB sequential, queue depth 8, one thread), SEQ1M Q1T1, RND4K Q32T16 (4 KiB
  random, queue depth 32 in each of 16 threads: fio's numjobs=16) and RND4K Q1T1; all reads
  first, then all writes, in that order, as its "All" fills the Read column and then the
  Write column;
- each test measured `passes` times (5) for `measure_s` seconds (5), a pause of `interval_s`
  (5) after each test; the figure is the best pass (the highest MB/s, with that pass's IOPS
  and mean latency), as CrystalDiskMark reports the best of its passes. MB/s are decimal
  (10^6 bytes a second), as CrystalDiskMark's.

What fio cannot make equivalent: CrystalDiskMark measures through a file on a Windows
filesystem with the cache disabled (FILE_FLAG_NO_BUFFERING), drivelab on the raw device with
O_DIRECT; its threads share one test file as fio's 16 jobs share the span, but its random
offsets are its own generator's. The workloads are the same sizes, depths, threads, data and
timing; the numbers compare with each other across drives, not to the digit with a
CrystalDiskMark screenshot from another machine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import Field

from backend.plans.base import DriveContext, Plan, StepSpec, format_size, human_bytes
from backend.plans.common import (
    INCOMPRESSIBLE,
    SIZE_PATTERN,
    FioParams,
    common_options,
    fio_step,
    idle_step,
    tested_span,
)

PASS_ROLE = "cdm-pass"
SUMMARY_ROLE = "cdm-summary"


@dataclass(frozen=True)
class Test:
    key: str  # in step and metric names: seq1m-q8t1
    label: str  # as readers know it: SEQ1M Q8T1
    sequential: bool
    bs: str
    iodepth: int
    threads: int


TESTS = (
    Test("seq1m-q8t1", "SEQ1M Q8T1", True, "1m", 8, 1),
    Test("seq1m-q1t1", "SEQ1M Q1T1", True, "1m", 1, 1),
    Test("rnd4k-q32t16", "RND4K Q32T16", False, "4k", 32, 16),
    Test("rnd4k-q1t1", "RND4K Q1T1", False, "4k", 1, 1),
)
DIRECTIONS = ("read", "write")


class DesktopPresetParams(FioParams):
    span: str = Field(
        "1g",
        description="Test size: the area at the start of the drive that every test runs over "
        "(fio size; CrystalDiskMark's default 1 GiB).",
        pattern=SIZE_PATTERN,
    )
    passes: int = Field(5, ge=1, le=9, description="Passes of each test (its best is reported).")
    measure_s: int = Field(5, ge=1, le=60, description="Seconds each pass measures.")
    interval_s: int = Field(
        5,
        ge=1,
        le=600,
        description="Pause after each test, in seconds (its figures are derived then).",
    )
    prepare: bool = Field(
        True, description="Write the test area once first (incompressible data), as a test file."
    )


class DesktopPreset(Plan):
    key = "cdm-style"
    title = "CrystalDiskMark-style preset (SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T16, RND4K Q1T1)"
    description = (
        "The four workloads readers quote, read then write, each the best of 5 passes of 5 s "
        "over a 1 GiB test area written first, a 5 s pause after each test; MB/s (decimal), "
        "IOPS and mean latency laid out as the familiar Read/Write table."
    )
    destructive = True
    Params = DesktopPresetParams

    def compile(self, params: DesktopPresetParams, drive: DriveContext) -> list[StepSpec]:
        span = tested_span(params.span, drive)
        common = common_options(drive, params.ioengine, params.randseed)
        steps: list[StepSpec] = []
        if params.prepare:
            steps.append(
                fio_step(
                    self.key,
                    common,
                    "prepare",
                    f"prepare: write the {human_bytes(span)} test area, 1M QD8",
                    {
                        "rw": "write",
                        "bs": "1m",
                        "iodepth": 8,
                        "offset": 0,
                        "size": format_size(span),
                        **INCOMPRESSIBLE,
                    },
                    role="cdm-prepare",
                    span=span,
                    estimate_s=max(1.0, span / 400e6),
                )
            )
        for direction in DIRECTIONS:
            for test in TESTS:
                steps += self._test(test, direction, params, common, span)
        return steps

    def _test(
        self,
        test: Test,
        direction: str,
        params: DesktopPresetParams,
        common: dict[str, Any],
        span: int,
    ) -> list[StepSpec]:
        name = f"{test.key}-{direction}"
        rw = ("" if test.sequential else "rand") + direction
        job: dict[str, Any] = {
            "rw": rw,
            "bs": test.bs,
            "iodepth": test.iodepth,
            "numjobs": test.threads,
            "offset": 0,
            "size": format_size(span),
            "time_based": True,
            "runtime": params.measure_s,
        }
        if not test.sequential:
            job.update({"norandommap": True, "randrepeat": False})
        if direction == "write":
            job.update(INCOMPRESSIBLE)
        steps = [
            fio_step(
                self.key,
                common,
                f"{name}-pass{n}",
                f"{test.label} {direction}, pass {n} of {params.passes}",
                job,
                role=PASS_ROLE,
                span=span,
                extra={"test": name, "pass": n},
            )
            for n in range(1, params.passes + 1)
        ]
        # The pause after the test carries its figures (derived when it ends), under the
        # test's own name, so that runs with other pass counts compare.
        summary = idle_step(
            name, f"{test.label} {direction}: best of {params.passes} passes", params.interval_s
        )
        summary.params.update({"role": SUMMARY_ROLE, "test": name, "cdm_label": test.label})
        steps.append(summary)
        return steps
