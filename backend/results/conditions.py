"""The conditions a result was measured under, and what they mean for a comparison.

Every result of a comparison states the conditions that change its numbers: those of its step
(span, runtime, queue depth, block size, data pattern, the drive's state before it) and of its
run (over-provisioning, fio version, ioengine, firmware, simulated or real). Two results of the
same metric compare fairly only when these agree:

- A *variant* condition names a different test, not different circumstances of the same one:
  over-provisioning (OP 0% and 25% are two consistency metrics) and a run's data pattern
  (compressible and incompressible transfer-size sweeps). It becomes part of the metric's id
  (`consistency:consistency-4k-qd32@op25:iops_mean_last400`), so such results never meet.
- Run-to-run variation pools only the runs of a drive whose conditions are all the same as its
  latest run's.
- Any condition that differs between the drives of a metric gives a warning; a span or block
  size that differs makes the ranking meaningless, and the rows measured unlike the drive under
  review (or unlike most drives) are set apart.

A new condition (a plan's latency target, say) is one more entry in CONDITIONS and, when it
comes from the step's job, one more field read in STEP_FIELDS. Pure: rows in, values out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from backend.plans.base import parse_size

Items = tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class Condition:
    key: str  # also its name in warnings and exports
    sets_apart: bool = False  # rows measured otherwise are not ranked together


CONDITIONS: tuple[Condition, ...] = (
    Condition("span", sets_apart=True),
    Condition("block size", sets_apart=True),
    Condition("queue depth"),
    Condition("runtime"),
    Condition("data pattern"),
    Condition("OP"),
    Condition("drive state before"),
    Condition("fio version"),
    Condition("ioengine"),
    Condition("firmware"),
    Condition("drive"),
)
KEYS = tuple(c.key for c in CONDITIONS)
SETS_APART = tuple(c.key for c in CONDITIONS if c.sets_apart)

# The job options of a step that its conditions are read from (picked out by PostgreSQL).
STEP_FIELDS = (
    "role",
    "rw",
    "bs",
    "iodepth",
    "size",
    "span_bytes",
    "runtime",
    "time_based",
    "buffer_compress_percentage",
    "op_percent",
)

# What a preparation step leaves the drive in, for the steps after it.
_PREPARES = {
    "purge": "purged",
    "trim": "trimmed",
    "idle": "idled",
}
_PREPARING_ROLES = {
    "fill": "filled",
    "precondition": "preconditioned",
    "torture": "tortured",
    "prewrite": "pre-written",
}
_PREPARING_NAMES = {"prewrite": "pre-written"}


def binary_size(n: int) -> str:
    """8589934592 -> "8 GiB", 33554432 -> "32 MiB", 1610612736 -> "1.5 GiB" (fio's sizes)."""
    for suffix, unit in (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= unit:
            value = n / unit
            text = f"{value:.0f}" if value >= 10 or value == int(value) else f"{value:.1f}"
            return f"{text} {suffix}"
    return f"{n} B"


def block_size(n: int) -> str:
    """4096 -> "4K", 131072 -> "128K", 1048576 -> "1M", 512 -> "512B" (fio's bs)."""
    if n >= 1024**2 and n % 1024**2 == 0:
        return f"{n // 1024**2}M"
    if n >= 1024 and n % 1024 == 0:
        return f"{n // 1024}K"
    return f"{n}B"


def _text(value: Any) -> str | None:
    return None if value in (None, "", "null") else str(value)


def _int(value: Any) -> int | None:
    try:
        return None if value in (None, "", "null") else int(float(value))
    except (TypeError, ValueError):
        return None


def _size(value: Any) -> int | None:
    text = _text(value)
    if text is None:
        return None
    try:
        return parse_size(text)
    except ValueError:
        return None


def _true(value: Any) -> bool:
    return str(value).lower() in ("true", "1")


def step_conditions(fields: Mapping[str, Any], before: str) -> dict[str, str | None]:
    """A step's own conditions from its job options (as text, None where absent) and the
    drive's state before it (see state_before)."""
    span = _int(fields.get("span_bytes")) or _size(fields.get("size"))
    bs = _size(fields.get("bs"))
    qd = _int(fields.get("iodepth"))
    runtime = _int(fields.get("runtime"))
    rw = str(fields.get("rw") or "")
    pattern = None
    if "write" in rw or rw == "randrw":
        compress = _int(fields.get("buffer_compress_percentage"))
        pattern = f"compressible {compress}%" if compress else "incompressible"
    return {
        "span": None if span is None else binary_size(span),
        "block size": None if bs is None else block_size(bs),
        "queue depth": None if qd is None else f"QD{qd}",
        "runtime": None
        if runtime is None
        else (f"{runtime} s" if _true(fields.get("time_based")) else f"up to {runtime} s"),
        "data pattern": pattern,
        "drive state before": before,
    }


def state_before(steps: Sequence[tuple[str, str, str | None, bool]]) -> list[str]:
    """For a run's steps in order, as (kind, name, role, done): the drive's state before each,
    from the preparation steps done before it ("purged, filled, tortured"), or "as found"."""
    out: list[str] = []
    done: list[str] = []
    for kind, name, role, finished in steps:
        out.append(", ".join(done) if done else "as found")
        if not finished:
            continue
        word = _PREPARES.get(kind) or _PREPARING_ROLES.get(role or "") or _PREPARING_NAMES.get(name)
        if word and (not done or done[-1] != word):
            done.append(word)
    return out


def run_conditions(
    *,
    op_percent: Any,
    has_op_percent: bool,
    fio_version: Any,
    ioengine: Any,
    firmware: Any,
    simulated: bool,
) -> dict[str, str | None]:
    """A run's conditions (values as _runs reads them from its JSON, as text)."""
    op = _int(op_percent) if has_op_percent else 0
    return {
        "OP": None if op is None else f"{op}%",
        "fio version": _text(fio_version),
        "ioengine": _text(ioengine),
        "firmware": _text(firmware),
        "drive": "simulated" if simulated else "real",
    }


def variant(run_params: Mapping[str, Any], step: str) -> str:
    """What a run's parameters add to its metrics' step ("@op25", "@compressible"): the
    conditions that make it another test. Empty for the default variant, so the ids of
    metrics measured the default way are plain `plan:step:metric`."""
    suffix = ""
    op = _int(run_params.get("op_percent"))
    if op:
        suffix += f"@op{op}"
    pattern = _text(run_params.get("pattern"))
    if pattern and pattern != "incompressible" and "compressible" not in step:
        suffix += f"@{pattern}"
    return suffix


def merged(step: Mapping[str, Any], run: Mapping[str, Any]) -> Items:
    """A result's conditions, in CONDITIONS' order: its step's and its run's."""
    both = {**step, **run}
    return tuple((key, both.get(key)) for key in KEYS)


def reference(rows: Sequence[tuple[int, Items]], under_review: int | None) -> dict[str, Any]:
    """The span and block size the rows are ranked under: the drive under review's, else the
    most common ones (the first row's, best first, on a tie)."""
    by_drive = dict(rows)
    if under_review in by_drive:
        chosen = dict(by_drive[under_review])
        return {key: chosen.get(key) for key in SETS_APART}
    counts: dict[tuple[Any, ...], int] = {}
    for _drive, items in rows:
        cond = dict(items)
        key = tuple(cond.get(k) for k in SETS_APART)
        counts[key] = counts.get(key, 0) + 1
    if not counts:
        return dict.fromkeys(SETS_APART)
    best = max(counts.values())
    winner = next(k for k in counts if counts[k] == best)  # first met: the best row's
    return dict(zip(SETS_APART, winner, strict=True))


@lru_cache(maxsize=4096)
def sets_apart(items: Items) -> tuple[Any, ...]:
    """The conditions that can set a row apart: rows equal in these are ranked together."""
    cond = dict(items)
    return tuple(cond.get(key) for key in SETS_APART)


def apart(items: Items, ref: Mapping[str, Any]) -> str | None:
    """Why a row is not ranked with the others, or None: "span 32 MiB, not 1 GiB"."""
    cond = dict(items)
    reasons = [
        f"{key} {cond.get(key) or 'unknown'}, not {ref[key] or 'unknown'}"
        for key in SETS_APART
        if cond.get(key) != ref.get(key)
    ]
    return "; ".join(reasons) or None


def common(conditions: Iterable[Items]) -> tuple[dict[str, Any], list[str]]:
    """(the conditions every row shares, the keys in which they differ)."""
    values: dict[str, list[Any]] = {key: [] for key in KEYS}
    for items in conditions:
        for key, value in items:
            if value not in values[key]:
                values[key].append(value)
    shared = {key: v[0] for key, v in values.items() if len(v) == 1}
    return shared, [key for key, v in values.items() if len(v) > 1]


def warnings(
    rows: Sequence[tuple[str, Items]],
    notes: Sequence[tuple[str, Any, bool]],
) -> list[str]:
    """What a reader must know before comparing the rows, given as (the drive's model, its
    conditions) and each drive's host notes (model, host, whether any pooled run was
    resumed): every condition that differs, by value with the models measured so."""
    seen: dict[str, dict[Any, set[str]]] = {key: {} for key in KEYS}
    firmware: dict[str, set[Any]] = {}
    for name, items in rows:
        for key, value in items:
            if key == "firmware":
                firmware.setdefault(name, set()).add(value)
            else:
                seen[key].setdefault(value, set()).add(name)
    out = []
    # Different products have different firmware by nature; the same product (two samples
    # of a model) measured on different firmware is worth a warning.
    for name, versions in sorted(firmware.items()):
        if len(versions) > 1:
            listed = ", ".join(sorted(str(v) for v in versions))
            out.append(f"{name} was measured with different firmware: {listed}")
    for key, by_value in seen.items():
        if len(by_value) < 2:
            continue
        if key == "drive":
            out.append("simulated drives are compared with real ones")
            continue
        parts = "; ".join(
            f"{'unknown' if v is None else v} ({', '.join(sorted(names))})"
            for v, names in by_value.items()
        )
        out.append(f"measured with different {key}: {parts}")
    hosts: dict[Any, set[str]] = {}
    for name, host, _resumed in notes:
        hosts.setdefault(host, set()).add(name)
    if len(hosts) > 1:
        parts = "; ".join(
            f"{'unknown' if h is None else h} ({', '.join(sorted(n))})" for h, n in hosts.items()
        )
        out.append(f"measured on different hosts: {parts}")
    resumed = sorted({name for name, _host, was in notes if was})
    if resumed:
        out.append(f"some runs were resumed after an interruption: {', '.join(resumed)}")
    return out
