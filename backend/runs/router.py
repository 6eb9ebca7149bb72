from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import redis.asyncio as aioredis
from fastapi import APIRouter, Query, Request
from fastapi.responses import Response, StreamingResponse

from backend.core.deps import AppState, CurrentUser, Reviewer, SessionDep, StateDep
from backend.core.events import lab_channel, run_channel, sse, visibility_key
from backend.core.jsonbody import FiniteJSONRoute
from backend.core.redis_tls import RedisTarget
from backend.drives.service import sees_embargoed
from backend.runs import service
from backend.runs.models import RUN_FINAL
from backend.runs.schemas import JobOut, RunCreate, RunMove, RunOut, RunSummary, SampleOut

router = APIRouter(prefix="/api/runs", tags=["runs"], route_class=FiniteJSONRoute)


@router.post("", response_model=RunOut, status_code=201)
def queue_run(data: RunCreate, session: SessionDep, state: StateDep, user: Reviewer) -> RunOut:
    """Validate, compile and queue a plan on a drive. Plans that write need `confirm_serial`."""
    run = service.create_run(session, state, data, user)
    return service.run_out(session, run)


@router.get("", response_model=list[RunSummary])
def list_runs(
    session: SessionDep,
    user: CurrentUser,
    limit: int = Query(50, ge=1, le=500),
    drive_id: int | None = None,
    status: str | None = None,
) -> list[RunSummary]:
    return service.list_runs(
        session,
        limit=limit,
        drive_id=drive_id,
        status=status,
        hide_embargoed=not sees_embargoed(user),
    )


KEEPALIVE_S = 15.0
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


# How long a stream trusts what it last read of a run's visibility while nothing changed it
# (an embargo that ends by itself shows within this); an embargo set, lifted or a drive given
# another model raises the visibility counter, and streams read again at their next event.
VISIBILITY_TTL_S = 10.0


class Visibility:
    """Whether the viewer of a stream may still see a run, for those who do not see
    embargoed drives: re-read from the database when the visibility counter moved (or after
    VISIBILITY_TTL_S), so that an embargo set while a stream is open takes effect at its next
    event, without a database query per event per viewer."""

    def __init__(self, state: AppState, client: aioredis.Redis, hide_embargoed: bool) -> None:
        self.state = state
        self.client = client
        self.hide = hide_embargoed
        self.generation: bytes | str | None = None
        self.known: dict[int, tuple[float, bool]] = {}

    async def visible(self, run_id: int) -> bool:
        if not self.hide:
            return True
        generation = await self.client.get(visibility_key(self.state.channels))
        if generation != self.generation or len(self.known) > 1000:
            self.generation = generation
            self.known.clear()
        now = time.monotonic()
        hit = self.known.get(run_id)
        if hit is not None and now - hit[0] < VISIBILITY_TTL_S:
            return hit[1]
        ok = await asyncio.to_thread(self._read, run_id)
        self.known[run_id] = (now, ok)
        return ok

    def _read(self, run_id: int) -> bool:
        with self.state.sessions() as s:
            return service.run_visible(s, run_id, hide_embargoed=True)


def _run_id_of(frame: str) -> int | None:
    """The run a lab event (`runs`: {"run_id"}) is about."""
    try:
        data = json.loads(frame.split("\ndata: ", 1)[1])
        return int(data["run_id"])
    except (IndexError, ValueError, KeyError, TypeError):
        return None


async def _relay(
    request: Request,
    pubsub: aioredis.client.PubSub,
    until_final: bool,
    keep: Callable[[str], Awaitable[bool | None]] | None = None,
) -> AsyncIterator[str]:
    """Relay published events as SSE until the browser goes away (or, with until_final, until
    a `run` event with a final status), with a comment every KEEPALIVE_S of silence. `keep`
    judges each event first: True relays it, False drops it, None ends the stream."""
    idle = 0.0
    while not await request.is_disconnected():
        msg = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
        if msg is None:
            idle += 1.0
            if idle >= KEEPALIVE_S:
                idle = 0.0
                yield ": keepalive\n\n"
            continue
        idle = 0.0
        frame = msg["data"].decode() if isinstance(msg["data"], bytes) else msg["data"]
        if keep is not None:
            verdict = await keep(frame)
            if verdict is None:
                return
            if not verdict:
                continue
        yield frame
        if until_final and frame.startswith(_RUN_EVENT) and _is_final(frame):
            return


_RUN_EVENT = "event: run\n"


def _is_final(frame: str) -> bool:
    data = frame[len(_RUN_EVENT) :].removeprefix("data: ")
    return json.loads(data)["status"] in RUN_FINAL


async def _subscribe(
    state: AppState, channel: str
) -> tuple[aioredis.Redis, aioredis.client.PubSub]:
    target = state.redis_target or RedisTarget(state.settings.redis_url or "")
    client = aioredis.from_url(target.url, **target.tls)
    pubsub = client.pubsub()
    await pubsub.subscribe(channel)
    return client, pubsub


