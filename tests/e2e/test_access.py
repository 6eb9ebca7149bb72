"""Who may do what, through the whole stack.

The access matrix calls every endpoint of the api's OpenAPI schema as every kind of caller
(anonymous, viewer, reviewer by token and by cookie session, admin, the worker token of the
bench that owns the run, and one of another bench) and checks each status against the table
below. An endpoint missing from the table fails the test: a new endpoint must be classified.

Then: CSRF on cookie sessions, the sign-in rate limit, one-time sign-in links, embargoes,
shared links and the audit log.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from backend.core.settings import Settings
from backend.openapi import schema
from backend.up import _api as up_api
from tests.bench.common import stack_database_url
from tests.conftest import Stack, User, free_port, wait_run
from tests.e2e.test_hostile import environ, stack_process
from tests.e2e.test_run_path import _bench_token, queue

pytestmark = pytest.mark.e2e

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
QUICK = {
    "span": "32m",
    "runtime_s": 1,
    "seq_runtime_s": 1,
    "prewrite": False,
    "patterns": ["incompressible"],
}
METRIC = "four-corners:randread-4k-qd3:read_mbps"

# --- the matrix ----------------------------------------------------------------------------

PUBLIC = "public"  # anyone, signed in or not
VIEWER = "viewer"  # any signed-in user; not a bench token
REVIEWER = "reviewer"
ADMIN = "admin"
OWN_BENCH = "own bench"  # the worker token of the bench that owns the run
ANY_BENCH = "any bench"  # any bench's worker token

PRINCIPALS = (
    "anonymous",
    "viewer",
    "reviewer",
    "reviewer (session)",
    "admin",
    "bench (same)",
    "bench (other)",
)
RANK = {"viewer": 0, "reviewer": 1, "reviewer (session)": 1, "admin": 2}
NEEDED = {VIEWER: 0, REVIEWER: 1, ADMIN: 2}


@dataclass
class Case:
    """Who may call it, the status when allowed for the request sent here, and that request.

    Values of `path` and `query` name entries of the `ids` fixture ("{run_id}")."""

    who: str
    ok: int
    body: Any = None
    path: dict[str, str] = field(default_factory=dict)
    query: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None
    # An event stream that does not end: only its status (and an error's body) is read.
    stream: bool = False


def expected(case: Case, principal: str) -> int:
    if case.who == PUBLIC:
        return case.ok
    if principal == "anonymous":
        return 401
    bench = principal.startswith("bench")
    if case.who in NEEDED:
        if bench:
            return 403
        return case.ok if RANK[principal] >= NEEDED[case.who] else 403
    if not bench:
        return 403  # the worker api refuses users' credentials
    if case.who == OWN_BENCH and principal == "bench (other)":
        return 403
    return case.ok


RUN = {"run_id": "{run_id}"}
STEP = {"run_id": "{run_id}", "step_id": "{step_id}"}
WORKER_STEP = {"run_id": "{run_id}", "step_id": "{step_id}"}

# Every endpoint: requests that would change something real are sent so that they cannot
# (a done run cannot be cancelled: 409; an empty body: 422), or act on throwaway objects.
MATRIX: dict[tuple[str, str], Case] = {
    ("GET", "/api/health"): Case(PUBLIC, 200),
    # sign-in
    ("POST", "/api/auth/login"): Case(PUBLIC, 422, body={}),
    ("POST", "/api/auth/once"): Case(PUBLIC, 422, body={}),
    ("POST", "/api/auth/logout"): Case(PUBLIC, 204),
    ("GET", "/api/auth/me"): Case(VIEWER, 200),
    ("POST", "/api/auth/links"): Case(ADMIN, 201, body={"ttl_s": 60}),
    ("GET", "/api/auth/tokens"): Case(VIEWER, 200),
    ("POST", "/api/auth/tokens"): Case(VIEWER, 201, body={"name": "matrix"}),
    # another user's token: nobody revokes it here
    ("DELETE", "/api/auth/tokens/{token_id}"): Case(VIEWER, 404, path={"token_id": "{token_id}"}),
    # users (admins)
    ("GET", "/api/users"): Case(ADMIN, 200),
    ("POST", "/api/users"): Case(ADMIN, 422, body={}),
    ("PATCH", "/api/users/{user_id}"): Case(ADMIN, 200, body={}, path={"user_id": "{user_id}"}),
    ("GET", "/api/users/{user_id}/tokens"): Case(ADMIN, 200, path={"user_id": "{user_id}"}),
    ("POST", "/api/users/{user_id}/tokens"): Case(
        ADMIN, 201, body={"name": "matrix"}, path={"user_id": "{user_id}"}
    ),
    ("DELETE", "/api/users/{user_id}/tokens/{token_id}"): Case(
        ADMIN, 204, path={"user_id": "{user_id}", "token_id": "{token_id}"}
    ),
    ("GET", "/api/audit"): Case(ADMIN, 200),
    # benches
    ("GET", "/api/benches"): Case(VIEWER, 200),
    ("POST", "/api/benches"): Case(ADMIN, 422, body={}),
    ("POST", "/api/benches/{name}/token"): Case(ADMIN, 200, path={"name": "{spare_bench}"}),
    ("DELETE", "/api/benches/{name}/token"): Case(ADMIN, 204, path={"name": "{spare_bench}"}),
    ("GET", "/api/benches/{name}/devices"): Case(VIEWER, 200, path={"name": "local"}),
    # drives and the catalog
    ("GET", "/api/drives"): Case(VIEWER, 200),
    ("POST", "/api/drives"): Case(REVIEWER, 422, body={}),
    ("GET", "/api/drives/{drive_id}"): Case(VIEWER, 200, path={"drive_id": "{idle_drive}"}),
    ("PATCH", "/api/drives/{drive_id}"): Case(
        REVIEWER, 200, body={}, path={"drive_id": "{idle_drive}"}
    ),
    ("GET", "/api/models"): Case(VIEWER, 200),
    ("POST", "/api/models"): Case(REVIEWER, 422, body={}),
    ("GET", "/api/models/{model_id}"): Case(VIEWER, 200, path={"model_id": "{model_id}"}),
    ("GET", "/api/models/{model_id}/firmware"): Case(VIEWER, 200, path={"model_id": "{model_id}"}),
    ("PATCH", "/api/models/{model_id}"): Case(
        REVIEWER, 200, body={}, path={"model_id": "{model_id}"}
    ),
    ("GET", "/api/prices"): Case(VIEWER, 200),
    ("POST", "/api/prices"): Case(REVIEWER, 422, body={}),
    ("GET", "/api/prices.csv"): Case(VIEWER, 200),
    ("POST", "/api/prices/import"): Case(REVIEWER, 422, raw=b""),
    ("GET", "/api/prices/table"): Case(VIEWER, 200),
    # corrections of an observation that does not exist: past the access check, nothing changes
    ("PATCH", "/api/prices/{price_id}"): Case(
        REVIEWER, 404, body={"retailer": "x"}, path={"price_id": "2147483000"}
    ),
    ("DELETE", "/api/prices/{price_id}"): Case(REVIEWER, 404, path={"price_id": "2147483000"}),
    ("POST", "/api/plans/{key}/estimate"): Case(VIEWER, 422, body={}, path={"key": "four-corners"}),
    ("GET", "/api/plans"): Case(VIEWER, 200),
    ("GET", "/api/plans/{key}"): Case(VIEWER, 200, path={"key": "four-corners"}),
    # runs and results
    ("GET", "/api/runs"): Case(VIEWER, 200),
    ("POST", "/api/runs"): Case(REVIEWER, 422, body={}),
    ("GET", "/api/runs/{run_id}"): Case(VIEWER, 200, path=RUN),
    ("GET", "/api/runs/events"): Case(VIEWER, 200, stream=True),
    ("POST", "/api/runs/{run_id}/cancel"): Case(REVIEWER, 409, path=RUN),
    ("POST", "/api/runs/{run_id}/move"): Case(REVIEWER, 422, body={}, path=RUN),
    ("POST", "/api/runs/{run_id}/resume"): Case(REVIEWER, 409, path=RUN),
    ("GET", "/api/runs/{run_id}/events"): Case(VIEWER, 200, path=RUN),
    ("GET", "/api/runs/{run_id}/jobs"): Case(VIEWER, 200, path=RUN),
    ("GET", "/api/runs/{run_id}/samples"): Case(VIEWER, 200, path=RUN),
    # series of repeats: one that does not exist, past the access check
    ("GET", "/api/series/{series_id}"): Case(VIEWER, 404, path={"series_id": "2147483000"}),
    ("POST", "/api/series/{series_id}/stop"): Case(REVIEWER, 404, path={"series_id": "2147483000"}),
    ("GET", "/api/runs/{run_id}/series"): Case(
        VIEWER, 200, path=RUN, query={"step_id": "{step_id}", "metric": "read_mbps"}
    ),
    ("GET", "/api/runs/{run_id}/steps/{step_id}/output"): Case(VIEWER, 200, path=STEP),
    # a four-corners step keeps no window log: 404 says so, past the access check
    ("GET", "/api/runs/{run_id}/steps/{step_id}/logs"): Case(VIEWER, 404, path=STEP),
    # SNIA PTS: the run is a four-corners run, which has no report and no rounds
    ("GET", "/api/runs/{run_id}/pts"): Case(VIEWER, 404, path=RUN),
    ("GET", "/api/runs/{run_id}/steps/{step_id}/rounds"): Case(VIEWER, 200, path=STEP),
    ("GET", "/api/runs/{run_id}/steps/{step_id}/rounds/{number}/output"): Case(
        VIEWER, 404, path={**STEP, "number": "1"}
    ),
    ("GET", "/api/compare/pts"): Case(VIEWER, 200, query={"drives": "{sim_drive}"}),
    # latency QoS (the run is a four-corners run: its fio steps keep their histograms)
    # retention (admins): the compaction is of runs older than 100 years, so of none
    ("GET", "/api/admin/retention"): Case(ADMIN, 200),
    ("PUT", "/api/admin/retention"): Case(ADMIN, 422, body={}),
    ("POST", "/api/admin/retention/compact"): Case(ADMIN, 200, body={"days": 36500}),
    ("GET", "/api/runs/{run_id}/qos"): Case(VIEWER, 200, path=RUN),
    ("GET", "/api/runs/{run_id}/steps/{step_id}/latency"): Case(VIEWER, 200, path=STEP),
    ("GET", "/api/compare/latency/steps"): Case(
        VIEWER, 200, query={"drives": "{sim_drive}", "plan": "four-corners"}
    ),
    # no such step in the drive's four-corners run: the drive is listed as missing it
    ("GET", "/api/compare/latency"): Case(
        VIEWER,
        200,
        query={"drives": "{sim_drive}", "plan": "four-corners", "step": "no-such-step"},
    ),
    # the drive has no qd-sweep run: it is listed as missing one
    ("GET", "/api/compare/qd-sweep"): Case(VIEWER, 200, query={"drives": "{sim_drive}"}),
    ("GET", "/api/compare"): Case(VIEWER, 200, query={"drives": "{sim_drive}"}),
    ("GET", "/api/compare/pair"): Case(
        VIEWER, 200, query={"a": "{sim_drive}", "b": "{idle_drive}"}
    ),
    ("GET", "/api/compare/article"): Case(
        VIEWER, 200, query={"drives": "{sim_drive},{idle_drive}"}
    ),
    ("GET", "/api/compare/series"): Case(
        VIEWER, 200, query={"drives": "{sim_drive}", "plan": "consistency"}
    ),
    ("GET", "/api/compare/charts"): Case(VIEWER, 200, query={"drives": "{sim_drive}"}),
    ("GET", "/api/compare/value"): Case(
        VIEWER, 200, query={"drives": "{sim_drive}", "metric": METRIC}
    ),
    ("GET", "/api/traces"): Case(VIEWER, 200),
    ("POST", "/api/traces"): Case(REVIEWER, 422, raw=b"", query={"name": "matrix"}),
    # shares: reading one needs nothing but its token
    ("GET", "/api/shares"): Case(REVIEWER, 200),
    ("POST", "/api/shares"): Case(REVIEWER, 422, body={}),
    ("GET", "/api/shares/{token}"): Case(PUBLIC, 200, path={"token": "{share_token}"}),
    ("GET", "/api/shares/{token}/pts"): Case(PUBLIC, 200, path={"token": "{share_token}"}),
    ("GET", "/api/shares/{token}/qd-sweep"): Case(PUBLIC, 200, path={"token": "{share_token}"}),
    ("GET", "/api/shares/{token}/series"): Case(
        PUBLIC, 200, path={"token": "{share_token}"}, query={"plan": "consistency"}
    ),
    ("GET", "/api/shares/{token}/value"): Case(
        PUBLIC, 200, path={"token": "{share_token}"}, query={"metric": METRIC}
    ),
    ("GET", "/api/shares/{token}/prices"): Case(PUBLIC, 200, path={"token": "{share_token}"}),
    ("GET", "/api/shares/{token}/charts"): Case(PUBLIC, 200, path={"token": "{share_token}"}),
    ("GET", "/api/shares/{token}/latency"): Case(
        PUBLIC,
        200,
        path={"token": "{share_token}"},
        query={"plan": "four-corners", "step": "no-such-step"},
    ),
    ("GET", "/api/shares/{token}/latency/steps"): Case(
        PUBLIC, 200, path={"token": "{share_token}"}, query={"plan": "four-corners"}
    ),
    ("DELETE", "/api/shares/{token}"): Case(REVIEWER, 204, path={"token": "{spare_share}"}),
    # the worker api: bench tokens only, and only for runs of the bench's own drives
    ("POST", "/api/worker/hello"): Case(ANY_BENCH, 422, body={}),
    # No queued or running run replays the matrix's trace, so no bench may read it (403);
    # test_hostile.py shows the bench whose run replays a trace reading it.
    ("GET", "/api/worker/traces/{trace_id}"): Case(ANY_BENCH, 403, path={"trace_id": "{trace_id}"}),
    ("POST", "/api/worker/runs/{run_id}/claim"): Case(
        OWN_BENCH, 409, body={"worker": "matrix"}, path=RUN
    ),
    ("POST", "/api/worker/runs/{run_id}/environment"): Case(
        OWN_BENCH, 409, body={"environment": {}}, path=RUN
    ),
    ("POST", "/api/worker/runs/{run_id}/heartbeat"): Case(OWN_BENCH, 409, body={}, path=RUN),
    ("POST", "/api/worker/runs/{run_id}/samples"): Case(
        OWN_BENCH, 409, body={"step_id": "{step_id}", "samples": []}, path=RUN
    ),
    ("POST", "/api/worker/runs/{run_id}/steps/{step_id}/start"): Case(
        OWN_BENCH, 409, body={}, path=WORKER_STEP
    ),
    ("POST", "/api/worker/runs/{run_id}/steps/{step_id}/finish"): Case(
        OWN_BENCH, 409, body={"status": "done"}, path=WORKER_STEP
    ),
    ("POST", "/api/worker/runs/{run_id}/steps/{step_id}/rounds"): Case(
        OWN_BENCH,
        409,
        body={"round": 1, "output": "{{}}", "t_start_ms": 0, "t_end_ms": 1},  # "{}" once filled
        path=WORKER_STEP,
    ),
    # the run is done: its points are asked for only while it runs
    ("GET", "/api/worker/runs/{run_id}/steps/{step_id}/points"): Case(
        OWN_BENCH, 409, path=WORKER_STEP
    ),
    # the run is done already: finishing it again changes nothing
    ("POST", "/api/worker/runs/{run_id}/finish"): Case(
        OWN_BENCH, 204, body={"status": "done"}, path=RUN
    ),
}


def new_sim_drive(stack: Stack, name: str, size: int = 256 * 1024 * 1024) -> dict:
    """A fresh simulated drive on bench local, with a model of its own."""
    target = stack.data_dir / "targets" / f"access-{name}.img"
    return stack.add_drive(target, f"Simulated drive {name}", size=size)


@pytest.fixture(scope="module")
def ids(stack: Stack, sim_drive: dict) -> dict[str, str]:
    """Real objects for every path parameter; throwaway ones where the call changes them."""
    tag = secrets.token_hex(3)
    with stack.client() as admin:
        run = wait_run(admin, queue(admin, sim_drive, QUICK)["id"])
        assert run["status"] == "done", run
        idle = new_sim_drive(stack, f"idle-{tag}", 64 * 1024 * 1024)
        model = admin.post(
            "/api/models",
            json={"vendor": f"Matrix {tag}", "model": "M1", "capacity_bytes": 10**12},
        ).json()
        trace = admin.post(
            "/api/traces",
            params={"name": f"matrix-{tag}"},
            content=(FIXTURES / "traces" / "mixed-v3.iolog").read_bytes(),
        ).json()
        spare_bench = f"matrix-spare-{tag}"
        assert admin.post("/api/benches", json={"name": spare_bench}).status_code == 201
        spare_user = admin.post(
            "/api/users", json={"name": f"matrix-spare-{tag}", "role": "viewer"}
        ).json()
        token = admin.post(f"/api/users/{spare_user['id']}/tokens", json={"name": "spare"}).json()
        shares = [
            admin.post(
                "/api/shares", json={"drives": [sim_drive["id"]], "title": f"matrix {i}"}
            ).json()
            for i in range(2)
        ]
    return {
        "run_id": str(run["id"]),
        "step_id": str(run["steps"][0]["id"]),
        "sim_drive": str(sim_drive["id"]),
        "idle_drive": str(idle["id"]),
        "model_id": str(model["id"]),
        "trace_id": str(trace["id"]),
        "spare_bench": spare_bench,
        "user_id": str(spare_user["id"]),
        "token_id": str(token["id"]),
        "share_token": shares[0]["token"],
        "spare_share": str(shares[1]["id"]),
    }


@pytest.fixture(scope="module")
def callers(stack: Stack, users: dict[str, User]) -> Iterator[dict[str, httpx.Client]]:
    with stack.client() as admin:
        other = admin.post("/api/benches", json={"name": f"matrix-other-{secrets.token_hex(3)}"})
        assert other.status_code == 201, other.text
    clients = {
        "anonymous": stack.client(token=""),
        "viewer": stack.client(token=users["viewer"].token),
        "reviewer": stack.client(token=users["reviewer"].token),
        "reviewer (session)": stack.session_client(users["reviewer"]),
        "admin": stack.client(),
        "bench (same)": stack.client(token=_bench_token(stack)),
        "bench (other)": stack.client(token=other.json()["token"]),
    }
    try:
        yield clients
    finally:
        for c in clients.values():
            c.close()


def _fill(value: Any, ids: dict[str, str]) -> Any:
    if isinstance(value, str):
        out = value.format(**ids)
        return int(out) if value.startswith("{") and out.isdigit() else out
    if isinstance(value, dict):
        return {k: _fill(v, ids) for k, v in value.items()}
    return value


def test_every_endpoint_is_classified() -> None:
    api = {
        (method.upper(), path)
        for path, ops in schema()["paths"].items()
        for method in ops
        if method in ("get", "post", "put", "patch", "delete")
    }
    missing = sorted(api - set(MATRIX))
    stale = sorted(set(MATRIX) - api)
    assert not missing, f"classify these endpoints in MATRIX (who may call them): {missing}"
    assert not stale, f"MATRIX lists endpoints the api does not have: {stale}"


def test_access_matrix(stack: Stack, ids: dict[str, str], callers: dict[str, httpx.Client]) -> None:
    # Signing out ends the cookie session the other calls use: last.
    order = sorted(MATRIX, key=lambda k: (k == ("POST", "/api/auth/logout"), k[1], k[0]))
    wrong: list[str] = []
    for method, template in order:
        case = MATRIX[(method, template)]
        path = template.format(**{k: str(_fill(v, ids)) for k, v in case.path.items()})
        query = {k: str(_fill(v, ids)) for k, v in case.query.items()}
        for who in PRINCIPALS:
            kwargs: dict[str, Any] = {"params": query}
            if case.raw is not None:
                kwargs["content"] = case.raw
            elif case.body is not None:
                kwargs["json"] = _fill(case.body, ids)
            if case.stream:
                with callers[who].stream(method, path, **kwargs) as r:
                    if r.status_code != 200:
                        r.read()
            else:
                r = callers[who].request(method, path, **kwargs)
            want = expected(case, who)
            if r.status_code != want:
                wrong.append(
                    f"{method} {path} as {who}: {r.status_code}, want {want}: {r.text[:200]}"
                )
            elif want in (401, 403):
                detail = r.json().get("detail")
                if not (isinstance(detail, str) and len(detail) > 20):
                    wrong.append(f"{method} {path} as {who}: {want} without a message: {r.text}")
    assert not wrong, f"{len(wrong)} unexpected answers:\n" + "\n".join(wrong)


def test_the_drive_list_is_the_json_its_response_model_gives(
    stack: Stack, ids: dict[str, str], callers: dict[str, httpx.Client]
) -> None:
    """GET /api/drives writes its JSON from plain rows in one step (not through FastAPI's
    response_model path): the same document that path gives, each drive exactly DriveOut's JSON
    of itself, keys and order included, what GET /api/drives/{id} says of it, and valid UTF-8
    whatever the names hold."""
    from fastapi.encoders import jsonable_encoder

    from backend.drives.schemas import DriveOut

    for who in ("viewer", "admin"):
        r = callers[who].get("/api/drives")
        assert r.status_code == 200, r.text
        assert r.headers["content-type"] == "application/json"
        listed = r.json()
        assert listed and any(str(d["id"]) == ids["idle_drive"] for d in listed)
        models = [DriveOut.model_validate(d) for d in listed]
        assert listed == jsonable_encoder(models)
        assert [list(d) for d in listed] == [list(m.model_dump(mode="json")) for m in models]
        # Each listed drive is what the drive's own answer (a DriveOut model, through FastAPI's
        # response_model) says of it. (A run of an earlier test may end between the calls and
        # change a drive's active run: then the two are asked again.)
        for _ in range(3):
            ones = [callers[who].get(f"/api/drives/{d['id']}") for d in listed]
            assert all(one.status_code == 200 for one in ones), [o.text for o in ones]
            if [one.json() for one in ones] == listed:
                break
            time.sleep(1)
            listed = callers[who].get("/api/drives").json()
        assert [one.json() for one in ones] == listed


def test_denials_say_why(stack: Stack, users: dict[str, User], sim_drive: dict) -> None:
    body = {"plan": "four-corners", "drive_id": sim_drive["id"], "params": QUICK}
    with stack.client(token="") as anon:
        r = anon.get("/api/runs")
        assert r.status_code == 401 and "sign in" in r.json()["detail"]
    with stack.client(token=users["viewer"].token) as viewer:
        r = viewer.post("/api/runs", json=body)
        assert r.status_code == 403
        assert f"user {users['viewer'].name} is a viewer" in r.json()["detail"]
        assert "needs a reviewer" in r.json()["detail"]
        r = viewer.post("/api/worker/runs/1/claim", json={"worker": "x"})
        assert r.status_code == 403 and "bench's token, not a user's" in r.json()["detail"]
    with stack.client(token=_bench_token(stack)) as bench:
        for r in (bench.get("/api/drives"), bench.post("/api/runs", json=body)):
            assert r.status_code == 403
            assert "bench local's worker token" in r.json()["detail"]
    with stack.client(token="dla_revoked-or-never-issued") as bad:
        r = bad.get("/api/drives")
        assert r.status_code == 401 and "unknown or revoked token" in r.json()["detail"]


# --- cookie sessions and CSRF --------------------------------------------------------------


def test_cookie_sessions_need_the_csrf_header(stack: Stack, users: dict[str, User]) -> None:
    reviewer = users["reviewer"]
    with closing(stack.session_client(reviewer, csrf=False)) as browser:
        cookies = {c.name: c for c in browser.cookies.jar}
        assert set(cookies) == {"drivelab_session", "drivelab_csrf"}
        # The session id is out of scripts' reach; the CSRF token is for the app to read.
        assert cookies["drivelab_session"].has_nonstandard_attr("HttpOnly")
        assert not cookies["drivelab_csrf"].has_nonstandard_attr("HttpOnly")
        assert not cookies["drivelab_session"].secure  # loopback: plain HTTP works
        me = browser.get("/api/auth/me").json()
        assert me == {
            "id": reviewer.id,
            "name": reviewer.name,
            "role": "reviewer",
            "via": "session",
        }

        # Reads need no CSRF token; writes do, and a wrong one is refused too.
        body = {"name": "csrf test"}
        r = browser.post("/api/auth/tokens", json=body)
        assert r.status_code == 403 and "X-CSRF-Token" in r.json()["detail"]
        r = browser.post("/api/auth/tokens", json=body, headers={"X-CSRF-Token": "forged"})
        assert r.status_code == 403
        # A forged pair (cookie and header both set by an attacker) does not match the session.
        forged = {
            "drivelab_csrf": "forged",
            "drivelab_session": browser.cookies["drivelab_session"],
        }
        with httpx.Client(base_url=stack.api_url, cookies=forged) as attacker:
            r = attacker.post("/api/auth/tokens", json=body, headers={"X-CSRF-Token": "forged"})
            assert r.status_code == 403
        csrf = browser.cookies["drivelab_csrf"]
        r = browser.post("/api/auth/tokens", json=body, headers={"X-CSRF-Token": csrf})
        assert r.status_code == 201, r.text

        # Signing out needs the header too, then the session is gone.
        assert browser.post("/api/auth/logout").status_code == 403
        assert browser.post("/api/auth/logout", headers={"X-CSRF-Token": csrf}).status_code == 204
        stale = {"drivelab_session": cookies["drivelab_session"].value}
        with httpx.Client(base_url=stack.api_url, cookies=stale) as old:
            r = old.get("/api/auth/me")
            assert r.status_code == 401 and "session has expired or was ended" in r.json()["detail"]


def _from(address: str, stack: Stack) -> httpx.Client:
    """A client connecting from another loopback address, so the per-address limit of these
    tests does not lock out the others (all on 127.0.0.1)."""
    return httpx.Client(
        base_url=stack.api_url,
        transport=httpx.HTTPTransport(local_address=address),
        timeout=30,
    )


def _sign_in(c: httpx.Client, user: User, password: str | None = None, **kw: Any) -> httpx.Response:
    body = {"name": user.name, "password": user.password if password is None else password}
    return c.post("/api/auth/login", json=body, **kw)


def test_failed_sign_ins_lock_one_name_from_one_address_only(stack: Stack) -> None:
    """5 failures for user A from one address: A is refused from there, and only there; user
    B signs in from the same address, A from another; A's one-time link and A's API token
    work from the address where A's password attempts are used up."""
    a, b = stack.create_user("viewer"), stack.create_user("viewer")
    with _from("127.0.0.2", stack) as c:
        for _ in range(5):
            r = _sign_in(c, a, "not the password")
            assert r.status_code == 401 and r.json()["detail"] == "wrong user name or password"
        r = _sign_in(c, a)
        assert r.status_code == 429, r.text
        assert 0 < int(r.headers["Retry-After"]) <= 300
        detail = r.json()["detail"]
        assert f"too many failed sign-ins for user {a.name} from 127.0.0.2" in detail, detail
        assert "try again in" in detail and "one-time link" in detail
        # A colleague is not locked out by someone failing as A...
        assert _sign_in(c, b).status_code == 200
    # ...nor is A from anywhere else.
    with _from("127.0.0.3", stack) as c:
        assert _sign_in(c, a).status_code == 200
    link = stack.login_link(a.name).split("once=", 1)[1]
    with _from("127.0.0.2", stack) as c:
        assert _sign_in(c, a).status_code == 429  # still, from 127.0.0.2
        r = c.post("/api/auth/once", json={"token": link})
        assert r.status_code == 200 and r.json()["name"] == a.name, r.text
        r = c.get("/api/auth/me", headers={"Authorization": f"Bearer {a.token}"})
        assert r.status_code == 200 and r.json() == {**r.json(), "name": a.name, "via": "token"}
    # Unknown names fail the same way (nothing tells which names exist).
    with _from("127.0.0.4", stack) as c:
        r = c.post("/api/auth/login", json={"name": "nobody-" + a.name, "password": "x"})
        assert r.status_code == 401 and r.json()["detail"] == "wrong user name or password"


