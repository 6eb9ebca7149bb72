"""The review in article order (GET /api/compare/article): the drives, a headline table of the
figures reviewers quote with the drive under review's difference to each other drive, the
findings in words per drive, and an appendix of every other result grouped by plan and test.

Nothing here reads samples: the figures are the results stored when each step finished (the
cached parts of GET /api/compare, backend.results.compare), the findings the analysis stored
on each step then (Step.analysis: step-downs, stalls, drop-off, convergence), and the tail
latencies fio's histograms stored per step (StepLatency). Opening an article costs a few
queries, however many samples the runs have.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from types import SimpleNamespace
from typing import Any

from pydantic_core import from_json
from sqlalchemy import select
from sqlalchemy.orm import Session, load_only

from backend.analysis.thermal import heat_words
from backend.drives.models import DriveSample
from backend.drives.service import capacity_label, drive_label
from backend.results import compare as cmp
from backend.runs.models import Run, Step

NO_FIRMWARE = "firmware not reported"


@dataclass(frozen=True)
class Figure:
    """A headline figure: a stored result (plan, step pattern, metric); tail latencies are
    the results fio's histogram gave when the step ended (backend.analysis.latency)."""

    key: str
    label: str
    plan: str
    step: str  # a regular expression for the step's name (variants excluded)
    metric: str
    unit: str
    lower_is_better: bool = False


HEADLINE: tuple[Figure, ...] = (
    Figure("seqread", "128K sequential read QD1", "four-corners", r"seqread-128k-qd1",
           "read_mbps", "MB/s"),
    Figure("seqwrite", "128K sequential write QD1", "four-corners",
           r"seqwrite-128k-qd1(-incompressible)?", "write_mbps", "MB/s"),
    Figure("randread", "4K random read QD3", "four-corners", r"randread-4k-qd3", "read_iops",
           "IOPS"),
    Figure("randwrite-qd3", "4K random write QD3", "four-corners",
           r"randwrite-4k-qd3(-incompressible)?", "write_iops", "IOPS"),
    Figure("randwrite-qd32", "4K random write QD32", "four-corners",
           r"randwrite-4k-qd32(-incompressible)?", "write_iops", "IOPS"),
    Figure("randread-qd1", "4K random read QD1 (queue-depth sweep)", "qd-sweep",
           r"randread-4k-qd1(-1jobs)?-sweep", "read_iops", "IOPS"),
    Figure("randread-qd32", "4K random read QD32 (queue-depth sweep)", "qd-sweep",
           r"randread-4k-qd32(-1jobs)?-sweep", "read_iops", "IOPS"),
    Figure("steady", "Steady-state 4K random write QD32", "consistency",
           r"consistency-4k-qd32", "iops_mean_last400", "IOPS"),
    Figure("hdtach-write", "HD Tach average write", "hdtach", r"hdtach-write",
           "hdtach_write_avg_mbps", "MB/s"),
    Figure("hdtach-read", "HD Tach average read", "hdtach", r"hdtach-read",
           "hdtach_read_avg_mbps", "MB/s"),
    Figure("sustained", "Sustained write after the cache", "hdtach", r"hdtach-write",
           "hdtach_write_after_step_down_mbps", "MB/s"),
    Figure("stalls", "Write stalls (sequential write)", "write-hitching", r"hitch-seq-.*",
           "stall_count", "stalls", True),
    Figure("stall-longest", "Longest write stall", "write-hitching", r"hitch-seq-.*",
           "stall_longest_s", "s", True),
    Figure("p999-qd-low", "4K random read QD3, p99.9 latency", "four-corners",
           r"randread-4k-qd3", "read_lat_p99_9_us", "µs", True),
    Figure("p9999-qd-low", "4K random read QD3, p99.99 latency", "four-corners",
           r"randread-4k-qd3", "read_lat_p99_99_us", "µs", True),
    Figure("p999-qd32", "4K random write QD32, p99.9 latency", "four-corners",
           r"randwrite-4k-qd32(-incompressible)?", "write_lat_p99_9_us", "µs", True),
    Figure("p9999-qd32", "4K random write QD32, p99.99 latency", "four-corners",
           r"randwrite-4k-qd32(-incompressible)?", "write_lat_p99_99_us", "µs", True),
)  # fmt: skip
# The figure performance per dollar is quoted for, first one the drives have.
VALUE_FIGURES = ("randwrite-qd32", "seqread", "hdtach-write")


# --- units and order -----------------------------------------------------------------------

_TIME_UNITS = (("s", 1e6), ("ms", 1e3), ("µs", 1.0))
_BYTE_UNITS = (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3), ("bytes", 1.0))


