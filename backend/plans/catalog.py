"""The plan catalog: every plan drivelab can run, by key."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from backend.core.errors import InvalidParams, NotFound
from backend.plans.as_ssd import AsSsdPreset
from backend.plans.base import DriveContext, Plan, StepSpec
from backend.plans.bursts import QD1Bursts
from backend.plans.consistency import Consistency
from backend.plans.desktop_preset import DesktopPreset
from backend.plans.file_copy import FileCopy
from backend.plans.four_corners import FourCorners
from backend.plans.full_drive import FullDrive
from backend.plans.hdtach import HdTach
from backend.plans.mixed import Mixed
from backend.plans.performance_over_time import PerformanceOverTime
from backend.plans.pts_dirth import PtsCbw, PtsDirth, PtsEcw
from backend.plans.pts_hir import PtsHir
from backend.plans.pts_iops import PtsIops
from backend.plans.pts_latency import PtsLatency
from backend.plans.pts_steady_state import PtsSteadyState
from backend.plans.pts_throughput import PtsThroughput
from backend.plans.pts_wsat import PtsWsat
from backend.plans.pts_xsr import PtsXsr
from backend.plans.qd_sweep import QdSweep
from backend.plans.slc_cache import SlcCache
from backend.plans.thermal import ThermalPlan
from backend.plans.torture import Torture
from backend.plans.trace_replay import TraceReplay
from backend.plans.transfer_size import TransferSize
from backend.plans.trim_performance import TrimPerformance
from backend.plans.trim_validation import TrimValidation
from backend.plans.write_hitching import WriteHitching

PLANS: dict[str, Plan] = {
    p.key: p
    for p in (
        FourCorners(),
        TransferSize(),
        Consistency(),
        Torture(),
        HdTach(),
        PerformanceOverTime(),
        TrimValidation(),
        TrimPerformance(),
        WriteHitching(),
        TraceReplay(),
        PtsSteadyState(),
        PtsIops(),
        PtsThroughput(),
        PtsLatency(),
        PtsWsat(),
        PtsHir(),
        PtsXsr(),
        PtsDirth(),
        PtsEcw(),
        PtsCbw(),
        QdSweep(),
        DesktopPreset(),
        AsSsdPreset(),
        ThermalPlan(),
        SlcCache(),
        QD1Bursts(),
        Mixed(),
        FileCopy(),
        FullDrive(),
    )
}


def get_plan(key: str) -> Plan:
    try:
        return PLANS[key]
    except KeyError:
        raise NotFound(
            f"unknown plan {key!r}: choose one of {', '.join(sorted(PLANS))}", field="plan"
        ) from None


def validate_params(plan: Plan, params: dict[str, Any] | None) -> Any:
    """Parse params against the plan's schema; every error names the parameter to fix."""
    try:
        return plan.Params.model_validate(params or {})
    except ValidationError as exc:
        problems = []
        first_field = None
        for err in exc.errors():
            name = ".".join(str(p) for p in err["loc"]) or "params"
            first_field = first_field or name
            field = plan.Params.model_fields.get(str(err["loc"][0])) if err["loc"] else None
            problems.append(f"{name}: {_in_words(err, field.description if field else None)}")
        raise InvalidParams(
            f"invalid parameters for plan {plan.key}: " + "; ".join(problems),
            field=f"params.{first_field}",
        ) from None


def _in_words(err: Any, description: str | None) -> str:
    """A validation error as the Queue form says it: a size that is not one is named in words
    (`1x is not a size: ...`), never by its regular expression."""
    from backend.plans.common import SIZE_PATTERN

    if err.get("type") == "string_pattern_mismatch":
        pattern = (err.get("ctx") or {}).get("pattern")
        if pattern == SIZE_PATTERN:
            return (
                f"{err.get('input')!r} is not a size: use a whole number with k, m, g or t "
                "(64m, 8g; fio's sizes, 8g = 8 GiB)"
            )
        what = f" ({description})" if description else ""
        return f"{err.get('input')!r} does not have the expected form{what}"
    return str(err["msg"])


def compile_plan(
    key: str, params: dict[str, Any] | None, drive: DriveContext
) -> tuple[Plan, dict[str, Any], list[StepSpec]]:
    """(plan, the params with every default filled in, the concrete steps)."""
    plan = get_plan(key)
    parsed = validate_params(plan, params)
    steps = plan.compile(parsed, drive)
    return plan, parsed.model_dump(mode="json"), steps
