"""Shared comparisons: a reviewer picks drives and metrics; anyone with the link reads the
comparison, computed afresh on every read and honouring embargoes (a drive under embargo is
left out until the embargo ends)."""

from __future__ import annotations

from typing import Any

from pydantic_core import from_json
from sqlalchemy import select, update
from sqlalchemy.orm import Session, joinedload

from backend.core.db import utcnow
from backend.core.errors import InvalidParams, NotFound
from backend.core.security import hash_token, new_secret
from backend.drives.service import drive_label, visible_drive_ids
from backend.results.compare import _drives, compare, compare_json, per_dollar
from backend.results.compare_series import compare_series
from backend.results.qos_compare import compare_latency, compare_sweeps, step_names
from backend.shares.models import Share
from backend.shares.schemas import ShareCreate
from backend.users.models import User


def create_share(session: Session, data: ShareCreate, user: User) -> tuple[Share, str]:
    """(share, its token: shown once)."""
    drives = list(dict.fromkeys(data.drives))
    if data.under_review is not None and data.under_review not in drives:
        raise InvalidParams(
            f"under_review {data.under_review} is not among the drives {drives}",
            field="under_review",
        )
    for field, names in (("metrics", data.metrics or []), ("added_metrics", data.added_metrics)):
        for m in names:
            if m.count(":") != 2:
                raise InvalidParams(
                    f"metric {m!r} is not plan:step:metric, e.g. "
                    "four-corners:randread-4k-qd3:read_mbps",
                    field=field,
                )
    if data.metrics is not None:
        outside = [m for m in data.added_metrics if m not in data.metrics]
        if outside:
            raise InvalidParams(
                f"added_metrics {outside} are not among the shared metrics: add them to metrics "
                "or leave metrics out (every metric)",
                field="added_metrics",
            )
    # Checks that the drives exist (and computes nothing that is kept).
    compare(session, drives, data.metrics, data.under_review)
    raw = new_secret()
    share = Share(
        token_hash=hash_token(raw),
        title=data.title.strip(),
        drive_ids=drives,
        metrics=data.metrics,
        added_metrics=list(dict.fromkeys(data.added_metrics)),
        under_review=data.under_review,
        created_by=user.id,
    )
    session.add(share)
    session.flush()
    return share, raw


def list_shares(session: Session) -> list[tuple[Share, str | None]]:
    """Every share with its maker's name, newest first."""
    rows = session.execute(
        select(Share, User.name)
        .outerjoin(User, User.id == Share.created_by)
        .order_by(Share.id.desc())
    )
    return [(s, name) for s, name in rows]


def drive_names(session: Session, drive_ids: set[int]) -> dict[int, str]:
    """Drives by id, named as the pages name them (short name, else label)."""
    from backend.drives.models import DriveSample

    if not drive_ids:
        return {}
    found = session.scalars(
        select(DriveSample)
        .where(DriveSample.id.in_(drive_ids))
        .options(joinedload(DriveSample.model))
    )
    return {d.id: d.short_name or drive_label(d) for d in found}


def count_view(session: Session, share: Share) -> None:
    """One more opening of the shared page, counted in the database (concurrent readers add
    up: the increment is SQL's, not a value read and written back)."""
    session.execute(
        update(Share)
        .where(Share.id == share.id)
        .values(views=Share.views + 1, last_viewed_at=utcnow())
    )


def find_share(session: Session, ref: str) -> Share:
    """By id (digits) or by token."""
    query = select(Share)
    by_id = ref.isascii() and ref.isdigit() and len(ref) < 12
    if by_id:
        query = query.where(Share.id == int(ref))
    else:
        query = query.where(Share.token_hash == hash_token(ref))
    share = session.scalar(query)
    if share is None:
        raise NotFound(f"no share {ref if by_id else '(token)'}: see GET /api/shares")
    return share


def revoke_share(session: Session, ref: str) -> Share:
    share = find_share(session, ref)
    if share.revoked_at is None:
        share.revoked_at = utcnow()
    return share


def live_share(session: Session, token: str) -> tuple[Share, list[int], int | None]:
    """(the share a token opens, its drives not under embargo, the drive under review if it is
    one of them); 404 once revoked."""
    share = session.scalar(
        select(Share).where(Share.token_hash == hash_token(token), Share.revoked_at.is_(None))
    )
    if share is None:
        raise NotFound("this shared link does not exist or was revoked: ask for a new one")
    visible = visible_drive_ids(session, share.drive_ids)
    drives = [d for d in share.drive_ids if d in visible]
    under_review = share.under_review if share.under_review in visible else None
    return share, drives, under_review


def shared_drives(session: Session, drive_ids: list[int]) -> list[dict[str, Any]]:
    """What a shared page shows of its drives: label, short name, simulated."""
    found = _drives(session, drive_ids, hide_embargoed=True) if drive_ids else {}
    return [
        {
            "id": d,
            "label": drive_label(found[d]),
            "short_name": found[d].short_name,
            "simulated": found[d].model.simulated,
        }
        for d in drive_ids
    ]


def shared_comparison(session: Session, token: str) -> tuple[Share, int | None, dict[str, Any]]:
    """(share, the drive under review if visible, the comparison)."""
    share, drives, under_review = live_share(session, token)
    if not drives:
        return share, None, {"aggregate": "latest", "metrics": [], "missing": share.metrics or []}
    comparison = from_json(
        compare_json(session, drives, share.metrics, under_review, hide_embargoed=True)
    )
    return share, under_review, comparison


def shared_series(
    session: Session, token: str, plan: str, metric: str | None, points: int, op: int | None
) -> dict[str, Any]:
    """A chart family of the shared comparison (as GET /api/compare/series)."""
    _share, drives, _review = live_share(session, token)
    if not drives:
        return {"plan": plan, "metric": metric or "", "op_percent": op, "drives": [],
                "missing": [], "warnings": []}  # fmt: skip
    return compare_series(session, drives, plan, metric, points, op, hide_embargoed=True)


def shared_value(session: Session, token: str, metric: str, currency: str) -> dict[str, Any]:
    """Performance per dollar of the shared comparison's drives (as GET /api/compare/value)."""
    _share, drives, _review = live_share(session, token)
    if not drives:
        return {"metric": metric, "unit": "", "rows": [], "unpriced": []}
    return per_dollar(session, drives, metric, currency, hide_embargoed=True)


def shared_latency(session: Session, token: str, plan: str, step: str) -> dict[str, Any]:
    """One test's latency QoS for the shared comparison's drives (as GET /api/compare/latency)."""
    _share, drives, under_review = live_share(session, token)
    if not drives:
        return {"plan": plan, "step": step, "drives": [], "missing": [], "warnings": []}
    return compare_latency(session, drives, plan, step, under_review, hide_embargoed=True)


def shared_sweeps(session: Session, token: str) -> dict[str, Any]:
    """The shared comparison's drives' queue-depth sweeps (as GET /api/compare/qd-sweep)."""
    _share, drives, under_review = live_share(session, token)
    if not drives:
        return {"plan": "qd-sweep", "drives": [], "missing": [], "warnings": []}
    return compare_sweeps(session, drives, under_review, hide_embargoed=True)


def shared_latency_steps(session: Session, token: str, plan: str) -> list[str]:
    """The steps with a latency histogram in the shared drives' latest runs of `plan`."""
    _share, drives, _review = live_share(session, token)
    return step_names(session, drives, plan) if drives else []
