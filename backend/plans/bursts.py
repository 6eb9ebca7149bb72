"""QD1 burst performance, as AnandTech's 2018-2021 SSD suite measured it: what a desktop user
feels in short bursts of light I/O, apart from sustained speed.

    write the tested span (16 GiB, or the whole drive when it is smaller) sequentially,
    incompressible, so that every read reads written data, and idle `idle_s`; then four
    tests, each a series of bursts at queue depth 1 with idle between them:
      random read and random write: `random_bursts` (32) bursts of 4K random I/O over the span,
      each at most `random_burst_size` (64 MiB) and at most `burst_max_s` (1 s), whichever ends
      it first;
      sequential read and sequential write: `seq_bursts` (8) bursts of 128K sequential I/O,
      each at most `seq_burst_size` (128 MiB) and `burst_max_s`, one after the other through
      the span;
    each burst followed by an idle of `idle_s` (4 s).

Each burst is its own fio step (fio's totals: IOPS and MB/s over the burst's own runtime, not
diluted by the idle), and the idle between bursts is an idle step of the worker: nothing is
written or read while it lasts. fio's `startdelay` counts from fio's start, not from a stonewall,
and `thinktime` mixes the idle into one job's totals, so a step per burst is the plain way.

The idle: AnandTech gave the drives "enough idle time between bursts to yield an overall duty
cycle of 20%" (2017 test description). drivelab cannot know a burst's length before it runs, so
the idle is fixed: 4 s after a burst of at most 1 s is a duty cycle of 20% or less (less for
shorter bursts, and the time between steps adds a little idle). AnandTech's exact idle in
seconds is not published that we could find; this choice is ours.

Each test's figures (the mean over its bursts, the slowest and fastest burst and their spread)
are derived on the idle step after its last burst (backend.results.bursts), named as the test,
so runs with other burst counts compare.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import Field

from backend.plans.base import DriveContext, Plan, StepSpec, format_size, human_bytes, parse_size
from backend.plans.common import (
    INCOMPRESSIBLE,
    FioParams,
    MiB,
    SizeText,
    common_options,
    fio_step,
    idle_step,
    invalid,
    span_field,
    tested_span,
    with_notes,
)

GiB = 1024**3
DEFAULT_SPAN = 16 * GiB
BURST_ROLE = "burst"
SUMMARY_ROLE = "burst-summary"
PREFILL_ROLE = "bursts-prefill"


@dataclass(frozen=True)
class BurstTest:
    key: str  # in step names: rnd4k-q1-read
    label: str  # in words: 4K random read, QD1
    sequential: bool
    direction: str
    bs: str


TESTS = (
    BurstTest("rnd4k-q1-read", "4K random read, QD1", False, "read", "4k"),
    BurstTest("rnd4k-q1-write", "4K random write, QD1", False, "write", "4k"),
    BurstTest("seq128k-q1-read", "128K sequential read, QD1", True, "read", "128k"),
    BurstTest("seq128k-q1-write", "128K sequential write, QD1", True, "write", "128k"),
)
TEST_KEYS = tuple(t.key for t in TESTS)


class BurstsParams(FioParams):
    span: str | None = span_field(
        "Span the bursts cover, written first (fio size); empty means 16 GiB (AnandTech's "
        "span), or the whole drive when it is smaller."
    )
    random_bursts: int = Field(32, ge=1, le=256, description="Bursts of each random test.")
    random_burst_size: SizeText = Field(
        "64m", description="The most a random burst moves (fio size; 64m = 64 MiB)."
    )
    seq_bursts: int = Field(8, ge=1, le=256, description="Bursts of each sequential test.")
    seq_burst_size: SizeText = Field(
        "128m", description="The most a sequential burst moves (fio size; 128m = 128 MiB)."
    )
    burst_max_s: int = Field(
        1, ge=1, le=60, description="The longest a burst lasts, s (fio runtime): whichever of "
        "this and its size comes first ends it."
    )
    idle_s: int = Field(
        4,
        ge=1,
        le=600,
        description="Idle after each burst, s: 4 s after a burst of at most 1 s is the 20% duty "
        "cycle (or less) that AnandTech gave its drives.",
    )
    tests: list[str] = Field(
        default_factory=lambda: list(TEST_KEYS),
        min_length=1,
        description="Tests to run, in this order: " + ", ".join(TEST_KEYS) + ".",
    )
    prefill: bool = Field(
        True, description="Write the span first, so that the reads read written data."
    )


class QD1Bursts(Plan):
    key = "qd1-bursts"
    title = "QD1 burst performance (4K random and 128K sequential, read and write)"
    description = (
        "Writes a 16 GiB span, then short bursts at queue depth 1 with idle between them: 32 "
        "bursts of 4K random reads and of writes (each at most 64 MiB and 1 s), 8 bursts of "
        "128K sequential reads and of writes (each at most 128 MiB and 1 s), 4 s idle after "
        "each. Reports each burst's IOPS and MB/s over its own duration, their mean and spread "
        "(AnandTech's burst tests, 2018-2021)."
    )
    destructive = True
    Params = BurstsParams

    def _span(self, params: BurstsParams, drive: DriveContext) -> int:
        if params.span is None:
            return min(DEFAULT_SPAN, drive.capacity_bytes) // MiB * MiB
        return tested_span(params.span, drive)

    def _sizes(self, params: BurstsParams, span: int) -> dict[str, int]:
        out = {}
        for name in ("random_burst_size", "seq_burst_size"):
            text = getattr(params, name)
            n = parse_size(text)
            if n < MiB or n % MiB:
                raise invalid(name, f"{text} is not a whole number of MiB (e.g. 64m)")
            if n > span:
                raise invalid(
                    name,
                    f"{text} ({human_bytes(n)}) is larger than the span ({human_bytes(span)})",
                )
            out[name] = n
        return out

    def _tests(self, params: BurstsParams) -> list[BurstTest]:
        unknown = [t for t in params.tests if t not in TEST_KEYS]
        if unknown:
            raise invalid("tests", f"unknown {unknown}: choose from {', '.join(TEST_KEYS)}")
        if len(set(params.tests)) != len(params.tests):
            raise invalid("tests", "list each test once")
        return [t for t in TESTS if t.key in params.tests]

    def notes(self, params: BurstsParams, drive: DriveContext) -> list[str]:
        notes = [
            f"each burst is its own fio run: fio times it to the millisecond, so a burst shorter "
            f"than 0.1 s is known to 1% or worse; {params.idle_s} s idle follows every burst "
            "(the time between steps adds a little)"
        ]
        if params.span is None and drive.capacity_bytes < DEFAULT_SPAN:
            notes.append(
                f"the drive is smaller than 16 GiB: the bursts cover all of it "
                f"({human_bytes(drive.capacity_bytes)})"
            )
        if not params.prefill:
            notes.append("no prefill: reads of never-written blocks can be answered without NAND")
        return notes

    def compile(self, params: BurstsParams, drive: DriveContext) -> list[StepSpec]:
        span = self._span(params, drive)
        sizes = self._sizes(params, span)
        tests = self._tests(params)
        steps: list[StepSpec] = []
        if params.prefill:
            common = common_options(drive, params.ioengine, params.randseed)
            steps.append(
                fio_step(
                    self.key,
                    common,
                    "prefill",
                    f"write the {human_bytes(span)} span sequentially, 128K QD32, incompressible",
                    {
                        "rw": "write",
                        "bs": "128k",
                        "iodepth": 32,
                        "offset": 0,
                        "size": format_size(span),
                        **INCOMPRESSIBLE,
                    },
                    role=PREFILL_ROLE,
                    span=span,
                )
            )
            steps.append(
                idle_step("prefill-idle", f"idle {params.idle_s} s before the first burst",
                          params.idle_s)
            )
        seed = 0
        for test in tests:
            count = params.seq_bursts if test.sequential else params.random_bursts
            size = sizes["seq_burst_size" if test.sequential else "random_burst_size"]
            for n in range(1, count + 1):
                # Each burst its own random seed: bursts do not repeat each other's offsets.
                common = common_options(drive, params.ioengine, params.randseed + seed)
                seed += 1
                steps.append(self._burst(test, n, count, size, span, params, common))
                name = test.key if n == count else f"{test.key}-idle{n:02d}"
                label = (
                    f"{test.label}: idle {params.idle_s} s; the mean of {count} bursts"
                    if n == count
                    else f"idle {params.idle_s} s after burst {n}"
                )
                idle = idle_step(name, label, params.idle_s)
                idle.params.update({"test": test.key, "after_burst": n})
                if n == count:
                    idle.params.update(
                        {"role": SUMMARY_ROLE, "burst_label": test.label, "bursts": count}
                    )
                steps.append(idle)
        return with_notes(steps, self.notes(params, drive))

    def _burst(
        self,
        test: BurstTest,
        n: int,
        count: int,
        size: int,
        span: int,
        params: BurstsParams,
        common: dict[str, Any],
    ) -> StepSpec:
        job: dict[str, Any] = {
            "rw": ("" if test.sequential else "rand") + test.direction,
            "bs": test.bs,
            "iodepth": 1,
        }
        if test.sequential:
            # One burst after the other through the span, back to its start at the end.
            per_span = max(1, span // size)
            job.update({"offset": (n - 1) % per_span * size, "size": format_size(size)})
        else:
            job.update(
                {
                    "offset": 0,
                    "size": format_size(span),
                    "io_size": format_size(size),
                    "norandommap": True,
                    "randrepeat": False,
                }
            )
        job["runtime"] = params.burst_max_s
        if test.direction == "write":
            job.update(INCOMPRESSIBLE)
        return fio_step(
            self.key,
            common,
            f"{test.key}-burst{n:02d}",
            f"{test.label}: burst {n} of {count}, at most {human_bytes(size)} and "
            f"{params.burst_max_s} s",
            job,
            role=BURST_ROLE,
            span=span,
            estimate_s=float(params.burst_max_s),
            extra={"test": test.key, "burst": n, "burst_bytes": size},
        )
