"""The api: app factory, error mapping, health, the built frontend."""

from __future__ import annotations

import gc
import logging
import re
import threading
from collections.abc import AsyncIterator, MutableMapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import redis
from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel
from sqlalchemy import text
from sqlalchemy.exc import DataError, IntegrityError, OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import compile_path
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from backend import __version__
from backend.audit.router import router as audit_router
from backend.benches.router import router as benches_router
from backend.core.db import make_engine, session_factory
from backend.core.deps import AppState, StateDep, install_session_hooks
from backend.core.errors import DrivelabError
from backend.core.events import namespace
from backend.core.jsonbody import FiniteJSONRoute, NonFiniteNumbers
from backend.core.limits import BodyLimit, RouteLimit, short_errors
from backend.core.openapi_errors import declare_errors
from backend.core.redis_tls import BrokerTlsError, redis_target
from backend.core.settings import Settings, get_settings
from backend.drives.catalog_router import router as catalog_router
from backend.drives.router import router as drives_router
from backend.plans.router import router as plans_router
from backend.prices.router import router as prices_router
from backend.pts.router import router as pts_router
from backend.results.router import router as results_router
from backend.retention.router import router as retention_router
from backend.runs.reaper import Reaper
from backend.runs.router import router as runs_router
from backend.runs.series_router import router as series_router
from backend.runs.worker_router import LARGE_BODY_PATHS, body_schemas
from backend.runs.worker_router import router as worker_router
from backend.shares.router import router as shares_router
from backend.traces.router import router as traces_router
from backend.users.auth_router import router as auth_router
from backend.users.router import router as users_router
from worker.celery_app import make_celery

log = logging.getLogger("drivelab.api")

REPO_FRONTEND = Path(__file__).resolve().parent.parent / "frontend" / "dist"


# A validation error lists at most this many problems in `detail`, and `errors` this many.
MAX_PROBLEMS = 10
MAX_ERRORS = 100

_BYTES = {bytes: lambda b: b.decode("utf-8", errors="replace")}

CONSTRAINT_MESSAGES = {
    "uq_drive_samples_bench_id": "another drive on this bench already has that target path: "
    "edit that drive, or choose another target",
    "uq_benches_name": "a bench with that name exists: choose another name",
    "uq_drive_models_vendor": "that vendor, model and capacity exist in the catalog: edit the "
    "existing model (GET /api/models)",
}


class Check(BaseModel):
    ok: bool
    detail: str


class Health(BaseModel):
    status: str
    version: str
    database: Check
    broker: Check


def _check_database(state: AppState) -> Check:
    try:
        with state.engine.connect() as conn:
            version = conn.execute(text("SHOW server_version")).scalar()
        return Check(ok=True, detail=f"PostgreSQL {version}")
    except Exception as exc:  # noqa: BLE001 - reported, not raised
        return Check(ok=False, detail=f"database unreachable: {exc.__class__.__name__}: {exc}")


def _check_broker(state: AppState) -> Check:
    try:
        info = state.redis.info("server")
        return Check(ok=True, detail=f"Redis {info.get('redis_version', '?')}")
    except Exception as exc:  # noqa: BLE001
        return Check(ok=False, detail=f"broker unreachable: {exc.__class__.__name__}: {exc}")


def build_state(settings: Settings) -> AppState:
    if not settings.database_url or not settings.redis_url:
        raise SystemExit(
            "the api needs DRIVELAB_DATABASE_URL and DRIVELAB_REDIS_URL "
            "(`drivelab up` sets both, starting embedded servers when they are unset)"
        )
    try:
        target = redis_target(
            settings.redis_url, ca_file=settings.broker_ca, ca_setting="DRIVELAB_BROKER_CA"
        )
    except BrokerTlsError as exc:
        raise SystemExit(f"DRIVELAB_REDIS_URL: {exc}") from None
    engine = make_engine(settings.database_url)
    sessions = session_factory(engine)
    install_session_hooks(sessions)
    return AppState(
        settings=settings,
        engine=engine,
        sessions=sessions,
        redis=redis.Redis.from_url(target.url, socket_timeout=5, **target.tls),
        celery=make_celery(target.url, target.tls),
        channels=namespace(settings.database_url),
        redis_target=target,
    )