@router.get("/events", response_class=StreamingResponse)
async def lab_events(
    request: Request, session: SessionDep, state: StateDep, user: CurrentUser
) -> StreamingResponse:
    """Server-sent events for the lab overview: `runs` ({"run_id"}) whenever a run is queued,
    changes status or progress, or is reordered. Re-read the runs and drives on it; a `hello`
    event opens the stream, so a page knows it is live. Runs on drives under embargo are not
    announced to those who cannot see them (checked at every event)."""
    await asyncio.to_thread(session.close)
    client, pubsub = await _subscribe(state, lab_channel(state.channels))
    visibility = Visibility(state, client, hide_embargoed=not sees_embargoed(user))

    async def keep(frame: str) -> bool:
        run_id = _run_id_of(frame)
        return run_id is None or await visibility.visible(run_id)

    async def stream() -> AsyncIterator[str]:
        try:
            yield sse("hello", {})
            keeping = keep if visibility.hide else None
            async for chunk in _relay(request, pubsub, until_final=False, keep=keeping):
                yield chunk
        finally:
            await pubsub.aclose()
            await client.aclose()

    return StreamingResponse(stream(), media_type="text/event-stream", headers=SSE_HEADERS)


@router.get("/{run_id}", response_model=RunOut)
def get_run(run_id: int, session: SessionDep, user: CurrentUser) -> RunOut:
    hide = not sees_embargoed(user)
    return service.run_out(session, service.get_run(session, run_id, hide_embargoed=hide))


@router.post("/{run_id}/cancel", response_model=RunOut)
def cancel_run(run_id: int, session: SessionDep, state: StateDep, user: Reviewer) -> RunOut:
    """Cancel a queued run, or stop a running one (fio stops within 2 s; samples are kept).
    Recorded in the audit log (`run.cancelled`)."""
    run = service.cancel_run(session, state, run_id, user)
    return service.run_out(session, run)


@router.post("/{run_id}/move", response_model=RunOut)
def move_run(
    run_id: int, data: RunMove, session: SessionDep, state: StateDep, _user: Reviewer
) -> RunOut:
    """Reorder a waiting run among the runs waiting for the same drive (1 = next)."""
    return service.run_out(session, service.move_run(session, state, run_id, data.position))


@router.post("/{run_id}/resume", response_model=RunOut)
def resume_run(run_id: int, session: SessionDep, state: StateDep, user: Reviewer) -> RunOut:
    """Queue an interrupted run again from its first unfinished step, keeping the steps done
    (purge, preconditioning) when nothing wrote to the drive since."""
    return service.run_out(session, service.resume_run(session, state, run_id, user))


@router.get("/{run_id}/samples", response_model=list[SampleOut])
def get_samples(
    run_id: int, session: SessionDep, user: CurrentUser, step_id: int | None = None
) -> list[SampleOut]:
    """Per-interval samples (about one a second) at full resolution."""
    return service.list_samples(session, run_id, step_id, hide_embargoed=not sees_embargoed(user))


@router.get("/{run_id}/jobs", response_model=list[JobOut])
def get_jobs(run_id: int, session: SessionDep, user: CurrentUser) -> list[JobOut]:
    """The exact fio job files of the run's steps and the command that runs each."""
    return service.list_jobs(session, run_id, hide_embargoed=not sees_embargoed(user))


@router.get(
    "/{run_id}/steps/{step_id}/output",
    response_class=Response,
    responses={200: {"content": {"application/json": {}}}},
)
def get_step_output(run_id: int, step_id: int, session: SessionDep, user: CurrentUser) -> Response:
    """fio's final JSON of a step, byte for byte as fio printed it."""
    output = service.step_output(session, run_id, step_id, hide_embargoed=not sees_embargoed(user))
    return Response(output, media_type="application/json")


@router.get("/{run_id}/steps/{step_id}/logs", response_model=dict)
def get_step_logs(run_id: int, step_id: int, session: SessionDep, user: CurrentUser) -> dict:
    """A step's fine-grained record: fio's window logs (bw in bytes/s and IOPS per window,
    missing windows as 0), or the purge method, TRIM timing, steady-state rounds."""
    return service.step_logs(session, run_id, step_id, hide_embargoed=not sees_embargoed(user))


@router.get("/{run_id}/events", response_class=StreamingResponse)
async def run_events(
    run_id: int, request: Request, session: SessionDep, state: StateDep, user: CurrentUser
) -> StreamingResponse:
    """Server-sent events: `run` (the run as GET /api/runs/{id}, whenever its status or a
    step's changes), `samples` (a batch of new samples of a step) and `progress` ({run_id,
    progress, step_id, step_progress}, with every batch and heartbeat). The stream ends when
    the run has ended, and for those who cannot see embargoed drives, when the run's drive
    goes under embargo (checked at every event)."""
    hide = not sees_embargoed(user)
    # The session that signed the user in would keep its pooled connection until this
    # function returns (after the snapshot, read in another thread): give it back now. 50
    # viewers opening their streams together held every connection while waiting for a
    # thread, and the threads waited for a connection.
    await asyncio.to_thread(session.close)
    # Subscribe before reading the snapshot so nothing falls between the two.
    client, pubsub = await _subscribe(state, run_channel(state.channels, run_id))
    visibility = Visibility(state, client, hide_embargoed=hide)

    def snapshot() -> dict:
        with state.sessions() as s:
            run = service.get_run(s, run_id, hide_embargoed=hide)
            return service.run_out(s, run).model_dump(mode="json")

    try:
        first = await asyncio.to_thread(snapshot)
    except BaseException:
        await pubsub.aclose()
        await client.aclose()
        raise

    async def stream() -> AsyncIterator[str]:
        try:
            yield sse("run", first)
            if first["status"] in RUN_FINAL:
                return

            async def keep(_frame: str) -> bool | None:
                return True if await visibility.visible(run_id) else None

            keeping = keep if hide else None
            async for chunk in _relay(request, pubsub, until_final=True, keep=keeping):
                yield chunk
        finally:
            await pubsub.aclose()
            await client.aclose()

    return StreamingResponse(stream(), media_type="text/event-stream", headers=SSE_HEADERS)