def scale(values: Iterable[float | None], unit: str) -> tuple[str, float]:
    """The unit a row of values reads best in, and what to divide them by: latencies in µs,
    ms or s and sizes in KB, MB, GB (10^n), chosen by the row's largest value so that the
    drives of a row share one unit. Other units stay as they are."""
    top = max((abs(v) for v in values if v is not None), default=0.0)
    if unit in ("µs", "ms", "s"):
        base = dict(_TIME_UNITS)[unit]
        top_us = top * base
        for name, factor in _TIME_UNITS:
            if top_us >= factor or name == "µs":
                return name, factor / base
    if unit in ("bytes", "B", "GB", "MB"):
        base = {"bytes": 1.0, "B": 1.0, "MB": 1e6, "GB": 1e9}[unit]
        top_b = top * base
        for name, factor in _BYTE_UNITS:
            if top_b >= factor or name == "bytes":
                return name, factor / base
    return unit, 1.0


def number(value: float | None) -> str:
    """A figure as a reviewer writes it: 3 significant digits below 100, whole numbers above,
    thousands separated (12,345; 45.6; 0.123)."""
    if value is None:
        return "—"
    a = abs(value)
    if a == 0:
        return "0"
    if a >= 100:
        return f"{value:,.0f}"
    if a >= 10:
        return f"{value:.1f}"
    if a >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}"


COUNTS = frozenset({"stalls", "step-downs", "QD"})


def shown(value: float | None, unit: str) -> str:
    """A value with its unit, the two kept together ("72.0\u00a0µs"); counts whole."""
    if value is None:
        return "—"
    if unit in COUNTS and float(value).is_integer():
        return f"{int(value):,}\u00a0{unit}"
    return f"{number(value)}\u00a0{unit}"


_NUMBER = re.compile(r"(\d+(?:\.\d+)?)")


def natural_key(text: str) -> tuple[Any, ...]:
    """Sorts numbers inside text by value: QD1 < QD3 < QD32, 4K < 128K, and percentiles
    99th < 99.9th < 99.99th < 99.999th (not as strings)."""
    out: list[Any] = []
    for i, part in enumerate(_NUMBER.split(text.lower())):
        out.append((1, float(part), "") if i % 2 else (0, 0.0, part))
    return tuple(out)


# Measures in the order a review reads them: rates, then latencies from mean to max, then
# the rest by name.
_MEASURE_ORDER = (
    re.compile(r"MB/s"),
    re.compile(r"IOPS"),
    re.compile(r"^(read |write )?mean latency"),
    re.compile(r"^(read |write )?median latency"),
    re.compile(r"percentile latency"),
    re.compile(r"maximum latency"),
)


def measure_key(measure: str) -> tuple[Any, ...]:
    for i, pattern in enumerate(_MEASURE_ORDER):
        if pattern.search(measure):
            return (i, natural_key(measure))
    return (len(_MEASURE_ORDER), natural_key(measure))


# --- the answer ----------------------------------------------------------------------------


def _capacity(nbytes: int) -> tuple[float, str]:
    """Capacity in GB (10^9 bytes), and as every page writes it (capacity_label)."""
    return nbytes / 1e9, capacity_label(nbytes)


def _short_label(d: DriveSample) -> str:
    """A drive as the pages name it without a short name: its label without the serial."""
    return f"{d.model.vendor} {d.model.model} {capacity_label(d.model.capacity_bytes)}"


def _latest_runs(session: Session, drive_ids: Sequence[int]) -> dict[tuple[int, str], int]:
    """Each drive's latest finished run of each plan."""
    out: dict[tuple[int, str], int] = {}
    for run_id, drive_id, plan in session.execute(
        select(Run.id, Run.drive_id, Run.plan)
        .where(Run.drive_id.in_(drive_ids), Run.status == "done")
        .order_by(Run.finished_at, Run.id)
    ):
        out[drive_id, plan] = run_id
    return out


def _steps_of(session: Session, run_ids: Iterable[int]) -> dict[int, list[Step]]:
    ids = list(run_ids)
    out: dict[int, list[Step]] = defaultdict(list)
    if not ids:
        return out
    for step in session.scalars(
        select(Step)
        .options(load_only(Step.id, Step.run_id, Step.idx, Step.name, Step.params,
                           Step.status, Step.analysis))
        .where(Step.run_id.in_(ids))
        .order_by(Step.run_id, Step.idx)
    ):  # fmt: skip
        out[step.run_id].append(step)
    return out


