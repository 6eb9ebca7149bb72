"""Registration from what the bench reports.

A bench's worker posts its device report (worker/report.py) with its hello; the api keeps the
latest one in the bench's host_info["devices"]. A drive is registered (or its serial, target
or bench changed) only for a target that the report lists, with the serial the report gives,
and never for the disk the system runs from or a disk in use. The simulated flag of its model
comes from the report too (a sandbox file or loop device is simulated, a virtual bench's
controller emulated), not from the person registering.
"""

from __future__ import annotations

from typing import Any

from backend.benches.models import Bench
from backend.core.errors import Conflict, InvalidParams

# Devices listed in a refusal at most (the rest: `drivelab devices`).
LISTED = 8


def reported(bench: Bench) -> list[dict[str, Any]] | None:
    """The bench's latest device report; None when its worker has not sent one since it
    started (the worker's first hello clears the report of an earlier start)."""
    devices = (bench.host_info or {}).get("devices")
    return list(devices) if isinstance(devices, list) else None


def _names(entry: dict[str, Any]) -> list[str]:
    return [str(entry.get("path")), *(str(x) for x in entry.get("links") or [])]


def find(devices: list[dict[str, Any]], target_path: str) -> dict[str, Any] | None:
    """The reported device or file that `target_path` names (its path or a by-id name)."""
    return next((d for d in devices if target_path in _names(d)), None)


def flags(entry: dict[str, Any]) -> list[str]:
    """What a reported device is besides a drive to register: the refusals first."""
    words = {"system": "system disk", "in_use": "in use", "simulated": "simulated",
             "emulated": "emulated"}  # fmt: skip
    return [word for key, word in words.items() if entry.get(key)]


def describe(entry: dict[str, Any]) -> str:
    found = flags(entry)
    extra = f" [{', '.join(found)}]" if found else ""
    return f"{entry.get('path')} (serial {entry.get('serial') or 'none'}){extra}"


def _listing(devices: list[dict[str, Any]]) -> str:
    shown = [describe(d) for d in devices[:LISTED]]
    more = f" and {len(devices) - LISTED} more" if len(devices) > LISTED else ""
    return "; ".join(shown) + more if shown else "nothing"


def check(bench: Bench, target_path: str, serial: str | None) -> dict[str, Any]:
    """The report's entry for `target_path` on `bench`, or an error that says what the bench
    reports and how to see it. `serial` None: take the report's."""
    devices = reported(bench)
    see = f"see `drivelab devices --bench {bench.name}` or the Admin page's Benches"
    if devices is None:
        raise Conflict(
            f"the worker of bench {bench.name} has not reported its devices yet; is it "
            f"running? (`drivelab worker --bench {bench.name}`; it reports them within seconds "
            "of starting)",
            field="bench",
        )
    entry = find(devices, target_path)
    if entry is None:
        raise InvalidParams(
            f"bench {bench.name} reports no device or sandbox file at {target_path}: it "
            f"reports {_listing(devices)}; {see}",
            field="target_path",
        )
    if entry.get("system"):
        raise InvalidParams(
            f"{target_path} on bench {bench.name} is the disk the system runs from "
            f"({entry['system']}): it can never be registered as a drive to test",
            field="target_path",
        )
    if entry.get("in_use"):
        raise InvalidParams(
            f"{target_path} on bench {bench.name} is in use ({'; '.join(entry['in_use'])}): "
            "unmount it, turn off its swap or take it out of md/LVM, wait for the bench to "
            "report it free, then register it",
            field="target_path",
        )
    if not entry.get("serial"):
        raise InvalidParams(
            f"{target_path} on bench {bench.name} reports no serial number, so the interlock "
            "could never match it to a registered drive",
            field="target_path",
        )
    if serial is not None and serial != entry["serial"]:
        raise InvalidParams(
            f"bench {bench.name} reports serial {entry['serial']} at {target_path}, not "
            f"{serial}: register the serial the device reports ({see})",
            field="serial",
        )
    return entry


def kind(simulated: bool, emulated: bool) -> str:
    """What a drive is, in words: an emulated drive is simulated too (not a product)."""
    if emulated:
        return "an emulated drive (a virtual bench's controller)"
    return "a simulated drive" if simulated else "a real drive"


def simulated(entry: dict[str, Any]) -> bool:
    """Results of a simulated (sandbox file, loop device) or emulated (a virtual bench's QEMU
    controller) drive are labelled as such, never as a real drive's."""
    return bool(entry.get("simulated") or entry.get("emulated"))


def check_flag(entry: dict[str, Any], given: bool | None) -> None:
    """`simulated` given by the caller must agree with the report (it is not a choice)."""
    if given is not None and given != simulated(entry):
        what = "simulated or emulated" if simulated(entry) else "a real drive"
        raise InvalidParams(
            f"the bench reports {entry.get('path')} as {what}: leave out `simulated`, it is "
            "taken from the bench's report",
            field="simulated",
        )
