from __future__ import annotations

import tempfile
from datetime import datetime

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response
from pydantic import BaseModel, Field

from backend.core.deps import BenchAuth, CurrentUser, Reviewer, SessionDep
from backend.core.jsonbody import FiniteJSONRoute
from backend.traces import service
from backend.traces.models import Trace

router = APIRouter(tags=["traces"], route_class=FiniteJSONRoute)


class TraceOut(BaseModel):
    id: int
    name: str
    format: str
    size_bytes: int
    ios: int
    read_bytes: int
    write_bytes: int
    end_bytes: int | None = Field(
        description="The end of the furthest range the trace touches: a drive must hold this "
        "many bytes to replay it (null: uploaded before this was recorded; upload it again)."
    )
    align_bytes: int | None = Field(
        description="Every read and write length is a multiple of this (at most 4096): a "
        "drive with a larger logical sector cannot replay the trace."
    )
    sha256: str
    created_at: datetime


def trace_out(t: Trace) -> TraceOut:
    return TraceOut(
        id=t.id,
        name=t.name,
        format=t.format,
        size_bytes=t.size_bytes,
        ios=t.ios,
        read_bytes=t.read_bytes,
        write_bytes=t.write_bytes,
        end_bytes=t.end_bytes,
        align_bytes=t.align_bytes,
        sha256=t.sha256,
        created_at=t.created_at,
    )


@router.post(
    "/api/traces",
    response_model=TraceOut,
    status_code=201,
    openapi_extra={
        "requestBody": {
            "content": {
                "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}
            },
            "required": True,
        }
    },
)
async def upload_trace(
    request: Request,
    session: SessionDep,
    _user: Reviewer,
    name: str = Query(..., min_length=1, max_length=200),
) -> TraceOut:
    """Upload a trace for `trace-replay` as the raw request body: a fio iolog (v2/v3) or a
    blktrace binary, up to 256 MiB. Its read and write byte totals are returned."""
    # Spooled to a temporary file as it arrives (the api's body limit refuses more than 256
    # MiB before reading it): in memory once, to be summarised and stored, not twice as when
    # the chunks were gathered in memory and then copied.
    with tempfile.TemporaryFile(prefix="drivelab-trace-") as spool:
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > service.MAX_TRACE_BYTES:
                break
            spool.write(chunk)
        spool.seek(0)
        data = spool.read() if size <= service.MAX_TRACE_BYTES else b""
    if size > service.MAX_TRACE_BYTES:
        raise service.TooLarge(
            f"the trace is larger than {service.MAX_TRACE_BYTES // 2**20} MiB: trim it or "
            "replay a shorter window"
        )
    trace = await run_in_threadpool(service.add_trace, session, name, data)
    return trace_out(trace)


@router.get("/api/traces", response_model=list[TraceOut])
def list_traces(session: SessionDep, _user: CurrentUser) -> list[TraceOut]:
    return [trace_out(t) for t in service.list_traces(session)]


@router.get(
    "/api/worker/traces/{trace_id}",
    response_class=Response,
    responses={
        200: {"content": {"application/octet-stream": {}}},
        403: {"description": "No queued or running run of this bench replays the trace."},
        404: {"description": "No such trace."},
    },
)
def download_trace(trace_id: int, session: SessionDep, bench: BenchAuth) -> Response:
    """The trace's bytes, for the worker that replays it: a bench's token reads a trace only
    while a queued or running run on one of its drives replays it (403 otherwise)."""
    service.check_bench_may_read(session, bench, trace_id)
    trace = service.get_trace(session, trace_id, with_data=True)
    return Response(trace.data, media_type="application/octet-stream")
