"""What a run records about the host (METHODS.md, "What every run records")."""

from __future__ import annotations

import os
import platform
from pathlib import Path
from typing import Any

from worker.devices import DeviceInfo
from worker.fio.runner import fio_version


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def _mem_total_bytes() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return None


def _os_name() -> str | None:
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return None


def _board() -> str | None:
    parts = []
    for name in ("board_vendor", "board_name"):
        try:
            parts.append(Path(f"/sys/class/dmi/id/{name}").read_text().strip())
        except OSError:
            continue
    return " ".join(p for p in parts if p) or None


def host_info(fio_binary: str = "fio", drive: DeviceInfo | None = None) -> dict[str, Any]:
    info: dict[str, Any] = {
        "hostname": platform.node(),
        "cpu": _cpu_model(),
        "cpus": os.cpu_count(),
        "memory_bytes": _mem_total_bytes(),
        "board": _board(),
        "os": _os_name(),
        "kernel": platform.release(),
        "fio_version": fio_version(fio_binary),
    }
    if drive is not None:
        info["scheduler"] = drive.scheduler
        info["discard_max_bytes"] = drive.discard_max_bytes
    return info