def _diffs(
    values: Mapping[int, float | None],
    review: int | None,
    lower: bool,
    versus: Mapping[int, dict[str, Any] | None] | None = None,
) -> dict[str, dict[str, Any]]:
    """The drive under review's difference to each other drive, in percent of the other's
    value, and whether it is better. With `versus` (a measured figure: each drive's
    `versus_review` of GET /api/compare), the verdict is the significance test's (better or
    worse only when real, else within noise; one run: unknown) with the difference's 95%
    interval, and a drive without one (set apart) gets no difference; without it (prices),
    a difference under 0.5% is the same."""
    if review is None or values.get(review) is None:
        return {}
    mine = values[review]
    assert mine is not None
    out = {}
    for drive_id, other in values.items():
        if drive_id == review or other is None or other == 0:
            continue
        pct = (mine - other) / abs(other) * 100
        if versus is None:
            same = abs(pct) < 0.5
            out[str(drive_id)] = {
                "pct": pct,
                "verdict": "same" if same else ("better" if (pct < 0) == lower else "worse"),
                "low_pct": None,
                "high_pct": None,
            }
            continue
        test = versus.get(drive_id)
        if test is None:
            continue
        out[str(drive_id)] = {
            "pct": pct,
            "verdict": test["verdict"],
            "low_pct": test["low_pct"],
            "high_pct": test["high_pct"],
        }
    return out


def _row(
    key: str,
    label: str,
    unit: str,
    values: dict[int, float | None],
    review: int | None,
    lower: bool,
    performance: bool = True,
    conditions: str | None = None,
    versus: Mapping[int, dict[str, Any] | None] | None = None,
) -> dict[str, Any]:
    shown_unit, div = scale(values.values(), unit)
    ranked = [v for v in values.values() if v is not None]
    best = None
    if performance and len(ranked) > 1:
        best = min(ranked) if lower else max(ranked)
    return {
        "key": key,
        "label": label,
        "unit": shown_unit,
        "lower_is_better": lower,
        "performance": performance,
        "conditions": conditions,
        "values": {str(d): v for d, v in values.items()},
        "cells": {
            str(d): {
                "text": shown(None if v is None else v / div, shown_unit),
                "best": best is not None and v == best,
            }
            for d, v in values.items()
        },
        "diff": _diffs(values, review, lower, versus) if performance else {},
    }


def article(
    session: Session,
    drive_ids: list[int],
    under_review: int | None,
    currency: str = "USD",
    *,
    firmware: Sequence[str] = (),
    hide_embargoed: bool = False,
) -> dict[str, Any]:
    """The review of the drives in article order (see the module's docstring); with
    `firmware`, of one drive's firmware versions as if they were drives (firmware_article)."""
    from backend.core.errors import InvalidParams

    if firmware:
        return firmware_article(
            session, drive_ids, under_review, firmware, currency, hide_embargoed=hide_embargoed
        )
    if under_review is not None and under_review not in drive_ids:
        raise InvalidParams(
            f"under_review {under_review} is not among the drives {drive_ids}: choose one of them",
            field="under_review",
        )
    if under_review is None and len(drive_ids) == 1:
        under_review = drive_ids[0]
    drives = cmp._drives(session, drive_ids, hide_embargoed)
    # pydantic's JSON parser (Rust): the comparison's ~2 MB for five drives in ~9 ms, where
    # json.loads took ~22; the same values.
    comparison = from_json(
        # The mean of each drive's runs measured alike: what the significance of a difference
        # is judged on (one run: that run).
        cmp.compare_json(
            session, drive_ids, None, under_review, "mean", hide_embargoed=hide_embargoed
        )
    )
    latest = _latest_runs(session, drive_ids)
    columns = [
        _column(drives[d], d, d == under_review, drives[d].firmware or NO_FIRMWARE)
        for d in drive_ids
    ]
    return _assembled(session, columns, comparison["metrics"], under_review, currency, latest)


def _column(d: DriveSample, column: int, reviewed: bool, firmware: str) -> dict[str, Any]:
    """A column of the article: a drive (its id), or one firmware version's runs of it."""
    gb, text = _capacity(d.model.capacity_bytes)
    return {
        "id": column,
        "drive_id": d.id,
        "name": d.short_name or _short_label(d),
        "label": drive_label(d),
        "model": f"{d.model.vendor} {d.model.model}",
        "simulated": d.model.simulated,
        "under_review": reviewed,
        "capacity_gb": gb,
        "capacity": text,
        "firmware": firmware,
        "model_id": d.model_id,
    }