def test_an_address_trying_many_names_is_throttled_but_links_and_tokens_work(
    stack: Stack,
) -> None:
    """100 failures from one address, whatever the names, and password sign-ins from there
    wait for the window; one-time links and API tokens are never refused for it."""
    user = stack.create_user("viewer")
    tag = secrets.token_hex(3)
    with _from("127.0.0.6", stack) as c:
        for i in range(100):
            r = c.post("/api/auth/login", json={"name": f"spray-{tag}-{i}", "password": "x"})
            assert r.status_code == 401, (i, r.text)
        r = _sign_in(c, user)
        assert r.status_code == 429, r.text
        assert "from 127.0.0.6 (100 within 5 minutes, all user names together)" in r.text
        link = stack.login_link(user.name).split("once=", 1)[1]
        r = c.post("/api/auth/once", json={"token": link})
        assert r.status_code == 200 and r.json()["name"] == user.name, r.text
        r = c.get("/api/auth/me", headers={"Authorization": f"Bearer {user.token}"})
        assert r.status_code == 200 and r.json()["name"] == user.name
        # A wrong link is refused for what it is, not for the address's failures.
        r = c.post("/api/auth/once", json={"token": "not-a-link"})
        assert r.status_code == 401 and "not a drivelab sign-in link" in r.json()["detail"]


