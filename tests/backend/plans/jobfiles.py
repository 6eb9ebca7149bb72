"""Helpers of the plan tests: drives and job-file parsing."""

from __future__ import annotations

from backend.plans.base import DriveContext, StepSpec, parse_size

GiB = 1024**3
TB2 = DriveContext(target_path="/dev/nvme9n1", capacity_bytes=2 * 10**12, serial="S2T")
TB2_4KN = DriveContext(
    target_path="/dev/nvme9n1", capacity_bytes=2 * 10**12, serial="S2T", logical_sector=4096
)
SMALL = DriveContext(target_path="/srv/sandbox/sim.img", capacity_bytes=GiB, serial="SIM-1")


def sections(job_file: str) -> dict[str, dict[str, str]]:
    """Every section of a job file: {"global": {...}, "<job>": {...}}."""
    out: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for line in job_file.splitlines():
        line = line.strip()
        if not line or line.startswith(";"):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = out.setdefault(line[1:-1], {})
        else:
            assert current is not None, f"option outside a section: {line}"
            key, sep, value = line.partition("=")
            assert sep, f"not key=value: {line}"
            assert key not in current, f"{key} set twice"
            current[key] = value
    return out


def job(step: StepSpec) -> dict[str, str]:
    """The options of a step's one job section."""
    assert step.job_file, f"step {step.name} has no job file"
    parts = sections(step.job_file)
    assert list(parts)[0] == "global" and len(parts) == 2, parts.keys()
    return next(v for k, v in parts.items() if k != "global")


def global_opts(step: StepSpec) -> dict[str, str]:
    assert step.job_file
    return sections(step.job_file)["global"]


def size(step: StepSpec) -> int:
    return parse_size(job(step)["size"])


def by_name(steps: list[StepSpec]) -> dict[str, StepSpec]:
    return {s.name: s for s in steps}
