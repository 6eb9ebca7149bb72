"""Retention through the api and the CLI after real runs: compacting a run's per-second
samples and window logs leaves every result, analysis, fio JSON output and comparison exactly
as it was, keeps the extremes of every chart, is recorded in the audit log, and is done once."""

from __future__ import annotations

import json

import psycopg
import pytest

from tests.bench.common import stack_database_url
from tests.conftest import Stack
from tests.e2e.test_plans import run_plan
from tests.e2e.test_results import new_sim_drive

pytestmark = pytest.mark.e2e


def _finished_days_ago(stack: Stack, run_ids: list[int], days: int) -> None:
    """Backdate the runs' end, as if they had run `days` ago (the api never moves it)."""
    with psycopg.connect(stack_database_url(stack)) as conn:
        conn.execute(
            "UPDATE runs SET finished_at = finished_at - make_interval(days => %s) "
            "WHERE id = ANY(%s)",
            (days, run_ids),
        )


def _sample_counts(stack: Stack, step_ids: list[int]) -> dict[int, int]:
    with psycopg.connect(stack_database_url(stack)) as conn:
        rows = conn.execute(
            # every sample, whether a row of `samples` or packed (a finished step's are)
            "SELECT step_id, count(*) FROM sample_rows WHERE step_id = ANY(%s) GROUP BY step_id",
            (step_ids,),
        ).fetchall()
    return {int(s): int(n) for s, n in rows}


def _snapshot(c, run: dict) -> dict:  # type: ignore[no-untyped-def]
    """Everything of a run that retention must leave as it is."""
    full = c.get(f"/api/runs/{run['id']}").json()
    outputs = {}
    for step in full["steps"]:
        r = c.get(f"/api/runs/{run['id']}/steps/{step['id']}/output")
        outputs[step["id"]] = r.text if r.status_code == 200 else r.status_code
    steps = [{k: v for k, v in s.items() if k not in ("progress",)} for s in full["steps"]]
    return {"steps": steps, "outputs": outputs, "status": full["status"]}


def _series(c, run: dict, step: dict, metric: str, **params: object) -> dict:  # type: ignore[no-untyped-def]
    r = c.get(
        f"/api/runs/{run['id']}/series",
        params={"step_id": step["id"], "metric": metric, **params},
    )
    assert r.status_code == 200, r.text
    return r.json()


