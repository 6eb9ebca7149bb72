"""The bench workers' api: everything a worker reports goes through here (it holds no
database credentials). Authenticated with the bench's token."""

from __future__ import annotations

from typing import Any, TypeVar

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, TypeAdapter, ValidationError

from backend.benches.service import touch
from backend.core.deps import BenchAuth, SessionDep, StateDep
from backend.core.jsonbody import FiniteJSONRoute, check_finite
from backend.pts import worker as pts_worker
from backend.pts.schemas import PointRunOut, RoundIn
from backend.runs import worker_service as svc
from backend.runs.schemas import (
    ClaimIn,
    Control,
    EnvironmentIn,
    Heartbeat,
    RunFinish,
    RunSpec,
    SampleBatch,
    StepFinish,
    StepStart,
)

router = APIRouter(prefix="/api/worker", tags=["worker"], route_class=FiniteJSONRoute)

M = TypeVar("M", bound=BaseModel)

# The bodies a worker may send large (a long run's sample batches, fio's output and window
# logs, a drive's SMART record): their routes take DRIVELAB_WORKER_MAX_BODY_BYTES
# (backend.main.route_limits) and read the body only once the bench's token is checked.
# FastAPI reads and parses a declared body before it runs the dependencies, so an anonymous
# 60 MiB body of `[{},{},...]` had taken the api from 120 MB to 1.7 GB before its 401.
RAW_BODIES: tuple[type[BaseModel], ...] = (SampleBatch, StepFinish, RoundIn, EnvironmentIn)
# The paths of those routes, under /api/worker.
LARGE_BODY_PATHS = (
    r"/runs/[^/]+/samples",
    r"/runs/[^/]+/steps/[^/]+/finish",
    r"/runs/[^/]+/steps/[^/]+/rounds",
    r"/runs/[^/]+/environment",
)


def body_schemas() -> dict[str, Any]:
    """Component schemas of the bodies read raw (not declared as parameters, so FastAPI does
    not list them), and what they refer to, for the OpenAPI document."""
    out: dict[str, Any] = {}
    for model in RAW_BODIES:
        schema = TypeAdapter(model).json_schema(ref_template="#/components/schemas/{model}")
        out.update(schema.pop("$defs", {}))
        out[model.__name__] = schema
    return out


def raw_body(model: type[BaseModel]) -> dict[str, Any]:
    """openapi_extra of a route that reads `model` itself (RAW_BODIES)."""
    ref = {"$ref": f"#/components/schemas/{model.__name__}"}
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": ref}}}}


async def read_body(request: Request, model: type[M]) -> M:
    """The body, read now (the route's dependencies, the token among them, have passed) and
    validated straight from its bytes by pydantic in a worker thread: FastAPI's own handling
    (json.loads, then validation of the objects) costs twice the CPU, in the event loop."""
    body = await request.body()

    def validate() -> M:
        check_finite(body)  # pydantic's JSON parser takes NaN and turns 1e400 into inf
        try:
            return model.model_validate_json(body)
        except ValidationError as exc:
            raise RequestValidationError(exc.errors(include_url=False)) from None

    return await run_in_threadpool(validate)


class Hello(BaseModel):
    host_info: dict


class BenchOut(BaseModel):
    id: int
    name: str


@router.post("/hello", response_model=BenchOut)
def hello(data: Hello, session: SessionDep, bench: BenchAuth) -> BenchOut:
    """A worker announces itself (and its host) when it starts and every few seconds."""
    touch(bench, data.host_info)
    return BenchOut(id=bench.id, name=bench.name)


@router.post("/runs/{run_id}/claim", response_model=RunSpec)
def claim(
    run_id: int, data: ClaimIn, session: SessionDep, state: StateDep, bench: BenchAuth
) -> RunSpec:
    return svc.claim(session, state, bench, run_id, data.worker)


@router.post("/runs/{run_id}/environment", status_code=204, openapi_extra=raw_body(EnvironmentIn))
async def environment(run_id: int, request: Request, session: SessionDep, bench: BenchAuth) -> None:
    data = await read_body(request, EnvironmentIn)
    await run_in_threadpool(svc.set_environment, session, bench, run_id, data.environment)


@router.post("/runs/{run_id}/heartbeat", response_model=Control)
def heartbeat(
    run_id: int, data: Heartbeat, session: SessionDep, state: StateDep, bench: BenchAuth
) -> Control:
    return svc.heartbeat(session, state, bench, run_id, data.progress, data.step_id)


@router.post("/runs/{run_id}/steps/{step_id}/start", response_model=Control)
def start_step(
    run_id: int,
    step_id: int,
    data: StepStart,
    session: SessionDep,
    state: StateDep,
    bench: BenchAuth,
) -> Control:
    return svc.start_step(session, state, bench, run_id, step_id, data)


@router.post("/runs/{run_id}/samples", response_model=Control, openapi_extra=raw_body(SampleBatch))
async def samples(
    run_id: int, request: Request, session: SessionDep, state: StateDep, bench: BenchAuth
) -> Control:
    """A batch of samples."""
    data = await read_body(request, SampleBatch)
    return await run_in_threadpool(svc.store_samples, session, state, bench, run_id, data)


@router.post(
    "/runs/{run_id}/steps/{step_id}/finish",
    response_model=Control,
    openapi_extra=raw_body(StepFinish),
)
async def finish_step(
    run_id: int,
    step_id: int,
    request: Request,
    session: SessionDep,
    state: StateDep,
    bench: BenchAuth,
) -> Control:
    data = await read_body(request, StepFinish)
    return await run_in_threadpool(svc.finish_step, session, state, bench, run_id, step_id, data)


@router.post(
    "/runs/{run_id}/steps/{step_id}/rounds",
    response_model=Control,
    openapi_extra=raw_body(RoundIn),
)
async def store_round(
    run_id: int,
    step_id: int,
    request: Request,
    session: SessionDep,
    state: StateDep,
    bench: BenchAuth,
) -> Control:
    """A round of a SNIA PTS rounds step: fio's final JSON of the round, kept verbatim."""
    data = await read_body(request, RoundIn)
    return await run_in_threadpool(svc.store_round, session, state, bench, run_id, step_id, data)


@router.get("/runs/{run_id}/steps/{step_id}/points", response_model=list[PointRunOut])
def point_runs(
    run_id: int, step_id: int, session: SessionDep, bench: BenchAuth
) -> list[dict[str, Any]]:
    """The TC x QD points a DIRTH or ECW sweep's dedicated runs are made at (its maximum,
    middle and minimum IOPS points, as the report finds them in the sweep's stored rounds)."""
    return pts_worker.point_runs(session, bench, run_id, step_id)


@router.post("/runs/{run_id}/finish", status_code=204)
def finish_run(
    run_id: int, data: RunFinish, session: SessionDep, state: StateDep, bench: BenchAuth
) -> None:
    svc.finish_run(session, state, bench, run_id, data)
