"""Differences that are real, through the whole stack on simulated drives with a known answer
(issue 28): drives whose write speed differs by a known share, with run-to-run noise drawn by
the simulated drive's throttle at each run (+-2%), repeated as series on a busy CPU; the
comparison must find the 5% lead beyond its 1% threshold, and not call a drive against its
twin.

The known answers sit far from the method's decision boundaries on purpose, so that the test
fails only when the method does: the host adds its own run-to-run noise (1.3-1.9% RSD in all
was measured here with the +-2% draws), and with twelve runs a side a 5% lead is 5.8 standard
errors clear of the 1% threshold, a twin 3.2 inside it. How often smaller differences are
called (a 3% lead found in about 68% of ten-run comparisons, a 0.5% one in about 2.5% of
five-run ones) is simulated in tests/backend/analysis/test_significance.py.

Needs root, a block throttle and tmpfs (skipped, saying which is missing, without them)."""

from __future__ import annotations

import math
import statistics
import time
from pathlib import Path

import httpx
import pytest
from scipy import stats

from tests.conftest import Stack
from tests.e2e.test_simulated_drives import busy_cpu  # noqa: F401 - the spinning processes
from worker.sim.controller import SimDrive, requirements
from worker.sim.profile import Level, Profile
from worker.sim.selftest import Case, register

MISSING = requirements()
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(bool(MISSING), reason="simulated drives: missing " + "; ".join(MISSING)),
]
MiB = 2**20
RUNS = 12
# Uniform within +-2% at each run: a standard deviation of 1.15%.
JITTER = 0.02
SPEEDS = {"reference": 20.0, "faster-5pct": 21.0, "twin": 20.0}
PARAMS = {"runtime_s": 2, "span": "48m"}
METRIC = "write-hitching:hitch-seq-128k-qd32:write_mbps"


@pytest.fixture(scope="module")
def series(
    stack: Stack,
    busy_cpu: int,  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
) -> dict:
    """Three simulated drives, twelve runs of write hitching each (all drives at once)."""
    workdir = Path(tmp_path_factory.mktemp("sig"))
    sims, drives, out = [], {}, {}
    try:
        with stack.client() as c:
            for seed, (name, mbps) in enumerate(SPEEDS.items(), start=11):
                profile = Profile(
                    f"sig-{name}",
                    f"{mbps:g} MB/s, +-{JITTER * 100:g}% a run",
                    (Level(100, mbps),),
                    burst_jitter=JITTER,
                    seed=seed,
                )
                sim = SimDrive(profile, 64 * MiB, workdir, label=name).start()
                sims.append(sim)
                case = Case(name, profile.name, 64 * MiB, "write-hitching", PARAMS, sim=sim)
                drives[name] = register(c, "local", case)
            ids = {}
            for name, drive in drives.items():
                resp = c.post(
                    "/api/runs",
                    json={
                        "plan": "write-hitching",
                        "drive_id": drive["id"],
                        "params": PARAMS,
                        "confirm_serial": drive["serial"],
                        "repeat": {"times": RUNS},
                    },
                )
                assert resp.status_code == 201, resp.text
                ids[name] = resp.json()["series_id"]
            deadline = time.monotonic() + 600
            while True:
                found = {n: c.get(f"/api/series/{i}").json() for n, i in ids.items()}
                if all(s["status"] != "running" for s in found.values()):
                    break
                assert time.monotonic() < deadline, {n: s["runs"] for n, s in found.items()}
                time.sleep(2)
            out["series"] = found
            out["drives"] = drives
            all_ids = [d["id"] for d in drives.values()]
            out["compare"] = {name: _versus(c, all_ids, drives[name]["id"]) for name in SPEEDS}
    finally:
        for sim in sims:
            sim.stop()
    return out


def _versus(c: httpx.Client, drive_ids: list[int], review: int) -> dict[int, dict]:
    resp = c.get(
        "/api/compare",
        params={"drives": ",".join(map(str, drive_ids)), "under_review": review, "metrics": METRIC},
    )
    assert resp.status_code == 200, resp.text
    (metric,) = resp.json()["metrics"]
    return {row["drive_id"]: row for row in metric["rows"]}


def test_every_series_ran_its_runs(series: dict) -> None:
    for name, s in series["series"].items():
        fig = next(f for f in s["figures"] if f["metric"] == METRIC)
        print(f"{name}: {SPEEDS[name]} MB/s: measured {fig['values']}, RSD {fig['rsd_pct']:.2f}%")
        assert s["status"] == "done", (name, s["reason"])
        assert [r["status"] for r in s["runs"]] == ["done"] * RUNS


def test_the_five_percent_is_found_beyond_the_threshold(series: dict) -> None:
    drives = series["drives"]
    rows = series["compare"]["faster-5pct"]
    vs = rows[drives["reference"]["id"]]["versus_review"]
    assert (vs["review_runs"], vs["runs"]) == (RUNS, RUNS)
    assert vs["verdict"] == "better", vs
    # The lead is shown beyond the 1% threshold, not merely beyond 0. (Whether the interval
    # holds the profiles' 5% is not asserted: the block throttle passes 2-6% more than a
    # level's nominal speed, more at the faster level, so the drives' true difference here is
    # not the nominal one; the interval's coverage is simulated in the unit tests.)
    assert vs["low_pct"] > 1.0, vs
    back = series["compare"]["reference"][drives["faster-5pct"]["id"]]["versus_review"]
    assert back["verdict"] == "worse", back


def test_a_twin_is_within_noise(series: dict) -> None:
    drives = series["drives"]
    rows = series["compare"]["reference"]
    vs = rows[drives["twin"]["id"]]["versus_review"]
    assert vs["verdict"] == "within noise", vs
    # Each mean comes with its 95% interval from the runs' own values (Student's t, 11 degrees
    # of freedom): how wide it is is the host's noise and the drive's, not drivelab's.
    mine = rows[drives["reference"]["id"]]["runs"]
    fig = next(f for f in series["series"]["reference"]["figures"] if f["metric"] == METRIC)
    values = fig["values"]
    half = stats.t.ppf(0.975, RUNS - 1) * statistics.stdev(values) / math.sqrt(RUNS)
    print(f"reference: {statistics.fmean(values):.3f} MB/s +- {half:.3f} from {values}")
    assert mine["count"] == RUNS and mine["mean"] == pytest.approx(statistics.fmean(values))
    assert mine["low"] == pytest.approx(mine["mean"] - half)
    assert mine["high"] == pytest.approx(mine["mean"] + half)