def configure_logging(level: str) -> None:
    """The api's own loggers (drivelab.*) at the configured level, one line each, on stderr.
    uvicorn configures only its own loggers: without this, everything below warning that
    the api logs (runs queued and dispatched, workers lost, tasks re-sent) was dropped. Left
    alone when the process configured logging itself (a handler on the root logger)."""
    ours = logging.getLogger("drivelab")
    ours.setLevel(level.upper())
    if ours.handlers or logging.getLogger().handlers:
        return
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    ours.addHandler(handler)
    ours.propagate = False


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    configure_logging(settings.log_level)
    state = build_state(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        stop = threading.Event()
        reaper = threading.Thread(
            target=Reaper(state).run, args=(stop,), daemon=True, name="drivelab-reaper"
        )
        reaper.start()
        # Everything built so far (routes, schemas, the ORM's mappers: ~150k objects) lives as
        # long as the process. Frozen, the garbage collector's full passes no longer walk it
        # again and again: they added up to 100 ms to a large response (GET /api/compare).
        gc.freeze()
        try:
            yield
        finally:
            stop.set()
            reaper.join(timeout=5)
            state.engine.dispose()

    app = FastAPI(
        title="drivelab",
        version=__version__,
        description="Review-lab SSD test orchestration: queue fio plans on bench workers, "
        "stream per-second results, compare drives.",
        lifespan=lifespan,
        docs_url="/api/docs",
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    app.state.drivelab = state
    app.router.route_class = FiniteJSONRoute  # the routers' own are FiniteJSONRoute too

    @app.exception_handler(DrivelabError)
    async def _drivelab_error(_request: Request, exc: DrivelabError) -> JSONResponse:
        return JSONResponse(exc.body(), status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return validation_response(list(exc.errors()))

    @app.exception_handler(NonFiniteNumbers)
    async def _non_finite(_request: Request, exc: NonFiniteNumbers) -> JSONResponse:
        return validation_response(exc.errors)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            # Starlette names the methods of the first route whose path matched; a path served
            # by several routes (GET and PATCH /api/drives/{id}) supports all of theirs.
            allowed = allowed_methods(app, request.scope)
            if request.method in allowed:
                # The path's shape is served with this method, but a parameter in it is not
                # what the route takes (/api/prices/abc for /api/prices/{price_id}).
                return JSONResponse(
                    {
                        "detail": f"{request.url.path}: a path parameter is not valid here "
                        "(ids are whole numbers): see /api/docs"
                    },
                    status_code=422,
                )
            headers["Allow"] = ", ".join(sorted(allowed))
            return JSONResponse(
                {"detail": f"{request.method} is not supported here: use {headers['Allow']}"},
                status_code=405,
                headers=headers,
            )
        return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=headers)

    @app.exception_handler(DataError)
    async def _data_error(_request: Request, exc: DataError) -> JSONResponse:
        # A value the database cannot hold (an id past 2^31, a price with 95 digits):
        # a client error, said as such, never a 500.
        diag = getattr(exc.orig, "diag", None)
        reason = str(getattr(diag, "message_primary", None) or exc.orig)
        return JSONResponse(
            {
                "detail": f"a value is out of range: {reason}; ids are whole numbers from 1 to "
                f"{2**31 - 1}, prices have at most 10 digits before the point"
            },
            status_code=422,
        )

    @app.exception_handler(IntegrityError)
    async def _integrity_error(_request: Request, exc: IntegrityError) -> JSONResponse:
        constraint = getattr(getattr(exc.orig, "diag", None), "constraint_name", None) or ""
        return JSONResponse(
            {
                "detail": CONSTRAINT_MESSAGES.get(
                    constraint, f"this conflicts with what is stored ({constraint or 'constraint'})"
                )
            },
            status_code=409,
        )

    @app.exception_handler(OperationalError)
    async def _database_unavailable(request: Request, exc: OperationalError) -> JSONResponse:
        # PostgreSQL down, restarting or out of connections: the request's transaction was
        # rolled back, so nothing half-done is stored. 503 and Retry-After tell clients (the
        # worker's client, the browser) that trying again is the fix, which a 500 does not.
        reason = str(exc.orig).strip().splitlines()[0] if exc.orig else exc.__class__.__name__
        log.error("database unavailable during %s %s: %s", request.method, request.url.path, reason)
        return JSONResponse(
            {
                "detail": f"the database is unavailable ({reason}); nothing was changed: "
                "retry in a few seconds, and check GET /api/health"
            },
            status_code=503,
            headers={"Retry-After": "5"},
        )

    @app.exception_handler(redis.exceptions.ConnectionError)
    async def _broker_unavailable(
        request: Request, exc: redis.exceptions.ConnectionError
    ) -> JSONResponse:
        log.error("Redis unavailable during %s %s: %s", request.method, request.url.path, exc)
        return JSONResponse(
            {
                "detail": f"Redis (the broker) is unavailable ({exc}): retry in a few "
                "seconds, and check GET /api/health"
            },
            status_code=503,
            headers={"Retry-After": "5"},
        )

    @app.exception_handler(UnicodeEncodeError)
    async def _bad_text(_request: Request, exc: UnicodeEncodeError) -> JSONResponse:
        return JSONResponse(
            {
                "detail": "text must be valid Unicode: a field holds an unpaired surrogate "
                f"({exc.reason} at position {exc.start})"
            },
            status_code=422,
        )

    @app.get("/api/health", response_model=Health, tags=["health"])
    def health(st: StateDep) -> Health:
        db, broker = _check_database(st), _check_broker(st)
        return Health(
            status="ok" if db.ok and broker.ok else "degraded",
            version=__version__,
            database=db,
            broker=broker,
        )

    for router in (
        plans_router,
        benches_router,
        drives_router,
        catalog_router,
        prices_router,
        runs_router,
        series_router,
        traces_router,
        results_router,
        pts_router,
        worker_router,
        auth_router,
        users_router,
        shares_router,
        audit_router,
        retention_router,
    ):
        app.include_router(router)

    app.add_middleware(BodyLimit, default=settings.max_body_bytes, routes=route_limits(settings))
    if settings.trusted_proxies:
        # The client's address (sign-in limits) and scheme as a trusted proxy forwards them;
        # X-Forwarded-For from anyone else is ignored. `drivelab up` runs uvicorn with
        # --no-proxy-headers, so uvicorn's own default (trust 127.0.0.1) does not apply.
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.trusted_proxies)
    _add_body_schemas(app)
    _mount_frontend(app, settings.frontend_dir or REPO_FRONTEND)
    return app


def validation_response(raw_errors: list[dict[str, Any]]) -> JSONResponse:
    """422 listing what is wrong with the request, field by field. Never the whole input
    back: a 10 MB field would come back as a 10 MB answer."""
    errors = short_errors(raw_errors)
    problems = []
    for err in errors[:MAX_PROBLEMS]:
        loc = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
        problems.append(f"{loc or 'request'}: {err.get('msg')}")
    if len(errors) > MAX_PROBLEMS:
        problems.append(f"and {len(errors) - MAX_PROBLEMS} more (see errors)")
    return JSONResponse(
        {
            "detail": "invalid request: " + "; ".join(problems),
            "errors": jsonable_encoder(errors[:MAX_ERRORS], custom_encoder=_BYTES),
        },
        status_code=422,
    )


HTTP_METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}


