"""The AS-SSD-style preset: the synthetic tests of AS SSD Benchmark (Alex Intelligent Software,
by Alexej Schepeljanski) as fio runs them on a raw drive (README, plan `as-ssd-style`).

AS SSD Benchmark's synthetic tests, as published descriptions give them (Tom's Hardware, "Three
PCI Express-Based SSDs", 2011, p. 6; ssd-tester.com, "How is the performance score
determined?"; ssd-ratgeber.de), and the fio options that make each equivalent:

- The test file: 1 GB (`span`, 1 GiB by default) at the start of the drive, written once first
  with incompressible data (`prepare`: 16 MiB sequential writes, `refill_buffers`). AS SSD
  writes its test file before it reads it; reads of LBAs never written are answered without
  reading flash and would flatter the drive.
- Seq: the time to read, then to write, the whole 1 GB file in 16 MB blocks, one I/O at a time:
  `rw=read|write bs=16m iodepth=1 size=<span>`, size-based (not time-based), so the figure is
  fio's bytes over fio's runtime for exactly the file.
- 4K: 4 KiB random reads, then writes, one at a time over the file: `rw=randread|randwrite
  bs=4k iodepth=1 norandommap randrepeat=0`, time-based for `measure_s` seconds.
- 4K-64Thrd: the same 4 KiB random I/O from 64 threads at once: fio `numjobs=64 iodepth=1`
  with `group_reporting`, so fio itself sums the 64 threads into one total (the figure).
- Acc.time: the mean time of one I/O at QD1, in ms: 512-byte random reads over the WHOLE drive
  (full stroke) and 512-byte random writes over the 1 GB file (`rw=randread|randwrite bs=512
  iodepth=1`, time-based for `access_s` seconds); the figure is fio's mean completion latency
  (clat: submission to completion) of those I/Os. Where the drive's logical sector is larger
  than 512 bytes (4Kn), direct I/O of 512 bytes is refused: the access tests use one logical
  sector and the step says so.
- All writes carry incompressible data (`refill_buffers`), as AS SSD's do.

The tests run in the order of AS SSD's window, Seq, 4K, 4K-64Thrd, Acc.time, reading then
writing in each (the published descriptions give the tests' order, not the order inside a row).
MB/s are decimal (10^6 bytes a second), from fio's totals.

How long each 4K and access test runs is not in those descriptions: `measure_s` and `access_s`
say it here, and every figure is the average over that time, as AS SSD's figures are averages
(ssd-ratgeber.de: the mean of several runs), not best passes as CrystalDiskMark's are.

The score: AS SSD's own pages do not publish its formula; Tom's Hardware (2011) and
ssd-tester.com publish the same weights, of the MB/s figures:
    read  = 0.1 x Seq read  + 4K read  + 4K-64Thrd read
    write = 0.1 x Seq write + 4K write + 4K-64Thrd write
    total = 0.1 x Seq read + 0.15 x Seq write + 2 x 4K read + 4K write
            + 1.5 x 4K-64Thrd read + 4K-64Thrd write
drivelab computes these from its own figures (backend.analysis.as_ssd) and says where they come
from; the access times are not in them. A forum's account (mobile01) weighs the total otherwise;
the read and write scores agree in every source.

What fio cannot make equivalent: AS SSD measures through a file on NTFS with the Windows cache
bypassed (FILE_FLAG_NO_BUFFERING), drivelab on the raw device with O_DIRECT; its 4K-64Thrd
threads each use a file of their own (64 x 16 MB) where fio's 64 jobs share the test area; its
random offsets are its own generator's. The figures compare drives with each other, not to the
digit with an AS SSD screenshot from another machine.
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

KEY = "as-ssd-style"
TEST_ROLE = "asssd-test"
SCORE_ROLE = "asssd-score"
SCORE_STEP = "asssd-score"
THREADS = 64
ACCESS_BS = 512


@dataclass(frozen=True)
class Test:
    key: str  # in step and metric names: asssd-4k-64thrd-read
    label: str  # as AS SSD's window names it: 4K-64Thrd


TESTS = (
    Test("asssd-seq", "Seq"),
    Test("asssd-4k", "4K"),
    Test("asssd-4k-64thrd", "4K-64Thrd"),
    Test("asssd-acc", "Acc.time"),
)
DIRECTIONS = ("read", "write")


class AsSsdParams(FioParams):
    span: str = Field(
        "1g",
        description="Test file: the area at the start of the drive that Seq, 4K, 4K-64Thrd and "
        "the write access time run over (fio size; AS SSD's 1 GB).",
        pattern=SIZE_PATTERN,
    )
    measure_s: int = Field(
        10, ge=1, le=300, description="Seconds each 4K and 4K-64Thrd test measures."
    )
    access_s: int = Field(5, ge=1, le=300, description="Seconds each access-time test measures.")
    prepare: bool = Field(
        True,
        description="Write the test file's area once first (incompressible data), as AS SSD "
        "writes its test file.",
    )


class AsSsdPreset(Plan):
    key = KEY
    title = "AS-SSD-style preset (Seq, 4K, 4K-64Thrd, access time, score)"
    description = (
        "AS SSD Benchmark's synthetic tests over a 1 GiB test area written first: Seq (16 MiB "
        "QD1 over the whole area), 4K (QD1), 4K-64Thrd (64 threads of QD1), read then write, "
        "and the access time of 512-byte reads over the whole drive and writes over the area "
        "(ms); incompressible data; MB/s (decimal) laid out as its Read/Write window, with the "
        "read, write and total scores as published."
    )
    destructive = True
    Params = AsSsdParams

    def compile(self, params: AsSsdParams, drive: DriveContext) -> list[StepSpec]:
        span = tested_span(params.span, drive)
        common = common_options(drive, params.ioengine, params.randseed)
        steps: list[StepSpec] = []
        if params.prepare:
            steps.append(
                fio_step(
                    self.key,
                    common,
                    "prepare",
                    f"prepare: write the {human_bytes(span)} test file's area, 16M QD1",
                    {
                        "rw": "write",
                        "bs": "16m",
                        "iodepth": 1,
                        "offset": 0,
                        "size": format_size(span),
                        **INCOMPRESSIBLE,
                    },
                    role="asssd-prepare",
                    span=span,
                    estimate_s=max(1.0, span / 400e6),
                )
            )
        access_bs = max(ACCESS_BS, drive.logical_sector)
        for test in TESTS:
            for direction in DIRECTIONS:
                steps.append(self._test(test, direction, params, common, span, drive, access_bs))
        # The score, derived when this short pause ends from the figures of the run.
        score = idle_step(SCORE_STEP, "AS-SSD score (read, write, total)", 1)
        score.params["role"] = SCORE_ROLE
        steps.append(score)
        return steps

    def _test(
        self,
        test: Test,
        direction: str,
        params: AsSsdParams,
        common: dict[str, Any],
        span: int,
        drive: DriveContext,
        access_bs: int,
    ) -> StepSpec:
        name = f"{test.key}-{direction}"
        job: dict[str, Any] = {"offset": 0, "size": format_size(span), "iodepth": 1}
        label = f"{test.label} {direction}"
        estimate: float | None = None
        area = span
        extra: dict[str, Any] = {"test": test.key, "asssd_label": test.label}
        if test.key == "asssd-seq":
            job.update({"rw": direction, "bs": "16m"})
            label += f": {human_bytes(span)} in 16M blocks, QD1"
            estimate = max(1.0, span / 400e6)
        else:
            job.update(
                {
                    "rw": f"rand{direction}",
                    "norandommap": True,
                    "randrepeat": False,
                    "time_based": True,
                }
            )
            if test.key == "asssd-acc":
                if direction == "read":
                    # Full stroke: the whole drive, to its last whole block.
                    area = drive.capacity_bytes // access_bs * access_bs
                    job["size"] = area
                job.update({"bs": access_bs, "runtime": params.access_s})
                where = "the whole drive" if direction == "read" else "the test file"
                label += f": {access_bs} B random over {where}, QD1"
                if access_bs != ACCESS_BS:
                    extra["notes"] = [
                        f"{access_bs}-byte I/O: the drive's logical sector is larger than "
                        f"AS SSD's {ACCESS_BS} bytes, which direct I/O cannot address"
                    ]
            else:
                job.update({"bs": "4k", "runtime": params.measure_s})
                if test.key == "asssd-4k-64thrd":
                    job.update({"numjobs": THREADS, "group_reporting": True})
                    label += f": 4K random, {THREADS} threads of QD1"
                else:
                    label += ": 4K random QD1"
        if direction == "write":
            job.update(INCOMPRESSIBLE)
        return fio_step(
            self.key,
            common,
            name,
            label,
            job,
            role=TEST_ROLE,
            span=area,
            estimate_s=estimate,
            extra=extra,
        )
