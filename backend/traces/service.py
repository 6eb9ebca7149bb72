from __future__ import annotations

import hashlib

from sqlalchemy import select
from sqlalchemy.orm import Session, undefer

from backend.benches.models import Bench
from backend.core.errors import DrivelabError, Forbidden, InvalidParams, NotFound
from backend.traces.formats import TraceFormatError, summarise
from backend.traces.models import Trace

MAX_TRACE_BYTES = 256 * 1024 * 1024


class TooLarge(DrivelabError):
    status_code = 413


def add_trace(session: Session, name: str, data: bytes) -> Trace:
    if not data:
        raise InvalidParams("the upload is empty: send the trace file as the request body")
    if len(data) > MAX_TRACE_BYTES:
        raise TooLarge(
            f"the trace is {len(data) / 2**20:.0f} MiB; the limit is "
            f"{MAX_TRACE_BYTES // 2**20} MiB: trim it or replay a shorter window"
        )
    try:
        summary = summarise(data)
    except TraceFormatError as exc:
        raise InvalidParams(str(exc), field="file") from None
    trace = Trace(
        name=name,
        format=summary.format,
        size_bytes=len(data),
        ios=summary.ios,
        read_bytes=summary.read_bytes,
        write_bytes=summary.write_bytes,
        end_bytes=summary.end_bytes,
        align_bytes=summary.align_bytes,
        sha256=hashlib.sha256(data).hexdigest(),
        data=data,
    )
    session.add(trace)
    session.flush()
    return trace


def get_trace(session: Session, trace_id: int, *, with_data: bool = False) -> Trace:
    query = select(Trace).where(Trace.id == trace_id)
    if with_data:
        query = query.options(undefer(Trace.data))
    trace = session.scalar(query)
    if trace is None:
        raise NotFound(
            f"trace {trace_id} does not exist: upload it with POST /api/traces",
            field="params.trace_id",
        )
    return trace


def list_traces(session: Session) -> list[Trace]:
    return list(session.scalars(select(Trace).order_by(Trace.id.desc())))


def check_bench_may_read(session: Session, bench: Bench, trace_id: int) -> None:
    """A worker's token reads only what its own runs need: the trace of a step of a queued or
    running run on one of its bench's drives. Checked before the trace is looked up, so other
    benches learn nothing of which traces exist."""
    from backend.drives.models import DriveSample
    from backend.runs.models import RUN_ACTIVE, Run, Step

    used = session.scalar(
        select(Step.id)
        .join(Run, Run.id == Step.run_id)
        .join(DriveSample, DriveSample.id == Run.drive_id)
        .where(
            DriveSample.bench_id == bench.id,
            Run.status.in_(RUN_ACTIVE),
            Step.params["trace_id"].as_integer() == trace_id,
        )
        .limit(1)
    )
    if used is None:
        raise Forbidden(
            f"no queued or running run on bench {bench.name} replays trace {trace_id}: a "
            "worker reads only the traces of its own runs"
        )
