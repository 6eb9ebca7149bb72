"""Results through the api after real runs: derived metrics, chart series downsampled without
losing extremes, HD Tach by position, comparisons and side by side."""

from __future__ import annotations

import pytest

from tests.conftest import Stack
from tests.e2e.test_plans import done, results, run_plan
from tests.e2e.test_run_path import queue

pytestmark = pytest.mark.e2e


def new_sim_drive(stack: Stack, name: str) -> dict:
    """A fresh simulated drive with no history (the session's sim drive has run every test)."""
    target = stack.data_dir / "targets" / f"results-{name}.img"
    return stack.add_drive(target, f"Simulated drive {name}", size=512 * 1024 * 1024)


@pytest.fixture(scope="module")
def drive_b(stack: Stack) -> dict:
    return new_sim_drive(stack, "B")


@pytest.fixture(scope="module")
def drive_c(stack: Stack) -> dict:
    return new_sim_drive(stack, "C")


SHORT = {
    "span": "64m",
    "runtime_s": 2,
    "seq_runtime_s": 1,
    "prewrite": False,
    "patterns": ["incompressible"],
}


def test_compare_and_side_by_side(stack: Stack, drive_c: dict, drive_b: dict) -> None:
    with stack.client() as c:
        # Queued together: C's run and B's first run at once, B's second after its first.
        queued = [queue(c, d, SHORT, plan="four-corners") for d in (drive_c, drive_b, drive_b)]
        for run in queued:
            done(c, run["id"])
        metric = "four-corners:randread-4k-qd3:read_mbps"
        out = c.get(
            "/api/compare",
            params={
                "drives": f"{drive_c['id']},{drive_b['id']}",
                "metrics": metric,
                "under_review": drive_b["id"],
            },
        ).json()
        rows = out["metrics"][0]["rows"]
        assert {r["drive_id"] for r in rows} == {drive_c["id"], drive_b["id"]}
        assert rows[0]["value"] >= rows[1]["value"]
        b = next(r for r in rows if r["drive_id"] == drive_b["id"])
        assert b["under_review"] and b["simulated"] and b["runs"]["count"] >= 2
        assert out["metrics"][0]["warnings"] == []
        side = c.get("/api/compare/pair", params={"a": drive_c["id"], "b": drive_b["id"]}).json()
        row = next(m for m in side["metrics"] if m["metric"] == metric)
        assert row["diff_pct"] == pytest.approx((row["b"] - row["a"]) / row["a"] * 100)
        bad = c.get("/api/compare", params={"drives": "1,x"})
        assert bad.status_code == 422 and "comma-separated" in bad.json()["detail"]


def test_consistency_metrics_and_downsampled_series(stack: Stack, drive_b: dict) -> None:
    with stack.client() as c:
        run = run_plan(c, drive_b, "consistency", {"runtime_s": 12})
        steady = run["steps"][-1]
        r = results(steady)
        assert r["iops_mean_last400"] > 0 and r["iops_min_last400"] <= r["iops_mean_last400"]
        full = c.get(
            f"/api/runs/{run['id']}/series",
            params={"step_id": steady["id"], "metric": "write_iops", "full": True},
        ).json()
        small = c.get(
            f"/api/runs/{run['id']}/series",
            params={"step_id": steady["id"], "metric": "write_iops", "points": 4},
        ).json()
        csv = c.get(
            f"/api/runs/{run['id']}/series",
            params={"step_id": steady["id"], "metric": "write_iops", "format": "csv"},
        )
    ys = [y for _x, y in full["points"]]
    assert full["total_points"] == len(ys) >= 10 and not full["downsampled"]
    assert small["downsampled"] and len(small["points"]) <= 4
    kept = [y for _x, y in small["points"]]
    assert min(ys) in kept and max(ys) in kept  # extremes survive downsampling
    assert csv.headers["content-type"].startswith("text/csv")
    assert csv.text.splitlines()[0] == "t_s,write_iops"


def test_hdtach_by_position_and_stalls(stack: Stack, sim_drive: dict) -> None:
    with stack.client() as c:
        run = run_plan(c, sim_drive, "hdtach", {"span": "256m"})
        write = run["steps"][0]
        assert results(write)["hdtach_coverage_pct"] == pytest.approx(100, abs=0.01)
        curve = c.get(
            f"/api/runs/{run['id']}/series",
            params={"step_id": write["id"], "x": "position", "full": True},
        ).json()
        xs = [x for x, _y in curve["points"]]
        assert curve["x"] == "position_pct" and xs[0] < 5 and xs[-1] > 95
        hitch = run_plan(c, sim_drive, "write-hitching", {"runtime_s": 2, "span": "128m"})
        for step in hitch["steps"]:
            assert "stall_count" in results(step)
        wrong = c.get(
            f"/api/runs/{hitch['id']}/series",
            params={"step_id": hitch["steps"][0]["id"], "x": "position"},
        )
        assert wrong.status_code == 422 and "HD Tach" in wrong.json()["detail"]


def test_edit_a_drive_sample(stack: Stack, drive_b: dict) -> None:
    with stack.client() as c:
        r = c.patch(f"/api/drives/{drive_b['id']}", json={"firmware": "SIM2"})
        assert r.status_code == 200 and r.json()["firmware"] == "SIM2"
        bad = c.patch(f"/api/drives/{drive_b['id']}", json={"logical_sector": 1000})
        assert bad.status_code == 422 and "512 or 4096" in bad.json()["detail"]
        nope = c.patch(f"/api/drives/{drive_b['id']}", json={"model_id": 987654})
        assert nope.status_code == 404
        extra = c.patch(f"/api/drives/{drive_b['id']}", json={"colour": "red"})
        assert extra.status_code == 422 and "colour" in extra.json()["detail"]