def test_compaction_keeps_results_outputs_and_chart_extremes(stack: Stack) -> None:
    drive = new_sim_drive(stack, "retention")
    with stack.client() as c:
        consistency = run_plan(c, drive, "consistency", {"runtime_s": 24})
        hitch = run_plan(c, drive, "write-hitching", {"runtime_s": 2, "span": "128m"})
        runs = [consistency, hitch]
        steady = consistency["steps"][-1]
        hitch_step = hitch["steps"][0]
        # Nothing is old enough yet: the newest runs are not touched.
        c.put("/api/admin/retention", json={"days": 30, "points": 4}).raise_for_status()
        policy = c.get("/api/admin/retention").json()
        assert policy["days"] == 30 and policy["points"] == 4 and policy["eligible_runs"] == 0
        _finished_days_ago(stack, [r["id"] for r in runs], 31)
        assert c.get("/api/admin/retention").json()["eligible_runs"] == 2

        step_ids = [s["id"] for r in runs for s in r["steps"]]
        counts_before = _sample_counts(stack, step_ids)
        before = {r["id"]: _snapshot(c, r) for r in runs}
        compared = c.get(
            "/api/compare", params={"drives": str(drive["id"]), "under_review": drive["id"]}
        ).json()
        iops_full = _series(c, consistency, steady, "write_iops", full=True)
        lat_full = _series(c, consistency, steady, "write_lat_max_us", full=True)
        log_full = _series(c, hitch, hitch_step, "log_bw:write", full=True)
        stalls_before = c.get(
            "/api/compare/series", params={"drives": str(drive["id"]), "plan": "write-hitching"}
        ).json()
        logs_before = c.get(f"/api/runs/{hitch['id']}/steps/{hitch_step['id']}/logs").json()

        done = stack.cli("retention", "compact", "--json")
        out = json.loads(done.stdout)
        assert sorted(out["runs"]) == sorted(r["id"] for r in runs)
        assert out["samples_before"] == sum(counts_before.values())
        assert out["samples_after"] < out["samples_before"]
        assert out["log_rows_before"] > out["log_points_after"] > 0

        # Every result, analysis and fio JSON output is as it was, and so is the comparison.
        for r in runs:
            assert _snapshot(c, r) == before[r["id"]]
        assert (
            c.get(
                "/api/compare", params={"drives": str(drive["id"]), "under_review": drive["id"]}
            ).json()
            == compared
        )
        counts_after = _sample_counts(stack, step_ids)
        assert counts_after[steady["id"]] < counts_before[steady["id"]]
        assert all(counts_after[s] >= min(counts_before[s], 4) for s in counts_before)

        # The charts still draw, with every extreme at its value and time.
        iops = _series(c, consistency, steady, "write_iops", full=True)
        assert iops["total_points"] == counts_after[steady["id"]] - (
            counts_before[steady["id"]] - iops_full["total_points"]
        )
        for full, now in ((iops_full, iops), (lat_full, _series(
            c, consistency, steady, "write_lat_max_us", full=True
        ))):  # fmt: skip
            ys = [y for _x, y in full["points"]]
            kept = [tuple(p) for p in now["points"]]
            lo = full["points"][ys.index(min(ys))]
            hi = full["points"][ys.index(max(ys))]
            assert tuple(lo) in kept and tuple(hi) in kept
            assert set(kept) <= {tuple(p) for p in full["points"]}  # true intervals only
        log_now = _series(c, hitch, hitch_step, "log_bw:write", full=True)
        assert 0 < len(log_now["points"]) <= 4 < len(log_full["points"])
        ys = [y for _x, y in log_full["points"]]
        assert {min(ys), max(ys)} <= {y for _x, y in log_now["points"]}
        logs_now = c.get(f"/api/runs/{hitch['id']}/steps/{hitch_step['id']}/logs").json()
        assert logs_now["bw"]["rows"] == len(logs_before["bw"]["t_ms"])
        stalls_now = c.get(
            "/api/compare/series", params={"drives": str(drive["id"]), "plan": "write-hitching"}
        ).json()
        assert [d["run_id"] for d in stalls_now["drives"]] == [hitch["id"]]
        lines_before = stalls_before["drives"][0]["series"]
        lines_now = stalls_now["drives"][0]["series"]
        assert [s["step_id"] for s in lines_now] == [s["step_id"] for s in lines_before]
        for now, was in zip(lines_now, lines_before, strict=True):
            assert now["points"] and now["stalls"] == was["stalls"]
            ys = [y for _x, y in was["points"]]
            assert {min(ys), max(ys)} <= {y for _x, y in now["points"]}

        # Recorded, and done once: the same runs are not compacted again.
        audit = c.get("/api/audit", params={"action": "retention.compacted"}).json()
        assert audit and audit[0]["details"]["run_ids"] == out["runs"]
        changed = c.get("/api/audit", params={"action": "retention.changed"}).json()
        assert changed[0]["details"]["after"] == {"days": 30, "points": 4}
        again = c.post("/api/admin/retention/compact", json={}).json()
        assert again["runs"] == [] and again["samples_before"] == 0
        assert c.get("/api/audit", params={"action": "retention.compacted"}).json() == audit
        c.put("/api/admin/retention", json={"days": None, "points": 650}).raise_for_status()


def test_retention_refuses_bad_settings_and_non_admins(stack: Stack) -> None:
    viewer = stack.create_user("reviewer")
    with stack.client() as c:
        zero = c.put("/api/admin/retention", json={"days": 0, "points": 650})
        # The bounds are in the schema: the 422 names the field and the bound.
        assert zero.status_code == 422
        assert (
            "days" in zero.json()["detail"]
            and "greater than or equal to 1" in zero.json()["detail"]
        )
        few = c.put("/api/admin/retention", json={"days": 30, "points": 2})
        assert few.status_code == 422
        assert (
            "points" in few.json()["detail"]
            and "greater than or equal to 4" in few.json()["detail"]
        )
        c.put("/api/admin/retention", json={"days": None, "points": 650}).raise_for_status()
        unset = c.post("/api/admin/retention/compact", json={})
        assert unset.status_code == 422 and "no retention period" in unset.json()["detail"]
    with stack.client(viewer.token) as c:
        assert c.get("/api/admin/retention").status_code == 403
        assert c.post("/api/admin/retention/compact", json={"days": 1}).status_code == 403
    shown = stack.cli("retention")
    assert "not set (everything kept)" in shown.stdout
