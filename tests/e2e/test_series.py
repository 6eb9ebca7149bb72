"""Repeats through the whole stack: a plan queued N times or until stable runs as one series,
its repeats one after another, judged on the figures fio measured; stopping keeps what ran."""

from __future__ import annotations

import json
import statistics
import time

import httpx
import pytest

from tests.conftest import Stack, wait_run

pytestmark = pytest.mark.e2e

QUICK = {
    "span": "64m",
    "runtime_s": 1,
    "seq_runtime_s": 1,
    "prewrite": False,
    "patterns": ["incompressible"],
}


def queue_series(c: httpx.Client, drive: dict, repeat: dict, params: dict = QUICK) -> dict:
    resp = c.post(
        "/api/runs",
        json={
            "plan": "four-corners",
            "drive_id": drive["id"],
            "params": params,
            "confirm_serial": drive["serial"],
            "repeat": repeat,
        },
    )
    assert resp.status_code == 201, resp.text
    return resp.json()


def wait_series(c: httpx.Client, series_id: int, timeout: float = 240) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        series = c.get(f"/api/series/{series_id}").json()
        if series["status"] != "running":
            return series
        time.sleep(0.5)
    raise AssertionError(f"series {series_id} still running after {timeout} s: {series}")


def test_three_times_in_a_row_with_figures_from_each_run(stack: Stack, sim_drive: dict) -> None:
    with stack.client() as c:
        first = queue_series(c, sim_drive, {"times": 3})
        assert first["series_index"] == 1
        # Queued meanwhile on the same drive: runs after the whole series.
        other = c.post(
            "/api/runs",
            json={
                "plan": "four-corners",
                "drive_id": sim_drive["id"],
                "params": QUICK,
                "confirm_serial": sim_drive["serial"],
            },
        ).json()
        series = wait_series(c, first["series_id"])
        assert series["status"] == "done" and "3 runs" in series["reason"]
        runs = series["runs"]
        assert [r["series_index"] for r in runs] == [1, 2, 3]
        assert all(r["status"] == "done" for r in runs)
        for before, after in zip(runs, runs[1:], strict=False):
            assert before["finished_at"] <= after["started_at"]
        later = wait_run(c, other["id"])
        assert later["started_at"] >= runs[-1]["finished_at"]  # repeats kept together
        # Each figure's values are the runs' own results, and its RSD their sample RSD.
        assert series["figures"]
        results = {
            r["id"]: {
                f"four-corners:{s['name']}:{x['metric']}": x["value"]
                for s in c.get(f"/api/runs/{r['id']}").json()["steps"]
                for x in s["results"]
            }
            for r in runs
        }
        for fig in series["figures"]:
            assert fig["unit"] in ("MB/s", "IOPS")
            assert fig["values"] == [results[r["id"]][fig["metric"]] for r in runs]
            want = statistics.stdev(fig["values"]) / statistics.fmean(fig["values"]) * 100
            assert fig["rsd_pct"] == pytest.approx(want)
        rsds = [f["rsd_pct"] for f in series["figures"]]
        assert rsds == sorted(rsds, reverse=True)  # least stable first


def _rsd(values: list[float]) -> float:
    """The series' judgement of a figure: its sample RSD in %, a mean of 0 as 0."""
    mean = statistics.fmean(values)
    return statistics.stdev(values) / abs(mean) * 100.0 if mean else 0.0


def test_until_stable_stops_on_the_threshold_either_way(stack: Stack, sim_drive: dict) -> None:
    with stack.client() as c:
        loose = queue_series(
            c, sim_drive, {"until_stable": True, "min_runs": 2, "max_runs": 4, "rsd_pct": 100}
        )
        series = wait_series(c, loose["series_id"])
        # Two runs are stable under 100% unless a figure was about nothing in one of them (up
        # to 141% for two figures: a 1 s corner of a run that a busy host held up): the series
        # stops after the first run whose worst figure is under the threshold, from the runs'
        # own values, and otherwise at max_runs.
        values = [f["values"] for f in series["figures"]]
        worst = [max(_rsd(v[:k]) for v in values) for k in (2, 3, 4)]
        stop = next((k for k, w in zip((2, 3, 4), worst, strict=True) if w < 100), None)
        if stop is None:
            assert series["status"] == "not stable" and len(series["runs"]) == 4, series
        else:
            assert series["status"] == "stable", (worst, series)
            assert len(series["runs"]) == stop and "less than 100%" in series["reason"]
        strict = queue_series(
            c,
            sim_drive,
            {"until_stable": True, "min_runs": 2, "max_runs": 2, "rsd_pct": 0.0001},
        )
        series = wait_series(c, strict["series_id"])
        worst = series["figures"][0]
        assert series["status"] == "not stable", series
        assert len(series["runs"]) == 2
        assert worst["name"] in series["reason"] and f"{worst['rsd_pct']:.2f}%" in series["reason"]


def test_stopping_a_series_keeps_its_finished_runs(stack: Stack, sim_drive: dict) -> None:
    with stack.client() as c:
        first = queue_series(c, sim_drive, {"times": 5})
        assert wait_run(c, first["id"])["status"] == "done"
        deadline = time.monotonic() + 60
        series = c.get(f"/api/series/{first['series_id']}").json()
        while len(series["runs"]) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
            series = c.get(f"/api/series/{first['series_id']}").json()
        stopped = c.post(f"/api/series/{first['series_id']}/stop")
        assert stopped.status_code == 200, stopped.text
        assert stopped.json()["status"] == "stopped"
        second = wait_run(c, series["runs"][1]["id"])
        assert second["status"] == "cancelled"
        time.sleep(2)
        series = c.get(f"/api/series/{first['series_id']}").json()
        assert [r["status"] for r in series["runs"]] == ["done", "cancelled"]  # none queued after
        again = c.post(f"/api/series/{first['series_id']}/stop")
        assert again.status_code == 409 and "already stopped" in again.json()["detail"]


@pytest.mark.parametrize(
    ("repeat", "says"),
    [
        ({"times": 3, "until_stable": True}, "either times"),
        ({}, "either times"),
        ({"times": 1}, "greater than or equal to 2"),
        ({"until_stable": True, "min_runs": 5, "max_runs": 3}, "min_runs 5 is more than"),
    ],
    ids=["both", "neither", "once", "min-over-max"],
)
def test_bad_repeats_say_what_to_fix(
    stack: Stack, sim_drive: dict, repeat: dict, says: str
) -> None:
    with stack.client() as c:
        resp = c.post(
            "/api/runs",
            json={
                "plan": "four-corners",
                "drive_id": sim_drive["id"],
                "params": QUICK,
                "confirm_serial": sim_drive["serial"],
                "repeat": repeat,
            },
        )
        assert resp.status_code == 422 and says in resp.text, resp.text


def test_cli_runs_a_series_and_prints_its_figures(stack: Stack, sim_drive: dict) -> None:
    params = [a for k, v in QUICK.items() for a in ("--param", f"{k}={json.dumps(v)}")]
    out = stack.cli(
        "run",
        "four-corners",
        "--drive",
        str(sim_drive["id"]),
        *params,
        "--confirm-serial",
        sim_drive["serial"],
        "--repeat",
        "2",
        "--wait",
        check=False,
    )
    assert out.returncode == 0, out.stderr + out.stdout
    assert "series" in out.stdout and ": done: 2 runs, as asked" in out.stdout
    assert "RSD" in out.stdout
