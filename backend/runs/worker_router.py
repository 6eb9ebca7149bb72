"""The bench workers' api: everything a worker reports goes through here (it holds no
database credentials). Authenticated with the bench's token."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, TypeAdapter, ValidationError

from backend.benches.service import touch
from backend.core.deps import BenchAuth, SessionDep, StateDep
from backend.pts.schemas import RoundIn
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

router = APIRouter(prefix="/api/worker", tags=["worker"])


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


@router.post("/runs/{run_id}/environment", status_code=204)
def environment(run_id: int, data: EnvironmentIn, session: SessionDep, bench: BenchAuth) -> None:
    svc.set_environment(session, bench, run_id, data.environment)


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


def body_schemas() -> dict[str, Any]:
    """Component schemas of the bodies read raw (not declared as parameters, so FastAPI does
    not list them): SampleBatch and what it refers to, for the OpenAPI document."""
    schema = TypeAdapter(SampleBatch).json_schema(ref_template="#/components/schemas/{model}")
    defs = schema.pop("$defs", {})
    return {"SampleBatch": schema, **defs}


@router.post(
    "/runs/{run_id}/samples",
    response_model=Control,
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {"schema": {"$ref": "#/components/schemas/SampleBatch"}}
            },
        }
    },
)
async def samples(
    run_id: int, request: Request, session: SessionDep, state: StateDep, bench: BenchAuth
) -> Control:
    """A batch of samples. The body is validated straight from its bytes by pydantic, in a
    worker thread: FastAPI's own body handling (json.loads, then validation of the objects)
    costs twice the CPU and runs in the event loop."""
    body = await request.body()

    def store() -> Control:
        try:
            data = SampleBatch.model_validate_json(body)
        except ValidationError as exc:
            raise RequestValidationError(exc.errors(include_url=False)) from None
        return svc.store_samples(session, state, bench, run_id, data)

    return await run_in_threadpool(store)


@router.post("/runs/{run_id}/steps/{step_id}/finish", response_model=Control)
def finish_step(
    run_id: int,
    step_id: int,
    data: StepFinish,
    session: SessionDep,
    state: StateDep,
    bench: BenchAuth,
) -> Control:
    return svc.finish_step(session, state, bench, run_id, step_id, data)


@router.post("/runs/{run_id}/steps/{step_id}/rounds", response_model=Control)
def store_round(
    run_id: int,
    step_id: int,
    data: RoundIn,
    session: SessionDep,
    state: StateDep,
    bench: BenchAuth,
) -> Control:
    """A round of a SNIA PTS rounds step: fio's final JSON of the round, kept verbatim."""
    return svc.store_round(session, state, bench, run_id, step_id, data)


@router.post("/runs/{run_id}/finish", status_code=204)
def finish_run(
    run_id: int, data: RunFinish, session: SessionDep, state: StateDep, bench: BenchAuth
) -> None:
    svc.finish_run(session, state, bench, run_id, data)