@pytest.fixture(scope="module")
def proxied_api(stack: Stack) -> Iterator[str]:
    """A second api on the stack's database and Redis, started as `drivelab up` starts its
    api, that trusts 127.0.0.9 as its reverse proxy (DRIVELAB_TRUSTED_PROXIES)."""
    api_env = environ(stack_process(stack, "uvicorn"))
    port = free_port()
    settings = Settings(host="127.0.0.1", port=port)
    env = {
        **os.environ,
        **{k: v for k, v in api_env.items() if k.startswith("DRIVELAB_")},
        "DRIVELAB_HOST": "127.0.0.1",
        "DRIVELAB_PORT": str(port),
        "DRIVELAB_TRUSTED_PROXIES": "127.0.0.9",
    }
    child = up_api(settings, env, verbose=False).start()
    assert child.proc is not None
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert child.exited() is None, f"the api exited ({child.exited()})"
            try:
                if httpx.get(f"{url}/api/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the second api did not answer"
            time.sleep(0.2)
        yield url
    finally:
        child.proc.terminate()
        child.proc.wait(30)


def _peer(url: str, address: str) -> httpx.Client:
    return httpx.Client(
        base_url=url, transport=httpx.HTTPTransport(local_address=address), timeout=30
    )


def test_x_forwarded_for_counts_only_from_a_trusted_proxy(stack: Stack, proxied_api: str) -> None:
    # `drivelab up`'s api trusts no proxy, not even 127.0.0.1 (uvicorn's own default).
    user = stack.create_user("viewer")
    with _peer(stack.api_url, "127.0.0.1") as c:
        for i in range(5):
            r = _sign_in(c, user, "wrong", headers={"X-Forwarded-For": f"10.9.0.{i}"})
            assert r.status_code == 401, r.text
        r = _sign_in(c, user, headers={"X-Forwarded-For": "10.9.0.99"})
        assert r.status_code == 429 and "from 127.0.0.1 (" in r.json()["detail"], r.text
    # From its proxy, an api counts each forwarded address apart...
    user = stack.create_user("viewer")
    with _peer(proxied_api, "127.0.0.9") as proxy:
        for _ in range(5):
            r = _sign_in(proxy, user, "wrong", headers={"X-Forwarded-For": "10.9.1.1"})
            assert r.status_code == 401, r.text
        r = _sign_in(proxy, user, headers={"X-Forwarded-For": "10.9.1.1"})
        assert r.status_code == 429 and "from 10.9.1.1 (" in r.json()["detail"], r.text
        # What a client claims ahead of the address its proxy appends is not believed.
        r = _sign_in(proxy, user, headers={"X-Forwarded-For": "10.9.1.1, 10.9.1.2"})
        assert r.status_code == 200, r.text
        # ...and takes the scheme it forwards: links made through it are https.
        r = proxy.post(
            "/api/auth/links",
            json={},
            headers={"Authorization": f"Bearer {stack.token}", "X-Forwarded-Proto": "https"},
        )
        assert r.status_code == 201 and r.json()["url"].startswith("https://"), r.text
    # ...but from any other peer, X-Forwarded-For is ignored.
    user = stack.create_user("viewer")
    with _peer(proxied_api, "127.0.0.8") as c:
        for i in range(5):
            r = _sign_in(c, user, "wrong", headers={"X-Forwarded-For": f"10.9.2.{i}"})
            assert r.status_code == 401, r.text
        r = _sign_in(c, user, headers={"X-Forwarded-For": "10.9.2.99"})
        assert r.status_code == 429 and "from 127.0.0.8 (" in r.json()["detail"], r.text


# --- one-time sign-in links ----------------------------------------------------------------


def _once(stack: Stack, url: str) -> httpx.Response:
    with _from("127.0.0.5", stack) as c:
        return c.post("/api/auth/once", json={"token": url.split("once=", 1)[1]})


def test_one_time_links_expire(stack: Stack, users: dict[str, User]) -> None:
    url = stack.login_link(users["viewer"].name, ttl_s=1)
    time.sleep(1.5)
    r = _once(stack, url)
    assert r.status_code == 401 and "expired" in r.json()["detail"]
    fresh = _once(stack, stack.login_link(users["viewer"].name))
    assert fresh.status_code == 200 and fresh.json()["name"] == users["viewer"].name
    bogus = _once(stack, f"{stack.api_url}/login?once=not-a-link")
    assert bogus.status_code == 401 and "not a drivelab sign-in link" in bogus.json()["detail"]
    # Only admins hand out links.
    with stack.client(token=users["reviewer"].token) as reviewer:
        assert reviewer.post("/api/auth/links", json={}).status_code == 403


# --- users, tokens --------------------------------------------------------------------------


def test_disabling_a_user_ends_its_sessions_and_tokens(stack: Stack) -> None:
    user = stack.create_user("reviewer")
    with (
        stack.client() as admin,
        stack.client(token=user.token) as scripted,
        closing(stack.session_client(user)) as browser,
    ):
        assert scripted.get("/api/auth/me").status_code == 200
        r = admin.patch(f"/api/users/{user.id}", json={"role": "viewer"})
        assert r.status_code == 200 and r.json()["role"] == "viewer"
        assert scripted.get("/api/auth/me").json()["role"] == "viewer"
        r = admin.patch(f"/api/users/{user.id}", json={"disabled": True})
        assert r.status_code == 200 and r.json()["disabled"]
        r = scripted.get("/api/auth/me")
        assert r.status_code == 401 and "disabled" in r.json()["detail"]
        assert browser.get("/api/auth/me").status_code == 401
        r = httpx.post(
            f"{stack.api_url}/api/auth/login",
            json={"name": user.name, "password": user.password},
        )
        assert r.status_code == 403 and "disabled" in r.json()["detail"]
        # A revoked token stops working at once; the token list never shows tokens.
        admin.patch(f"/api/users/{user.id}", json={"disabled": False})
        tokens = admin.get(f"/api/users/{user.id}/tokens").json()
        assert tokens and all("token" not in t for t in tokens)
        assert scripted.get("/api/auth/me").status_code == 200
        r = admin.delete(f"/api/users/{user.id}/tokens/{tokens[0]['id']}")
        assert r.status_code == 204
        assert scripted.get("/api/auth/me").status_code == 401
        # The last admin stays an admin.
        me = admin.get("/api/auth/me").json()
        others = [
            u
            for u in admin.get("/api/users").json()
            if u["role"] == "admin" and not u["disabled"] and u["id"] != me["id"]
        ]
        if not others:
            r = admin.patch(f"/api/users/{me['id']}", json={"role": "viewer"})
            assert r.status_code == 409 and "only active admin" in r.json()["detail"]
        events = admin.get("/api/audit", params={"action": "user.role_changed"}).json()
        assert any(
            e["subject"] == f"user {user.name}"
            and e["details"] == {"from": "reviewer", "to": "viewer"}
            for e in events
        )


# --- embargo and shares --------------------------------------------------------------------


@pytest.fixture(scope="module")
def embargo_drive(stack: Stack) -> dict:
    """A drive of its own model with a done run (purge, fill and random writes)."""
    drive = new_sim_drive(stack, f"embargo-{secrets.token_hex(3)}")
    with stack.client() as c:
        run = wait_run(c, queue(c, drive, {"runtime_s": 2}, plan="consistency")["id"])
    assert run["status"] == "done", run
    return {**drive, "run": run}


def test_a_run_that_finishes_keeps_its_comparison_charts(stack: Stack, embargo_drive: dict) -> None:
    """The api draws a finished run's first-open comparison charts at its finish
    (step_charts): its consistency pass is kept before any comparison asked for it, and only
    that step (the purge and the fill draw no chart)."""
    steps = {s["id"]: s["name"] for s in embargo_drive["run"]["steps"]}
    with psycopg.connect(stack_database_url(stack)) as conn:
        # made_at is its transaction's start: before the run's finished_at only when it was
        # made in the finish's own transaction, not by a later comparison.
        kept = conn.execute(
            "SELECT c.step_id, c.key, c.series::jsonb->>'step', c.made_at <= r.finished_at "
            "FROM step_charts c JOIN steps s ON s.id = c.step_id JOIN runs r ON r.id = s.run_id "
            "WHERE c.step_id = ANY(%s)",
            (list(steps),),
        ).fetchall()
    assert [(steps[i], key, name, at_finish) for i, key, name, at_finish in kept] == [
        ("consistency-4k-qd32", "write_iops:2000", "consistency-4k-qd32", True)
    ]


def _embargo(stack: Stack, model_id: int, until: datetime | None) -> None:
    with stack.client() as c:
        body = {"embargo_until": until.isoformat() if until else None}
        r = c.patch(f"/api/models/{model_id}", json=body)
        assert r.status_code == 200, r.text


def test_embargoed_drives_are_hidden_from_viewers_and_shared_links(
    stack: Stack, users: dict[str, User], sim_drive: dict, ids: dict, embargo_drive: dict
) -> None:
    # `ids` ran four-corners on the sim drive: it has results to compare.
    drive, run = embargo_drive, embargo_drive["run"]
    model_id = drive["model"]["id"]
    step = run["steps"][-1]
    with stack.client(token=users["reviewer"].token) as reviewer:
        share = reviewer.post(
            "/api/shares",
            json={
                "drives": [sim_drive["id"], drive["id"]],
                "under_review": drive["id"],
                "title": "Embargo test",
            },
        ).json()
    token = share["token"]
    assert share["url"].endswith(f"/api/shares/{token}")

    def shared_drives() -> set[int]:
        r = httpx.get(f"{stack.api_url}/api/shares/{token}")
        assert r.status_code == 200, r.text
        body = r.json()
        return {row["drive_id"] for m in body["comparison"]["metrics"] for row in m["rows"]}

    assert drive["id"] in shared_drives()
    r = httpx.get(f"{stack.api_url}/api/shares/{token}/series", params={"plan": "consistency"})
    assert drive["id"] in {d["drive_id"] for d in r.json()["drives"]}, r.text
    charts = httpx.get(f"{stack.api_url}/api/shares/{token}/charts").json()
    assert charts["drives"] == [sim_drive["id"], drive["id"]], charts
    assert charts["under_review"] == drive["id"]
    consistency = [c["answer"] for c in charts["series"] if c["plan"] == "consistency"]
    assert drive["id"] in {d["drive_id"] for d in consistency[0]["drives"]}, charts["series"]
    _embargo(stack, model_id, datetime.now(UTC) + timedelta(days=7))
    try:
        with stack.client() as admin:  # an admin sees it, marked, as its own answer says
            listed = {d["id"]: d for d in admin.get("/api/drives").json()}
            assert listed[drive["id"]]["embargoed"] is True
            assert listed[drive["id"]]["model"]["embargo_until"] is not None
            assert admin.get(f"/api/drives/{drive['id']}").json() == listed[drive["id"]]
        with stack.client(token=users["viewer"].token) as viewer:
            assert drive["id"] not in {d["id"] for d in viewer.get("/api/drives").json()}
            assert model_id not in {m["id"] for m in viewer.get("/api/models").json()}
            assert run["id"] not in {r["id"] for r in viewer.get("/api/runs").json()}
            assert viewer.get("/api/runs", params={"drive_id": drive["id"]}).json() == []
            for path in (
                f"/api/drives/{drive['id']}",
                f"/api/models/{model_id}",
                f"/api/runs/{run['id']}",
                f"/api/runs/{run['id']}/samples",
                f"/api/runs/{run['id']}/jobs",
                f"/api/runs/{run['id']}/events",
                f"/api/runs/{run['id']}/steps/{step['id']}/output",
                f"/api/runs/{run['id']}/steps/{step['id']}/logs",
                f"/api/runs/{run['id']}/series?step_id={step['id']}&metric=write_iops",
            ):
                r = viewer.get(path)
                assert r.status_code == 404, (path, r.status_code, r.text)
            # In a comparison it is exactly like a drive that does not exist.
            r = viewer.get("/api/compare", params={"drives": f"{sim_drive['id']},{drive['id']}"})
            # (404 as for any id that names nothing; it was 422 before the fuzzing with all
            # checks: an id that fits the schema is not invalid input.)
            assert r.status_code == 404 and f"no drive with id {drive['id']}" in r.json()["detail"]
            r = viewer.get("/api/compare/pair", params={"a": sim_drive["id"], "b": drive["id"]})
            assert r.status_code == 404
            r = viewer.get(
                "/api/compare/article", params={"drives": f"{sim_drive['id']},{drive['id']}"}
            )
            assert r.status_code == 404 and f"no drive with id {drive['id']}" in r.json()["detail"]
            r = viewer.get(
                "/api/compare/charts", params={"drives": f"{sim_drive['id']},{drive['id']}"}
            )
            assert r.status_code == 404 and f"no drive with id {drive['id']}" in r.json()["detail"]
        with stack.client(token=users["reviewer"].token) as reviewer:
            d = reviewer.get(f"/api/drives/{drive['id']}").json()
            assert d["embargoed"] and d["model"]["embargo_until"]
            r = reviewer.get(f"/api/runs/{run['id']}").json()
            assert r["embargoed"]
            assert reviewer.get(f"/api/models/{model_id}").json()["embargoed"]
            rows = [
                row
                for m in reviewer.get("/api/compare", params={"drives": drive["id"]}).json()[
                    "metrics"
                ]
                for row in m["rows"]
            ]
            assert rows and all(row["embargoed"] for row in rows)
        # The shared link leaves it out, and so the drive under review too, from its charts.
        assert shared_drives() == {sim_drive["id"]}
        r = httpx.get(f"{stack.api_url}/api/shares/{token}/series", params={"plan": "consistency"})
        assert r.status_code == 200, r.text
        charted = {d["drive_id"] for d in r.json()["drives"] + r.json()["missing"]}
        assert drive["id"] not in charted
        assert httpx.get(f"{stack.api_url}/api/shares/{token}").json()["under_review"] is None
        charts = httpx.get(f"{stack.api_url}/api/shares/{token}/charts").json()
        assert charts["drives"] == [sim_drive["id"]] and charts["under_review"] is None
        for c in charts["series"]:
            shown = c["answer"]["drives"] + c["answer"]["missing"]
            assert drive["id"] not in {d["drive_id"] for d in shown}, c
        # An embargo that has ended hides nothing.
        _embargo(stack, model_id, datetime.now(UTC) - timedelta(minutes=1))
        with stack.client(token=users["viewer"].token) as viewer:
            assert viewer.get(f"/api/runs/{run['id']}").status_code == 200
            assert not viewer.get(f"/api/drives/{drive['id']}").json()["embargoed"]
        assert drive["id"] in shared_drives()
    finally:
        _embargo(stack, model_id, None)


def test_shared_links_are_read_without_login_until_revoked(
    stack: Stack, users: dict[str, User], sim_drive: dict, ids: dict
) -> None:
    # `ids` ran four-corners on the sim drive: it has results to compare.
    with stack.client(token=users["reviewer"].token) as reviewer:
        r = reviewer.post(
            "/api/shares",
            json={
                "drives": [sim_drive["id"]],
                "metrics": [METRIC],
                "added_metrics": [METRIC],
                "title": "For the editor",
            },
        )
        assert r.status_code == 201, r.text
        share = r.json()
        assert share["added_metrics"] == [METRIC]
        assert len(share["token"]) >= 43  # secrets.token_urlsafe(32)
        r = reviewer.post("/api/shares", json={"drives": [999999], "title": "x"})
        assert r.status_code == 404 and "no drive with id 999999" in r.json()["detail"]
        r = reviewer.post(
            "/api/shares", json={"drives": [sim_drive["id"]], "metrics": ["x"], "title": "x"}
        )
        assert r.status_code == 422 and "plan:step:metric" in r.json()["detail"]
        # A chart of a metric the link does not share, or a name that is not a metric's.
        other_metric = "four-corners:seqread-128k-qd32:read_mbps"
        for added, words in (([other_metric], "not among the shared metrics"), (["x"], "plan:")):
            r = reviewer.post(
                "/api/shares",
                json={
                    "drives": [sim_drive["id"]],
                    "metrics": [METRIC],
                    "title": "x",
                    "added_metrics": added,
                },  # fmt: skip
            )
            assert r.status_code == 422 and words in r.json()["detail"], r.text

        public = httpx.get(share["url"])
        assert public.status_code == 200, public.text
        body = public.json()
        assert body["title"] == "For the editor"
        assert body["added_metrics"] == [METRIC]
        assert [m["metric"] for m in body["comparison"]["metrics"]] == [METRIC]
        assert body["comparison"]["metrics"][0]["rows"][0]["drive_id"] == sim_drive["id"]
        # Listed for reviewers, without the token: who, when, which drives, views.
        listed = {s["id"]: s for s in reviewer.get("/api/shares").json()}
        assert listed[share["id"]]["title"] == "For the editor"
        assert "token" not in listed[share["id"]]
        assert listed[share["id"]]["created_by"] == users["reviewer"].name
        assert listed[share["id"]]["views"] == 1
        assert listed[share["id"]]["last_viewed_at"] is not None
        drive_name = sim_drive.get("short_name") or sim_drive["label"]
        assert listed[share["id"]]["drive_names"] == [drive_name]
        assert httpx.get(share["url"]).status_code == 200
        assert httpx.get(share["url"]).status_code == 200
        listed = {s["id"]: s for s in reviewer.get("/api/shares").json()}
        assert listed[share["id"]]["views"] == 3
        # Reading the list or a chart of the link is not a view of it.
        assert httpx.get(f"{share['url']}/pts").status_code == 200
        listed = reviewer.get("/api/shares").json()
        assert {s["id"]: s for s in listed}[share["id"]]["views"] == 3
        assert [s["id"] for s in listed] == sorted((s["id"] for s in listed), reverse=True)

        # Revoked by its token, or by its id: the link answers 404 from then on.
        assert reviewer.delete(f"/api/shares/{share['token']}").status_code == 204
        gone = httpx.get(share["url"])
        assert gone.status_code == 404 and "revoked" in gone.json()["detail"]
        listed = {s["id"]: s for s in reviewer.get("/api/shares").json()}
        assert listed[share["id"]]["revoked_at"] is not None
        other = reviewer.post(
            "/api/shares", json={"drives": [sim_drive["id"]], "title": "Second"}
        ).json()
        assert httpx.get(other["url"]).status_code == 200
        assert reviewer.delete(f"/api/shares/{other['id']}").status_code == 204
        assert httpx.get(other["url"]).status_code == 404
        assert reviewer.delete("/api/shares/999999").status_code == 404
    assert httpx.get(f"{stack.api_url}/api/shares/not-a-share").status_code == 404


# --- the audit log -------------------------------------------------------------------------


def test_audit_log_records_destructive_actions(
    stack: Stack, users: dict[str, User], sim_drive: dict, embargo_drive: dict
) -> None:
    reviewer = users["reviewer"]
    with stack.client(token=reviewer.token) as c:
        run = queue(c, sim_drive, QUICK)
    with stack.client() as admin:
        bench = f"audit-{secrets.token_hex(3)}"
        assert admin.post("/api/benches", json={"name": bench}).status_code == 201
        assert admin.post(f"/api/benches/{bench}/token").status_code == 200
        assert admin.delete(f"/api/benches/{bench}/token").status_code == 204
        me = admin.get("/api/auth/me").json()["name"]
        wait_run(admin, run["id"])
        events = admin.get("/api/audit", params={"limit": 5000}).json()

    queued = next(e for e in events if e["action"] == "run.queued" and e["run_id"] == run["id"])
    assert queued["actor_kind"] == "user" and queued["actor_name"] == reviewer.name
    assert queued["drive_id"] == sim_drive["id"]
    assert queued["details"]["plan"] == "four-corners"
    assert queued["details"]["confirmed_serial"] == sim_drive["serial"]
    assert sim_drive["serial"] in queued["details"]["drive"]

    about = [(e["action"], e["actor_name"]) for e in events if e["subject"] == f"bench {bench}"]
    assert about == [
        ("bench.token_revoked", me),
        ("bench.token_rotated", me),
        ("bench.token_created", me),
    ]
    # The purge step of the consistency run, as its bench reported starting it.
    purge = next(s for s in embargo_drive["run"]["steps"] if s["kind"] == "purge")
    started = [
        e
        for e in events
        if e["action"] == "step.started" and e["run_id"] == embargo_drive["run"]["id"]
    ]
    assert [e["details"]["step_id"] for e in started] == [purge["id"]]
    assert started[0]["actor_kind"] == "bench" and started[0]["actor_name"] == "local"
    assert started[0]["drive_id"] == embargo_drive["id"]
    # `drivelab up` issued the CLI's token and the local bench's, as the system.
    assert any(e["action"] == "user_token.created" and e["actor_kind"] == "system" for e in events)
    assert any(
        e["action"] in ("bench.token_created", "bench.token_rotated")
        and e["subject"] == "bench local"
        and e["actor_kind"] == "system"
        for e in events
    )