def _assembled(
    session: Session,
    columns: list[dict[str, Any]],
    metrics: list[dict[str, Any]],
    under_review: int | None,
    currency: str,
    latest: Mapping[tuple[int, str], int],
    *,
    by_firmware: int | None = None,
) -> dict[str, Any]:
    """The article of the columns (drives, or one drive's firmware versions) from their
    comparison's metrics and each column's latest finished run of each plan."""
    from backend.prices.service import lowest_current_prices

    ids = [c["id"] for c in columns]
    prices = lowest_current_prices(session, currency, {c["model_id"] for c in columns})
    steps = _steps_of(session, set(latest.values()))
    drive_rows = []
    for c in columns:
        row = {k: v for k, v in c.items() if k != "model_id"}
        price = prices.get(c["model_id"])
        gb = c["capacity_gb"]
        row["price"] = float(price.price) if price else None
        row["price_text"] = f"{float(price.price):,.2f} {currency}" if price else "no price"
        row["price_per_gb"] = float(price.price) / gb if price and gb else None
        drive_rows.append(row)
    # Firmware columns differ in firmware by design: not a condition to warn of on each row.
    headline = _headline(ids, metrics, under_review,
                         expected=("firmware",) if by_firmware is not None else ())  # fmt: skip
    headline += _value_rows(headline, drive_rows, ids, under_review, currency)
    used = {m for row in headline for m in row.pop("metrics", [])}
    where = "this firmware" if by_firmware is not None else "this drive"
    return {
        "under_review": under_review,
        "currency": currency,
        "by_firmware": by_firmware,
        "drives": drive_rows,
        "headline": headline,
        "findings": [{"drive_id": d, "findings": _findings(latest, steps, d, where)} for d in ids],
        "appendix": appendix(metrics, ids, exclude=used),
    }


def firmware_article(
    session: Session,
    drive_ids: list[int],
    under_review: int | None,
    firmware: Sequence[str],
    currency: str = "USD",
    *,
    hide_embargoed: bool = False,
) -> dict[str, Any]:
    """One drive's firmware versions side by side as if they were drives: a column for each
    version given, of the drive's finished runs that recorded it (the firmware the drive
    reported when the run started, else the one registered: backend.results.firmware), the
    version given last under review against the others. Every figure, interval and verdict is
    computed as for drives (backend.results.compare: each column's runs measured alike
    pooled, Welch's test with Benjamini-Hochberg over each plan's figures); the price is the
    drive's. A column's id is the version's place in `firmware` (1, 2, ...); `drive_id` and
    `by_firmware` name the drive."""
    from backend.core.errors import InvalidParams
    from backend.results.firmware import NOT_REPORTED

    if len(drive_ids) != 1:
        raise InvalidParams(
            f"firmware versions are compared on one drive, and drives gives {len(drive_ids)}: "
            "give one id, e.g. drives=7&firmware=1.01&firmware=1.02",
            field="drives",
        )
    if under_review is not None:
        raise InvalidParams(
            "with firmware, the version given last is under review: leave out under_review "
            "and list the version to review last, e.g. firmware=1.01&firmware=1.02",
            field="under_review",
        )
    if len(firmware) < 2:
        raise InvalidParams(
            f"give two firmware versions to compare, not {len(firmware)}: e.g. "
            "firmware=1.01&firmware=1.02 (the last under review)",
            field="firmware",
        )
    twice = sorted({fw for fw in firmware if firmware.count(fw) > 1})
    if twice:
        raise InvalidParams(
            f"firmware {', '.join(twice)} is given more than once: give each version once",
            field="firmware",
        )
    drive_id = drive_ids[0]
    d = cmp._drives(session, drive_ids, hide_embargoed)[drive_id]
    runs = cmp._runs(session, drive_ids)
    version_of = {
        run.id: cmp._run_info(run, d)[0].firmware or NOT_REPORTED
        for run in sorted(runs, key=lambda r: (r.finished_at, r.id))
    }
    measured = list(dict.fromkeys(version_of.values()))  # in the order first run
    missing = [fw for fw in firmware if fw not in measured]
    if missing:
        ran = (
            f"its runs recorded firmware {', '.join(measured)}"
            if measured
            else "it has no finished run yet"
        )
        raise InvalidParams(
            f"drive {drive_id} has no finished run on firmware {', '.join(missing)}: {ran} "
            f"(see GET /api/models/{d.model_id}/firmware)",
            field="firmware",
        )
    column_of = {fw: i for i, fw in enumerate(firmware, start=1)}
    review = len(firmware)
    mine = [r for r in runs if version_of[r.id] in column_of]
    shaped = [_as_column(r, column_of[version_of[r.id]]) for r in mine]
    base = d.short_name or _short_label(d)
    names = {c: f"{base} (fw {fw})" for fw, c in column_of.items()}
    comparison = cmp._compare(
        session, list(column_of.values()), dict.fromkeys(column_of.values(), d), shaped, None,
        review, "mean", names=names,
    )  # fmt: skip
    latest: dict[tuple[int, str], int] = {}
    for run in sorted(shaped, key=lambda r: (r.finished_at, r.id)):
        latest[run.drive_id, run.plan] = run.id
    columns = []
    for fw, c in column_of.items():
        col = _column(d, c, c == review, NO_FIRMWARE if fw == NOT_REPORTED else fw)
        col["name"] = names[c]
        col["label"] = f"{drive_label(d)}, firmware {fw}"
        columns.append(col)
    return _assembled(session, columns, comparison["metrics"], review, currency, latest,
                      by_firmware=drive_id)  # fmt: skip