def allowed_methods(app: FastAPI, scope: MutableMapping[str, Any]) -> set[str]:
    """Every method the api's OpenAPI schema documents at this request's path (the schema is
    what clients read: an Allow header that says otherwise is wrong). From the schema rather
    than app.routes, whose included routers FastAPI may keep as wrappers of their own."""
    table = getattr(app.state, "allowed_methods", None)
    if table is None:
        table = []
        for template, operations in app.openapi().get("paths", {}).items():
            regex, _format, convertors = compile_path(template)
            methods = {m.upper() for m in operations if m in HTTP_METHODS}
            table.append((regex, len(convertors), methods))
        app.state.allowed_methods = table
    path = scope.get("path", "")
    # The paths with the fewest parameters that match: /api/prices/import, not also
    # /api/prices/{price_id}.
    matching = [(params, documented) for regex, params, documented in table if regex.match(path)]
    fewest = min((params for params, _m in matching), default=0)
    methods = set().union(*(m for params, m in matching if params == fewest))
    if not methods and not path.startswith("/api/"):
        methods = {"GET"}  # the web app's pages
    return methods


def route_limits(settings: Settings) -> tuple[RouteLimit, ...]:
    """The routes whose bodies may be larger than DRIVELAB_MAX_BODY_BYTES."""
    from backend.prices.service import MAX_IMPORT_BYTES
    from backend.traces.service import MAX_TRACE_BYTES

    return (
        RouteLimit("POST", re.compile(r"/api/traces"), MAX_TRACE_BYTES, "a trace"),
        RouteLimit("POST", re.compile(r"/api/prices/import"), MAX_IMPORT_BYTES, "a price CSV"),
        # Sample batches and a step's fio output and window logs (a long run's are megabytes),
        # on the routes that check the bench's token before they read a byte of the body.
        *(
            RouteLimit(
                "POST",
                re.compile(f"/api/worker{path}"),
                settings.worker_max_body_bytes,
                "a worker's report",
            )
            for path in LARGE_BODY_PATHS
        ),
    )


def _add_body_schemas(app: FastAPI) -> None:
    """List the schemas of bodies that routes read raw (see worker_router.samples)."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            built = build()
            built.setdefault("components", {}).setdefault("schemas", {}).update(body_schemas())
            declare_errors(built)
        return app.openapi_schema or build()

    app.openapi = openapi  # type: ignore[method-assign]


def _mount_frontend(app: FastAPI, dist: Path) -> None:
    index = dist / "index.html"
    if not index.is_file():

        @app.get("/", include_in_schema=False)
        def no_frontend() -> JSONResponse:
            return JSONResponse(
                {
                    "detail": f"the frontend is not built ({index} is missing): run `make run`, "
                    "or `npm --prefix frontend run build`; the api is at /api/docs"
                },
                status_code=503,
            )

        return

    if (dist / "assets").is_dir():
        app.mount("/assets", StaticFiles(directory=dist / "assets"), name="assets")

    @app.get("/{path:path}", include_in_schema=False)
    def spa(path: str) -> FileResponse:
        if path.startswith("api/"):
            allowed = allowed_methods(app, {"path": f"/{path}"})
            if allowed:  # an api path that other methods serve: GET is not one of them
                listed = ", ".join(sorted(allowed))
                return JSONResponse(  # type: ignore[return-value]
                    {"detail": f"GET is not supported here: use {listed}"},
                    status_code=405,
                    headers={"Allow": listed},
                )
            return JSONResponse({"detail": f"no api endpoint /{path}"}, status_code=404)  # type: ignore[return-value]
        candidate = (dist / path).resolve()
        if path and candidate.is_file() and dist.resolve() in candidate.parents:
            return FileResponse(candidate)
        return FileResponse(index)
