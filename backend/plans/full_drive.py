"""Full-drive behaviour: the four corners on a nearly empty drive and again on an 80% full one
(AnandTech's "empty vs full" results since its 2018 suite; Tom's Hardware's full-drive tests).

    purge; pre-write the empty span (the first `empty_percent` % of the drive, or `empty_span`)
    sequentially so the reads read data; the four corners confined to that span (state
    "empty"); a sequential fill of the first `fill_percent` % (80) with incompressible data,
    128K QD32; the same four corners spread over the filled span (state "full80").

The four corners here: 4K random read and write at `random_qd` (QD3, the desktop depth of the
four-corners plan), 128K sequential read and write QD1, incompressible data (the fill's).

Design: ONE plan that runs both states in ONE run, the state carried in the step names
(`empty-randwrite-4k-qd3`, `full80-randwrite-4k-qd3`), so in the metric ids
(`full-drive:full80-randwrite-4k-qd3:write_mbps`). A comparison pools run-to-run only results
of the same metric id (backend.results.compare), so:

- the empty and the full figures are different metrics and can never be pooled together,
  whatever the parameters; a different filled share is another metric again (`full70-...`);
- the plan key keeps them apart from the plain four-corners plan's figures
  (`four-corners:randwrite-4k-qd3:...`) as well;
- their conditions differ too (span; drive state before "purged, pre-written" against
  "purged, pre-written, filled"), so even a metric id shared by accident would not pool.

A `state` parameter (one run per state) would carry the state in the run's parameters, and
every reader of metric ids (pooling, Compare's rows, the report) would have to add it back; one
run per pair also measures both states on the same drive within minutes, and the drop from
empty to full is a finding of the run (on the full state's steps: backend.results.fullstate).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from backend.plans.base import DriveContext, Plan, StepSpec, format_size, human_bytes
from backend.plans.common import (
    INCOMPRESSIBLE,
    FioParams,
    MiB,
    common_options,
    fill_job,
    fio_step,
    invalid,
    purge_step,
    span_field,
    tested_span,
    with_notes,
)

EMPTY = "empty"
EMPTY_ROLE = "full-drive-empty"
FULL_ROLE = "full-drive-full"
PREWRITE_ROLE = "prewrite"


def full_state(fill_percent: int) -> str:
    """The full state's name in step names: `full80`."""
    return f"full{fill_percent}"


class FullDriveParams(FioParams):
    empty_percent: int = Field(
        10,
        ge=1,
        le=50,
        description="The empty state's tests stay in the first this many % of the drive.",
    )
    empty_span: str | None = span_field(
        "A fixed span for the empty state's tests instead (fio size, e.g. 8g); empty: "
        "empty_percent of the drive."
    )
    fill_percent: int = Field(
        80,
        ge=20,
        le=100,
        description="The full state: this many % of the drive filled sequentially with "
        "incompressible data (128K QD32), its tests spread over it.",
    )
    random_qd: int = Field(3, ge=1, le=256, description="Queue depth of the 4K random tests.")
    runtime_s: int = Field(180, ge=1, le=3600, description="Seconds per 4K random test.")
    seq_runtime_s: int = Field(60, ge=1, le=3600, description="Seconds per 128K sequential test.")


def corners(random_qd: int) -> list[tuple[str, str, dict[str, Any], str]]:
    """The four tests of each state: (name, label, job options, which runtime)."""
    rand = {"bs": "4k", "iodepth": random_qd, "norandommap": True}
    seq = {"bs": "128k", "iodepth": 1}
    return [
        (f"randread-4k-qd{random_qd}", f"4K random read QD{random_qd}",
         {"rw": "randread", **rand}, "random"),
        (f"randwrite-4k-qd{random_qd}", f"4K random write QD{random_qd}",
         {"rw": "randwrite", **rand, **INCOMPRESSIBLE}, "random"),
        ("seqread-128k-qd1", "128K sequential read QD1", {"rw": "read", **seq}, "seq"),
        ("seqwrite-128k-qd1", "128K sequential write QD1",
         {"rw": "write", **seq, **INCOMPRESSIBLE}, "seq"),
    ]  # fmt: skip


