"""What is changed on this host, beyond the run's own drive, while a run runs.

A simulated drive's controller (worker/sim/controller.py, KworkerBoost) raises every kernel
worker thread (kworker) on the machine to KWORKER_NICE while it runs: that is a condition of
every run on the bench, a real drive's included. The worker records it with the run, at its
start and at its end (run environment `host_changes`), and the Run page shows it. The api
keeps simulated and real drives' runs from running side by side on one bench (runs.queue).

Only reads /proc and the simulated drives' state files.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from worker.sim import registry
from worker.sim.controller import KWORKER_NICE

PROC = Path("/proc")
# The kernel starts its normal worker pools at nice 0 (the high-priority ones at -20, which
# the controller leaves alone): what the raised threads had before.
KWORKER_DEFAULT_NICE = 0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def raised_kworkers(proc: Path = PROC) -> int:
    """How many kernel worker threads run at KWORKER_NICE now."""
    count = 0
    for entry in os.scandir(proc):
        if not entry.name.isdigit():
            continue
        try:
            if not (proc / entry.name / "comm").read_text().startswith("kworker/"):
                continue
            if os.getpriority(os.PRIO_PROCESS, int(entry.name)) == KWORKER_NICE:
                count += 1
        except OSError:
            continue
    return count


def host_changes(proc: Path = PROC) -> dict[str, Any]:
    """The changes to the host seen now: {"kworker_priority": {...} or None, "simulated_drives":
    [...]} (the simulated drives whose controllers run on this machine)."""
    sims = [
        {"device": s.device, "label": s.label, "controller_pid": s.controller_pid}
        for s in registry.running()
        if _alive(s.controller_pid)
    ]
    threads = raised_kworkers(proc)
    kworkers = None
    if threads:
        kworkers = {
            "threads": threads,
            "from": KWORKER_DEFAULT_NICE,
            "to": KWORKER_NICE,
            "by": [f"simulated drive {s['device']}" for s in sims] or ["unknown"],
        }
    return {"kworker_priority": kworkers, "simulated_drives": sims}
