"""An old run is named with the serial it was measured on, not the drive's current one."""

from __future__ import annotations

from backend.drives.models import DriveModel, DriveSample
from backend.drives.service import drive_label
from backend.runs.models import Run
from backend.runs.service import run_serial


def drive() -> DriveSample:
    model = DriveModel(vendor="Acme", model="X1", capacity_bytes=256 * 1024**2, simulated=True)
    return DriveSample(serial="NEW-SERIAL", model=model)


def test_the_serial_typed_to_confirm_the_run() -> None:
    run = Run(confirmed_serial="OLD-SERIAL", environment={"drive": {"serial": "ENV"}})
    assert run_serial(run) == "OLD-SERIAL"
    assert drive_label(drive(), run_serial(run)) == "Acme X1 0.268 GB (S/N OLD-SERIAL)"


def test_else_the_serial_its_worker_recorded() -> None:
    assert run_serial(Run(environment={"drive": {"serial": "ENV-SERIAL"}})) == "ENV-SERIAL"


def test_else_the_drives_own() -> None:
    assert run_serial(Run(environment={})) is None
    assert drive_label(drive(), run_serial(Run())) == "Acme X1 0.268 GB (S/N NEW-SERIAL)"
