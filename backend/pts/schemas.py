from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class RoundIn(BaseModel):
    """A round of a PTS rounds step, as the worker posts it when the round ends."""

    round: int = Field(ge=1, le=100000, description="1-based round number.")
    output: str = Field(max_length=256 * 1024 * 1024, description="fio's final JSON, verbatim.")
    t_start_ms: int = Field(ge=0, description="When the round's fio run started, step clock.")
    t_end_ms: int = Field(ge=0, description="When it ended, step clock.")


class RoundOut(BaseModel):
    round: int
    t_start_ms: int = Field(description="Start of the round's fio run, ms on the step's clock.")
    t_end_ms: int
    elements: dict[str, dict[str, float]] = Field(
        description="Each element's figures in this round (MB/s, IOPS, bytes, latency in µs), "
        "by element name (the fio job section)."
    )


class PointRunOut(BaseModel):
    """A dedicated run a DIRTH or ECW sweep's IOPS points need, as the api tells the worker."""

    name: str = Field(description="The sweep's element at the point (tcN-qdM): the run's job.")
    tc: int = Field(ge=1, description="Thread count (fio numjobs).")
    qd: int = Field(ge=1, description="Queue depth per thread (fio iodepth).")
    toc: int = Field(ge=1, description="Total outstanding I/O, TC x QD.")
    points: list[Literal["max", "mid", "min"]] = Field(
        description="The IOPS points this TC x QD is (a small sweep's middle point can be its "
        "maximum or its minimum: one run for both)."
    )


class PtsReport(BaseModel):
    """A SNIA PTS run's report: the header fields of the specification, one section per
    rounds step (convergence, measurement window, the window's table and distributions) and
    the test's own series."""

    run_id: int
    plan: str
    title: str
    status: str
    simulated: bool
    header: dict[str, Any]
    sections: list[dict[str, Any]]
    hir: dict[str, Any] | None = None
    xsr: dict[str, Any] | None = None


class PtsDriveResult(BaseModel):
    drive_id: int
    label: str
    under_review: bool
    run_id: int
    simulated: bool
    profile: str | None
    steady: bool = Field(description="Every rounds step of the run reached steady state.")
    values: dict[str, dict[str, Any]] = Field(
        description="pts-iops: {block size: {mix: IOPS}}; pts-throughput: {block size: "
        "{read, write: MB/s}}; pts-latency: {element: {label, mean, max, p99999 in µs, ios, "
        "p99999_note: why p99.999 is missing}}; pts-wsat and pts-hir: {steady: {iops}} and "
        "HIR's {wait-Ns: {iops}}; pts-xsr: {stimulus: {label, mbps, settled_mbps, recovery_s "
        "(after the transition into it), lat_mean_us, lat_max_us}}; pts-dirth and pts-ecw: "
        "{tcN-qdM and max-iops, mid-iops, min-iops: {label, toc, iops, art_us}}; pts-cbw: "
        "{cbw: {label, iops, mbps, lat_mean_us, lat_max_us, p9999}}."
    )


class PtsTestComparison(BaseModel):
    plan: str
    title: str
    drives: list[PtsDriveResult]


class PtsComparison(BaseModel):
    reference: int = Field(description="The drive the others are compared with.")
    tests: list[PtsTestComparison]
