from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from sqlalchemy import select

from backend.audit import service as audit
from backend.benches.models import Bench
from backend.benches.service import (
    ensure_bench,
    get_bench_by_name,
    is_online,
    worker_setup,
)
from backend.core.deps import Admin, CurrentUser, SessionDep, StateDep
from backend.core.errors import Conflict, NotFound
from backend.core.jsonbody import FiniteJSONRoute
from backend.drives import registration

router = APIRouter(prefix="/api/benches", tags=["benches"], route_class=FiniteJSONRoute)


class BenchSummary(BaseModel):
    id: int
    name: str
    online: bool
    last_seen_at: datetime | None
    host_info: dict
    devices_reported: bool = Field(
        description="Its worker has reported its devices since it started "
        "(GET /api/benches/{name}/devices answers 409 until then)."
    )


class BenchCreate(BaseModel):
    name: str = Field(
        pattern=r"^[a-z0-9][a-z0-9_-]{0,62}$",
        description="lower-case letters, digits, - and _; the queue is bench.NAME",
    )


class WorkerCommand(BaseModel):
    api_url: str = Field(description="The api as the worker reaches it.")
    broker_url: str = Field(description="The broker as the worker reaches it, with its password.")
    lines: list[str] = Field(
        description="Shell lines that start the worker: exports, then `drivelab worker`."
    )
    notes: list[str] = Field(description="Placeholders to fill in; where the command works.")


class BenchToken(BaseModel):
    name: str
    token: str = Field(description="Shown once: give it to the worker (DRIVELAB_TOKEN).")
    worker: WorkerCommand = Field(
        description="The complete worker command for this installation, token included."
    )


def _with_worker(name: str, token: str, request: Request, state: StateDep) -> BenchToken:
    setup = worker_setup(
        name,
        token,
        api_address=state.settings.public_url or str(request.base_url),
        broker_url=state.settings.redis_url,  # the broker the api sends runs to
        broker_public_url=state.settings.broker_public_url,
        broker_ca=state.settings.broker_ca,
    )
    return BenchToken(
        name=name,
        token=token,
        worker=WorkerCommand(
            api_url=setup.api_url, broker_url=setup.broker_url, lines=setup.lines, notes=setup.notes
        ),
    )


@router.get("", response_model=list[BenchSummary])
def list_benches(session: SessionDep, _user: CurrentUser) -> list[BenchSummary]:
    return [
        BenchSummary(
            id=b.id,
            name=b.name,
            online=is_online(b),
            last_seen_at=b.last_seen_at,
            host_info=b.host_info,
            devices_reported=registration.reported(b) is not None,
        )
        for b in session.scalars(select(Bench).order_by(Bench.name))
    ]


@router.post("", response_model=BenchToken, status_code=201)
def add_bench(
    data: BenchCreate, session: SessionDep, user: Admin, request: Request, state: StateDep
) -> BenchToken:
    """Register a bench and issue its worker token (admins only), with the command that
    starts its worker against this installation."""
    if get_bench_by_name(session, data.name) is not None:
        raise Conflict(
            f"bench {data.name} exists: use POST /api/benches/{data.name}/token "
            "to issue a new token"
        )
    _bench, token = ensure_bench(session, data.name)
    audit.record(session, "bench.token_created", user, subject=f"bench {data.name}")
    return _with_worker(data.name, token, request, state)


@router.post("/{name}/token", response_model=BenchToken)
def rotate_token(
    name: str, session: SessionDep, user: Admin, request: Request, state: StateDep
) -> BenchToken:
    """Issue a new token for a bench; the old one stops working at once."""
    bench = get_bench_by_name(session, name)
    if bench is None:
        raise Conflict(f"bench {name} does not exist: create it with POST /api/benches")
    had_token = bench.token_hash is not None
    _bench, token = ensure_bench(session, name)
    audit.record(
        session,
        "bench.token_rotated" if had_token else "bench.token_created",
        user,
        subject=f"bench {name}",
    )
    return _with_worker(name, token, request, state)


@router.delete("/{name}/token", status_code=204)
def revoke_token(name: str, session: SessionDep, user: Admin) -> None:
    """Revoke a bench's token: its worker is refused until it gets a new one (POST)."""
    bench = get_bench_by_name(session, name)
    if bench is None:
        raise NotFound(f"bench {name} does not exist")
    if bench.token_hash is not None:
        bench.token_hash = None
        audit.record(session, "bench.token_revoked", user, subject=f"bench {name}")


@router.get("/{name}/devices", response_model=list[dict])
def bench_devices(name: str, session: SessionDep, _user: CurrentUser) -> list[dict]:
    """What the bench's worker reports, to register a drive from (worker/report.py): every
    block device (serial, model, firmware, size, transport, LBA size, its /dev/disk/by-id
    names; `system`: why it is the disk the system runs from; `in_use`: mounted, swap,
    holders; `simulated`: a loop device; `emulated`: a virtual bench's controller), then the
    files in its sandbox with their serials. 409 until the worker has reported."""
    bench = get_bench_by_name(session, name)
    if bench is None:
        raise NotFound(f"bench {name} does not exist")
    devices = registration.reported(bench)
    if devices is None:
        raise Conflict(
            f"the worker of bench {name} has not reported its devices yet; is it running? "
            f"(`drivelab worker --bench {name}`)"
        )
    return devices
