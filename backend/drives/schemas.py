from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field


class BenchRef(BaseModel):
    id: int
    name: str
    online: bool


class DriveModelOut(BaseModel):
    id: int
    vendor: str
    model: str
    capacity_bytes: int
    interface: str | None
    controller: str | None
    nand: str | None
    dram: str | None
    embargo_until: datetime | None = Field(
        None, description="Until then only reviewers and admins see the model and its drives."
    )


class DriveOut(BaseModel):
    id: int
    serial: str
    firmware: str | None
    target_path: str
    simulated: bool
    emulated: bool = Field(
        False,
        description="A virtual bench's QEMU controller (simulated too): functional truth, not a "
        "product's performance.",
    )
    label: str
    short_name: str | None = Field(
        None, description="What charts and exports call the drive, when a reviewer set one."
    )
    bench: BenchRef
    model: DriveModelOut
    active_run_id: int | None
    waiting_run_ids: list[int] = Field(
        default_factory=list,
        description="Runs queued for this drive behind the active one, in the order they run.",
    )
    embargoed: bool = Field(False, description="Its model is under embargo now.")


class DriveCreate(BaseModel):
    """Register a drive on a bench, picked from what the bench's worker reports (GET
    /api/benches/{bench}/devices). The worker's interlock checks, before every run, that the
    target still reports this serial."""

    bench: str
    target_path: str = Field(
        description="A path or /dev/disk/by-id name the bench reports, or a file in its sandbox."
    )
    serial: str | None = Field(
        None,
        description="The serial the bench reports for the target; left out, the report's. "
        "Another serial is refused.",
    )
    vendor: str
    model: str
    capacity_bytes: int | None = Field(
        None, description="Left out: the capacity the bench reports for the target."
    )
    firmware: str | None = Field(None, description="Left out: what the bench reports.")
    interface: str | None = None
    simulated: bool | None = Field(
        None,
        description="Taken from the bench's report (a sandbox file or loop device is simulated, "
        "a virtual bench's drive emulated); if given it must agree.",
    )
    logical_sector: int | None = Field(
        None, description="Logical sector size in bytes (512 or 4096); left out: the report's."
    )
    short_name: str | None = Field(
        None, max_length=40, description="What charts and exports call the drive."
    )


class DriveUpdate(BaseModel):
    """Fields of a drive sample that can change: a firmware update, a new target path (the
    drive moved to another port or bench), a corrected serial or model. A new serial, target
    or bench must match what the bench reports; every such change is in the audit log."""

    model_config = ConfigDict(extra="forbid")

    serial: str | None = Field(None, min_length=1)
    firmware: str | None = None
    target_path: str | None = Field(None, min_length=1)
    bench: str | None = Field(
        None, min_length=1, description="Move the drive to another bench (its report must list it)."
    )
    model_id: int | None = None
    logical_sector: int | None = Field(
        None, description="512 or 4096", json_schema_extra={"enum": [512, 4096]}
    )
    short_name: str | None = Field(
        None,
        max_length=40,
        description="A short name for charts and exports (e.g. '990 PRO 2TB'); empty or null "
        "clears it. Can be set while the drive runs.",
    )