class FullDrive(Plan):
    key = "full-drive"
    title = "Full-drive behaviour: the four corners empty and 80% full"
    description = (
        "Purges, runs 4K random read/write and 128K sequential read/write in the first 10% of "
        "the drive (empty), fills 80% of it sequentially, and runs them again over the filled "
        "80% (full). Reports each test's MB/s in both states and the drop from empty to full "
        "(AnandTech's empty vs full results, Tom's Hardware's full-drive tests)."
    )
    destructive = True
    Params = FullDriveParams

    def spans(self, params: FullDriveParams, drive: DriveContext) -> tuple[int, int]:
        """(the empty state's span, the full state's span), whole MiB."""
        whole = tested_span(None, drive)
        fill = whole * params.fill_percent // 100 // MiB * MiB
        if params.empty_span is not None:
            empty = tested_span(params.empty_span, drive, "empty_span")
        else:
            empty = whole * params.empty_percent // 100 // MiB * MiB
        if empty < MiB:
            raise invalid("empty_percent", "the empty span is below 1 MiB: the drive is too small")
        if empty >= fill:
            field = "empty_span" if params.empty_span is not None else "empty_percent"
            raise invalid(
                field,
                f"the empty state's span ({human_bytes(empty)}) must be smaller than the "
                f"filled {params.fill_percent}% ({human_bytes(fill)}): the empty state is the "
                "smaller part of the drive",
            )
        return empty, fill

    def compile(self, params: FullDriveParams, drive: DriveContext) -> list[StepSpec]:
        empty, fill = self.spans(params, drive)
        common = common_options(drive, params.ioengine, params.randseed)
        full = full_state(params.fill_percent)
        runtimes = {"random": params.runtime_s, "seq": params.seq_runtime_s}
        steps = [purge_step("purge the drive: the empty state starts from nothing")]
        steps.append(
            fio_step(
                self.key,
                common,
                f"{EMPTY}-prewrite",
                f"pre-write the empty state's {human_bytes(empty)} sequentially, 128K QD32",
                fill_job(empty),
                role=PREWRITE_ROLE,
                span=empty,
            )
        )

        def state(prefix: str, span: int, role: str, words: str) -> None:
            for name, label, job, kind in corners(params.random_qd):
                extra: dict[str, Any] = {"state": prefix, "test": name}
                if role == FULL_ROLE:
                    extra["pair"] = f"{EMPTY}-{name}"
                    extra["fill_percent"] = params.fill_percent
                steps.append(
                    fio_step(
                        self.key,
                        common,
                        f"{prefix}-{name}",
                        f"{label}, {words}",
                        {
                            **job,
                            "offset": 0,
                            "size": format_size(span),
                            "time_based": True,
                            "runtime": runtimes[kind],
                        },
                        role=role,
                        span=span,
                        extra=extra,
                    )
                )

        state(EMPTY, empty, EMPTY_ROLE, f"empty (first {human_bytes(empty)})")
        steps.append(
            fio_step(
                self.key,
                common,
                "fill",
                f"fill {params.fill_percent}% ({human_bytes(fill)}) sequentially, 128K QD32",
                fill_job(fill),
                role="fill",
                span=fill,
            )
        )
        state(full, fill, FULL_ROLE, f"{params.fill_percent}% full")
        return with_notes(steps, self.notes(params, drive))

    def notes(self, params: FullDriveParams, drive: DriveContext) -> list[str]:
        empty, fill = self.spans(params, drive)
        return [
            f"empty: tests in the first {human_bytes(empty)} after a purge; {params.fill_percent}"
            f"% full: tests over the filled {human_bytes(fill)}",
            "the full state follows the fill at once: a drive that recovers its cache or cleans "
            "up when idle may do better after a pause",
        ]