def _as_column(run: Any, column: int) -> SimpleNamespace:
    """A row of compare._runs counted to a firmware column (as its drive_id)."""
    return SimpleNamespace(**{**run._mapping, "drive_id": column})


@cache
def _figure_pattern(plan: str, step: str, metric: str) -> re.Pattern[str]:
    """A headline figure's metric ids: plan and step are patterns, the metric is literal
    (compiled once: escaping and compiling per figure and metric id was a tenth of the
    article's time)."""
    return re.compile(f"{plan}:{step}:{re.escape(metric)}")


def _headline(
    drive_ids: list[int],
    metrics: list[dict[str, Any]],
    review: int | None,
    expected: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """The headline figures the drives have; a row measured under differing conditions says
    which (but those `expected` to differ)."""
    by_id = {m["metric"]: m for m in metrics}
    out = []
    for f in HEADLINE:
        values: dict[int, float | None] = {d: None for d in drive_ids}
        versus: dict[int, dict[str, Any] | None] = {}
        used: list[str] = []
        conditions = None
        pattern = _figure_pattern(f.plan, f.step, f.metric)
        ids = [mid for mid in by_id if "@" not in mid and pattern.fullmatch(mid)]
        # incompressible before compressible: "-incompressible" sorts after the plain name
        for mid in sorted(ids, key=lambda x: ("-compressible" in x, x)):
            m = by_id[mid]
            for r in m["rows"]:
                if values.get(r["drive_id"]) is None and r["drive_id"] in values:
                    values[r["drive_id"]] = r["value"]
                    versus[r["drive_id"]] = r.get("versus_review")
            differing = [c for c in m["differing"] if c not in expected]
            if differing:
                conditions = "measured differently: " + ", ".join(sorted(differing))
            used.append(mid)
        if all(v is None for v in values.values()):
            continue  # measured on none of the drives: no empty row
        row = _row(f.key, f.label, f.unit, values, review, f.lower_is_better,
                   conditions=conditions, versus=versus)  # fmt: skip
        row["metrics"] = used
        out.append(row)
    return out


def _value_rows(
    headline: list[dict[str, Any]],
    drives: list[dict[str, Any]],
    drive_ids: list[int],
    review: int | None,
    currency: str,
) -> list[dict[str, Any]]:
    """$/GB and performance per dollar (of the first value figure the drives have)."""
    price = {d["id"]: d["price"] for d in drives}
    if all(p is None for p in price.values()):
        return []
    per_gb = {d["id"]: d["price_per_gb"] for d in drives}
    out = [_row("price-per-gb", f"Price per GB ({currency})", f"{currency}/GB", per_gb, review,
                True)]  # fmt: skip
    by_key = {r["key"]: r for r in headline}
    for key in VALUE_FIGURES:
        row = by_key.get(key)
        if row is None:
            continue
        raw = {d: row["values"][str(d)] for d in drive_ids}
        per = {d: (v / price[d] if v is not None and price[d] else None) for d, v in raw.items()}
        if any(v is not None for v in per.values()):
            base_unit = {"randwrite-qd32": "IOPS", "seqread": "MB/s"}.get(key, "MB/s")
            out.append(_row(f"per-dollar-{key}", f"{row['label']} per {currency}",
                            f"{base_unit}/{currency}", per, review, False))  # fmt: skip
            break
    return out


# --- findings in words ---------------------------------------------------------------------


def _pct(x: float) -> str:
    return f"{x:.0f}%" if x >= 10 else f"{x:.2g}%"


def _seconds(x: float) -> str:
    return f"{x * 1000:.0f} ms" if x < 1 else f"{x:.1f} s"


def _iops(x: float) -> str:
    return f"{x / 1000:.1f}K IOPS" if x >= 10_000 else f"{x:,.0f} IOPS"


def hdtach_words(direction: str, analysis: Mapping[str, Any]) -> str:
    """Words for an HD Tach pass, from its stored analysis: "Write speed steps down at 25%
    of the span, from 400 to 200 MB/s; again at 80%, to 75 MB/s"."""
    what = "Write" if direction == "write" else "Read"
    downs = analysis.get("step_downs") or []
    avg = (analysis.get("hdtach") or {}).get("average_mbps")
    if not downs:
        tail = f" at {number(avg)} MB/s on average" if avg is not None else ""
        return f"{what} speed holds across the span{tail}: no step-down found."
    first = downs[0]
    text = (
        f"{what} speed steps down at {_pct(first['at_pct'])} of the span, from "
        f"{number(first['from_mbps'])} to {number(first['to_mbps'])} MB/s{_heat(first)}"
    )
    for d in downs[1:]:
        text += f"; again at {_pct(d['at_pct'])}, to {number(d['to_mbps'])} MB/s{_heat(d)}"
    return text + "."


def _heat(found: Mapping[str, Any]) -> str:
    """Whether heat explains a step-down, in words after it: " (heat: throttled at 78 °C
    after 94 s, from 6.8 GB/s to 2.1 GB/s)"; nothing for one found before heat was told."""
    words = heat_words(found.get("heat"))
    return f" ({words})" if words else ""


def stall_words(label: str, stalls: Mapping[str, Any]) -> str:
    """Words for stalls: "Sequential writes stall 3 times, for up to 1.5 s, about every 20 s"."""
    count = int(stalls.get("count") or 0)
    if count == 0:
        return f"{label}: no stalls found."
    longest = float(stalls.get("longest_s") or 0.0)
    text = f"{label} stall {count} time{'s' if count != 1 else ''}, for up to {_seconds(longest)}"
    period = stalls.get("period_s")
    if period:
        text += f", about every {_seconds(float(period))}"
    return text + "."


def _gb(x: float) -> str:
    return f"{x:.3g} GB"


def slc_words(
    fill: Mapping[str, Any] | None,
    refills: Sequence[Mapping[str, Any]],
    step_down: Mapping[str, Any] | None = None,
) -> str:
    """Words for an SLC cache run, from its fill's and refills' stored findings: "SLC cache:
    48 GB written at 3,100 MB/s before writes fall to 900 MB/s; recovered after 10 s idle:
    5.2 GB, after 25 s: at least 12 GB"."""
    if fill is not None and fill.get("cache_gb") is not None:
        text = (
            f"SLC cache: {_gb(float(fill['cache_gb']))} written at "
            f"{number(fill.get('cache_mbps'))} MB/s before writes fall to "
            f"{number(fill.get('after_mbps'))} MB/s{_heat(step_down or {})}"
        )
    elif fill is not None:
        text = f"No SLC cache seen in the fill ({fill.get('note') or 'no step-down'})"
    else:
        text = "SLC cache: the fill did not finish"
    parts = []
    for r in refills:
        idle = r.get("idle_measured_s") or r.get("idle_s")
        when = f"after {_seconds(float(idle))} idle" if idle is not None else "after the idle"
        got = r.get("recovered_gb")
        if got is None:
            what = "unknown"
        elif r.get("at_least"):
            what = f"at least {_gb(float(got))} (the whole refill)"
        elif got == 0:
            what = f"none (under {_gb(float(r.get('resolution_gb') or 0))})"
        else:
            what = _gb(float(got))
        parts.append(f"{when}: {what}")
    if parts:
        text += "; recovered " + ", ".join(parts)
    return text + "."


def thermal_words(phase: Mapping[str, Any], cool: Mapping[str, Any] | None) -> str:
    """Words for a thermal run's heat phase and the cool phase after it: "Sustained writes
    throttle after 94 s at 78 °C, from 6.8 GB/s to 2.1 GB/s; peak 82 °C; back within 5 °C of
    the start in 40 s"."""
    what = "Sustained reads" if phase.get("direction") == "read" else "Sustained writes"
    first = phase.get("first_throttle")
    if first:
        temp = first.get("temp_c")
        at = f" at {temp:.0f} °C" if isinstance(temp, int | float) else ""
        text = (
            f"{what} throttle after {_seconds(float(first['at_s']))}{at}, from "
            f"{number(first['from_mbps'])} to {number(first['to_mbps'])} MB/s"
        )
    else:
        text = (
            f"{what} hold {number(phase.get('mean_mbps'))} MB/s for "
            f"{_seconds(float(phase.get('duration_s') or 0))} with no throttle"
        )
    peak = phase.get("peak_c")
    text += f"; peak {peak:.0f} °C" if isinstance(peak, int | float) else "; no temperature read"
    if cool is not None and cool.get("target_c") is not None:
        if cool.get("recovered"):
            text += (
                f"; back within {cool['within_c']:g} °C of the start in "
                f"{_seconds(float(cool['recover_s']))}"
            )
        else:
            text += (
                f"; still above {cool['target_c']:.0f} °C after "
                f"{_seconds(float(cool.get('duration_s') or 0))} of cooling"
            )
    return text + "."


def _findings(
    latest: Mapping[tuple[int, str], int],
    steps: Mapping[int, list[Step]],
    drive_id: int,
    where: str = "this drive",
) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []

    def done(plan: str) -> list[Step]:
        run_id = latest.get((drive_id, plan))
        return [s for s in steps.get(run_id, [])] if run_id is not None else []

    hd = [s for s in done("hdtach") if s.analysis and s.analysis.get("hdtach")]
    if hd:
        for s in hd:
            direction = str(s.analysis.get("direction") or "write")  # type: ignore[union-attr]
            if s.name == f"hdtach-{direction}":
                out.append({"topic": "hdtach", "text": hdtach_words(direction, s.analysis or {})})
    else:
        out.append({"topic": "hdtach", "text": "Write speed across the span: not measured "
                                                f"(no HD Tach run on {where})."})  # fmt: skip

    hitch = [s for s in done("write-hitching") if s.analysis and s.analysis.get("stalls")]
    if hitch:
        for s in hitch:
            kind = "Sequential writes" if "seq" in s.name else "Random writes"
            label = str((s.params or {}).get("label") or "")
            text = stall_words(kind, s.analysis["stalls"])  # type: ignore[index]
            out.append({"topic": "stalls", "text": f"{text[:-1]} ({label})." if label else text})
    else:
        out.append({"topic": "stalls", "text": "Write stalls: not measured (no write-hitching "
                                               f"run on {where})."})  # fmt: skip

    # The file copy (PCPer's File Copy Test) only where it was run: few reviews do.
    for s in done("file-copy"):
        copied = (s.analysis or {}).get("file_copy")
        if copied:
            said = "; ".join(copied["words"][:2])
            out.append({"topic": "file-copy", "text": f"File copy: {said}."})

    cons = [s for s in done("consistency") if s.analysis and s.analysis.get("consistency")]
    if cons:
        a = cons[0].analysis or {}
        mean = (a.get("consistency") or {}).get("mean")
        drop = a.get("dropoff") or {}
        if a.get("dropoff_s") is not None and drop.get("fob_iops"):
            out.append({"topic": "consistency", "text": (
                f"Random writes fall from {_iops(drop['fob_iops'])} fresh out of the box after "
                f"{_seconds(float(a['dropoff_s']))}, to a steady {_iops(float(mean or 0))}"
                f"{_heat(drop)}."
            )})  # fmt: skip
        elif mean is not None:
            out.append({"topic": "consistency", "text": (
                f"Random writes hold {_iops(float(mean))} with no drop-off found."
            )})  # fmt: skip
    else:
        missing = f"Performance consistency: not measured (no consistency run on {where})."
        out.append({"topic": "consistency", "text": missing})

    pts = [
        s for s in done("pts-steady-state")
        if s.analysis and (s.analysis.get("pts") or {}).get("convergence")
    ]  # fmt: skip
    if pts:
        conv = pts[0].analysis["pts"]["convergence"]  # type: ignore[index]
        if conv.get("steady"):
            out.append({"topic": "steady-state", "text": (
                f"Steady state from round {conv.get('round')} (of {conv.get('rounds')})."
            )})  # fmt: skip
        else:
            out.append({"topic": "steady-state", "text": (
                f"No steady state within {conv.get('rounds')} rounds."
            )})  # fmt: skip
    else:
        out.append({"topic": "steady-state", "text": "SNIA PTS steady state: not measured "
                                                     f"(no run on {where})."})  # fmt: skip

    # Plans a review runs when it has room for them: words only where the drive ran them.
    slc = [s for s in done("slc-cache") if s.analysis and s.analysis.get("slc")]
    if slc:
        found = [s.analysis or {} for s in slc]
        fill = next((a for a in found if a["slc"].get("kind") == "fill"), None)
        refills = [a["slc"] for a in found if a["slc"].get("kind") == "refill"]
        downs = (fill or {}).get("step_downs") or [None]
        text = slc_words(fill["slc"] if fill else None, refills, downs[0])
        out.append({"topic": "slc-cache", "text": text})

    phases = [
        s.analysis["thermal"]  # type: ignore[index]
        for s in sorted(done("thermal"), key=lambda s: s.idx)
        if s.analysis and isinstance(s.analysis.get("thermal"), dict)
    ]
    for k, phase in enumerate(phases):
        if phase.get("kind") != "heat":
            continue
        after = phases[k + 1] if k + 1 < len(phases) else None
        cool = after if after is not None and after.get("kind") == "cool" else None
        out.append({"topic": "thermal", "text": thermal_words(phase, cool)})
    bursts = [s for s in done("qd1-bursts") if s.analysis and s.analysis.get("bursts")]
    if bursts:
        out.append({"topic": "bursts", "text": burst_words([s.analysis["bursts"] for s in bursts])})  # type: ignore[index]
    # Mixed random and mixed sequential (plan mixed), where the drive ran it: each part's
    # curve in its own words (backend.analysis.mixed).
    for s in done("mixed"):
        part = (s.analysis or {}).get("mixed")
        if part and part.get("note"):
            out.append({"topic": "mixed", "text": str(part["note"])})

    # The AS-SSD-style table in words, where the drive ran it (a preset few reviews run).
    asssd = [s for s in done("as-ssd-style") if s.analysis and s.analysis.get("asssd")]
    if asssd:
        a = asssd[-1].analysis["asssd"]  # type: ignore[index]
        out.append({"topic": "as-ssd", "text": (
            f"AS-SSD-style: {a['words']}; the score's {a['score_source']}."
        )})  # fmt: skip

    # SNIA PTS demand intensity (DIRTH, ECW): said where the drive ran one.
    for plan, name in (("pts-dirth", "DIRTH"), ("pts-ecw", "ECW")):
        for s in done(plan):
            di = ((s.analysis or {}).get("pts") or {}).get("di") or {}
            if di.get("finding"):
                stimulus = (s.params or {}).get("stimulus")
                about = f"SNIA PTS {name}" + (f" ({stimulus})" if stimulus else "")
                out.append({"topic": "demand-intensity", "text": f"{about}: {di['finding']}."})

    # Plan full-drive, where it ran: each test's drop from empty to full, in its own words.
    for s in done("full-drive"):
        state = (s.analysis or {}).get("fullstate")
        if state and state.get("said"):
            out.append({"topic": "full-drive", "text": f"{state['said']}."})
    return out


def burst_words(tests: Sequence[Mapping[str, Any]]) -> str:
    """Words for the QD1 burst tests: "QD1 bursts: 4K random read 10.2K IOPS, ..., 128K
    sequential write 1,450 MB/s (the mean of each test's bursts; they differ by up to 3.1%)"."""
    parts = []
    for t in tests:
        label = str(t.get("label") or t.get("test")).removesuffix(", QD1")
        if str(t.get("test", "")).startswith("seq"):
            parts.append(f"{label} {number(float(t['mbps_mean']))} MB/s")
        else:
            parts.append(f"{label} {_iops(float(t['iops_mean']))}")
    spread = max(float(t.get("iops_spread_pct") or 0.0) for t in tests)
    return (
        f"QD1 bursts: {', '.join(parts)} (the mean of each test's bursts; a burst's figure "
        f"differs from its test's mean by {spread:.1f}% in standard deviation at most)."
    )


# --- the appendix --------------------------------------------------------------------------


def appendix(
    metrics: Sequence[Mapping[str, Any]], drive_ids: Sequence[int], exclude: Iterable[str] = ()
) -> list[dict[str, Any]]:
    """Every other result, grouped by plan and test (in the order of PLAN_NAMES, tests and
    measures in natural order), units scaled per row, only performance figures ranked; a
    group's warnings once."""
    from backend.results.names import PLAN_NAMES

    skip = set(exclude)
    plans = list(PLAN_NAMES.values())
    groups: dict[tuple[str, str], list[Mapping[str, Any]]] = defaultdict(list)
    for m in metrics:
        if m["metric"] in skip:
            continue
        groups[m["names"]["plan"], m["names"]["test"]].append(m)

    def group_key(k: tuple[str, str]) -> tuple[Any, ...]:
        plan, test = k
        return (plans.index(plan) if plan in plans else len(plans), plan, natural_key(test))

    out = []
    for plan, test in sorted(groups, key=group_key):
        found = sorted(groups[plan, test], key=lambda m: measure_key(m["names"]["measure"]))
        warnings: list[str] = []
        rows = []
        for m in found:
            for w in m["warnings"]:
                if w not in warnings:
                    warnings.append(w)
            values: dict[int, float | None] = {d: None for d in drive_ids}
            apart: dict[str, str] = {}
            for r in m["rows"]:
                if r["drive_id"] in values:
                    values[r["drive_id"]] = r["value"]
                    if r["set_apart"]:
                        apart[str(r["drive_id"])] = r["set_apart"]
            ranked = {d: v for d, v in values.items() if str(d) not in apart}
            row = _row(m["metric"], m["names"]["measure"], m["unit"], values, None,
                       m["lower_is_better"], m["performance"])  # fmt: skip
            # Only rows measured alike are ranked: the best among them.
            if m["performance"]:
                best_of = [v for v in ranked.values() if v is not None]
                best = (min if m["lower_is_better"] else max)(best_of) if len(best_of) > 1 else None
                for d, cell in row["cells"].items():
                    cell["best"] = best is not None and d not in apart and values[int(d)] == best
            row["set_apart"] = apart
            rows.append(row)
        out.append({"plan": plan, "test": test, "warnings": warnings, "rows": rows})
    return out
