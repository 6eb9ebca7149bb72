"""SNIA PTS DIRTH through the whole stack on a busy CPU, with a known answer: a simulated drive
(worker.sim) whose 4 KiB random writes run at 3000 IOPS until 1 MiB of them, then at most
LIMIT_IOPS (the consistency cliff: an IOPS limit the kernel's block throttle holds). The
preconditioning takes it past the cliff; the demand-variation sweep of 100% 4 KiB random writes
then meets the limit at every TC x QD point.

Truth, from what the device did and from its model, never from numbers written here:
- the demand-intensity curve saturates at the drive's limit: no point above it, the highest
  at it (unless the busy host held fio up), and by Little's law each point's average response
  time is its outstanding I/O over its IOPS, so past the knee more TOC only adds time;
- the maximum IOPS point's IOPS are what the device itself wrote in that point's time, round
  by round (its /sys/block/NAME/stat counter, tests/e2e/test_pts_truth.py DeviceWrites);
- the maximum point is the highest IOPS within the ART ceiling; a point past it is not taken;
- after the sweep, a dedicated run at each of the three points (the PTS's histogram runs): one
  stored round per distinct point, fio's job at the point's TC x QD for `point_s`, and the
  report's histograms at the points hold exactly the I/Os fio counted in those runs;
- the report, the results, the CLI words and Compare say the same.
Needs what the simulated drives need; skipped, saying which is missing, without."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from backend.cli import findings_lines
from tests.conftest import Stack
from tests.e2e.test_plans import results, run_plan
from tests.e2e.test_pts_truth import DeviceWrites, record
from tests.e2e.test_simulated_drives import MISSING, busy_cpu  # noqa: F401 - the fixture

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(bool(MISSING), reason="simulated drives: missing " + "; ".join(MISSING)),
]

LIMIT_IOPS = 1000
ELEMENT_S = 3
POINT_S = 3
# The ART ceiling: TOC 8 at 1000 IOPS is 8 ms by Little's law, past it; TOC 2 (2 ms) within.
CEILING_MS = 5.0
PARAMS = {
    "span": "64m",
    "block_size": "4k",
    "read_pct": 0,
    "thread_counts": [2, 1],
    "queue_depths": [4, 1],
    "pc_threads": 1,
    "pc_iodepth": 8,
    "pc_max_rounds": 5,
    "prewrite_s": 1,
    "element_s": ELEMENT_S,
    "max_rounds": 5,
    "art_ceiling_ms": CEILING_MS,
    "point_s": POINT_S,
}


def profile() -> Any:
    from worker.sim.profile import Cliff, Level, Profile

    return Profile(
        "dirth-limit",
        f"4 KiB random writes at 3000 IOPS, at most {LIMIT_IOPS} IOPS after 1 MiB of them",
        (Level(100, 200),),
        read_mbps=200,
        cliff=Cliff(after_bytes=2**20, fob_iops=3000, steady_iops=LIMIT_IOPS),
        seed=29,
    )


def round_window(final: dict) -> tuple[float, float]:
    """A round's wall-clock span (s) by fio: it printed its output (`timestamp_ms`) a little
    after the last section ended; the sections ran one after another for their runtimes."""
    runtime: dict[str, float] = {}
    for job in final["jobs"]:
        name = job["jobname"]
        runtime[name] = max(runtime.get(name, 0.0), int(job["job_runtime"]) / 1000.0)
    end = int(final["timestamp_ms"]) / 1000.0
    return end - sum(runtime.values()), end


def sweep_end(last_round: dict, first_point: dict) -> float:
    """Until when the device's writes are the sweep's (s): a little past fio's print of its
    last round, and before the first dedicated point run wrote (fio's start of that run: its
    print less its runtime, a little late by the print's delay, hence halfway between)."""
    end = round_window(last_round)[1]
    return min(end + 0.5, (end + round_window(first_point)[0]) / 2)


# A section ends at the device's longest pause that begins at most NEAR_S before its start
# plus its runtime (the due time) or LATE_S after, and ends at most EARLY_S before it.
NEAR_S = 0.4
LATE_S = 0.15
EARLY_S = 0.05


def device_sections(
    writes: DeviceWrites, lo: float, hi: float, runtimes: list[list[float]], printed: list[float]
) -> list[list[list[float]]]:
    """The device's writing between `lo` and `hi`, one [start, end, bytes, unsure] per fio
    section of
    each round (`runtimes`: each round's sections' runtimes, in order; `printed`: the time fio
    printed each round's output). Rounds are separate fio runs, and fio prints a round's output
    after its last write and before the next round's fio starts: each round ends at the
    device's pause nearest that time (the longest of those as near: a busy host can make the
    reader see the last write late). Within a round, a stonewalled section's threads
    end before the next one's start, so the device pauses between sections: each section ends
    at the device's longest pause around its start plus its runtime that lasts past it (the
    throttle lets writes through in bursts, so there are short pauses everywhere; each
    section's length is checked against fio's runtime by the test)."""
    rows = [(t, v) for t, v in writes.rows if lo <= t <= hi]
    # (time of the reading before the change, time of the change, count before, count after)
    changes = [
        (rows[i - 1][0], rows[i][0], rows[i - 1][1], rows[i][1])
        for i in range(1, len(rows))
        if rows[i][1] != rows[i - 1][1]
    ]

    def pause(k: int) -> float:
        return changes[k + 1][0] - changes[k][1]

    def off(k: int, t: float) -> float:  # how far `t` is outside the pause after change k
        return max(changes[k][1] - t, t - changes[k + 1][0], 0.0)

    pauses = range(len(changes) - 1)
    ends = [
        *(min(pauses, key=lambda k: (off(k, t), -pause(k))) for t in printed[:-1]),
        len(changes) - 1,
    ]
    out, i = [], 0
    for last, seconds in zip(ends, runtimes, strict=True):
        sections = cut_round(changes, i, last, seconds, pause)
        # A round with too few changes for its sections (a pause taken for the one between
        # two rounds was not) cannot be cut: it shows as sections of no length.
        out.append(sections or [[changes[min(i, last)][0]] * 2 + [0.0, 0.0] for _ in seconds])
        i = max(i, last + 1)
    return out


def cut_round(
    changes: list[tuple[float, float, int, int]],
    i: int,
    last: int,
    seconds: list[float],
    pause: Callable[[int], float],
) -> list[list[float]] | None:
    """One round's sections ([start, end, bytes, unsure] each) from its changes i..last (see
    device_sections), or None where there are too few changes to cut it into them."""
    sections = []
    for j, runtime in enumerate(seconds):
        if i > last or (j < len(seconds) - 1 and i >= last):
            return None
        start = changes[i][0]
        if j == len(seconds) - 1:
            end = last
        else:
            due = start + runtime
            # The pause the section ends with: the section's last write not long after its
            # runtime, the next write not before it (a pause inside the section ends before
            # it).
            near = [
                k
                for k in range(i, last)
                if due - NEAR_S <= changes[k][1] <= due + LATE_S
                and changes[k + 1][0] >= due - EARLY_S
            ] or [min(range(i, last), key=lambda k: abs(changes[k][1] - due))]
            end = max(near, key=pause)
        # The readings around the first and the last change: how long the section may be
        # shorter than [start, end] (the reader, held up by a busy host, reads late).
        unsure = (changes[i][1] - changes[i][0]) + (changes[end][1] - changes[end][0])
        sections.append([start, changes[end][1], 512.0 * (changes[end][3] - changes[i][2]), unsure])
        i = end + 1
    return sections


def stored_rounds(c: httpx.Client, run: dict, step: dict) -> tuple[list[dict], dict[int, dict]]:
    """A step's rounds as the api lists them, and each one's fio output by its number."""
    base = f"/api/runs/{run['id']}/steps/{step['id']}/rounds"
    rounds = c.get(base).json()
    return rounds, {r["round"]: c.get(f"{base}/{r['round']}/output").json() for r in rounds}


@pytest.fixture(scope="module")
def dirth(stack: Stack, busy_cpu: int, tmp_path_factory: pytest.TempPathFactory) -> dict:  # noqa: F811
    from worker.sim.controller import SimDrive

    sim = SimDrive(profile(), 128 * 2**20, tmp_path_factory.mktemp("dirth"), "DIRTH limit")
    with sim:
        assert sim.state is not None
        drive = stack.add_drive(sim.state.target, "Simulated drive (dirth-limit)")
        with stack.client() as c, DeviceWrites(sim.state.target) as writes:
            run = run_plan(c, drive, "pts-dirth", PARAMS, timeout=400)
        with stack.client() as c:
            report = c.get(f"/api/runs/{run['id']}/pts").json()
            sweep = next(s for s in run["steps"] if s["name"] == "rounds")
            rounds, finals = stored_rounds(c, run, sweep)
            pc = next(s for s in run["steps"] if s["name"] == "precondition-rounds")
            pc_rounds = c.get(f"/api/runs/{run['id']}/steps/{pc['id']}/rounds").json()
            pc_last = c.get(
                f"/api/runs/{run['id']}/steps/{pc['id']}/rounds/{pc_rounds[-1]['round']}/output"
            ).json()
            points = next(s for s in run["steps"] if s["name"] == "point-runs")
            point_rounds, point_finals = stored_rounds(c, run, points)
            compare = c.get(f"/api/compare/pts?drives={drive['id']}")
            full = c.get(f"/api/runs/{run['id']}").json()
    return {
        "run": run,
        "full": full,
        "report": report,
        "sweep": sweep,
        "rounds": rounds,
        "finals": finals,
        "pc_last": pc_last,
        "points": points,
        "point_rounds": point_rounds,
        "point_finals": point_finals,
        "writes": writes,
        "compare": compare,
    }


def test_the_curve_saturates_at_the_drives_limit_and_little_holds(dirth: dict) -> None:
    section = next(s for s in dirth["report"]["sections"] if s["name"] == "rounds")
    di = section["di"]
    points = {p["name"]: p for p in di["points"]}
    assert sorted(points) == ["tc1-qd1", "tc1-qd4", "tc2-qd1", "tc2-qd4"]
    iops = [p["iops"] for p in di["points"]]
    record(
        "DIRTH curve on a drive limited to 1000 write IOPS",
        {"limit_iops": LIMIT_IOPS},
        {p["name"]: [p["toc"], round(p["iops"], 1), round(p["art_us"], 1)] for p in di["points"]},
    )
    # The limit bounds every point; the highest is at it unless the host held fio up.
    assert max(iops) <= LIMIT_IOPS * 1.05, iops
    assert di["peak_iops"] >= LIMIT_IOPS * 0.85, iops
    # Little's law: TOC outstanding I/Os served at IOPS take TOC / IOPS each on average.
    for p in di["points"]:
        assert p["art_us"] == pytest.approx(p["toc"] / p["iops"] * 1e6, rel=0.15), p
    # Past the knee more outstanding I/O only adds time: TOC 8 waits about 8x TOC 1.
    assert points["tc2-qd4"]["art_us"] > 4 * points["tc1-qd1"]["art_us"]


def test_the_max_iops_point_is_what_the_device_wrote_and_within_the_ceiling(dirth: dict) -> None:
    section = next(s for s in dirth["report"]["sections"] if s["name"] == "rounds")
    di = section["di"]
    top = di["max"]
    ceiling_us = CEILING_MS * 1000
    assert top is not None and top["art_us"] <= ceiling_us
    # No point within the ceiling has more IOPS; TOC 8 (about 8 ms at the limit) is past it.
    within = [p for p in di["points"] if p["art_us"] <= ceiling_us]
    assert top["iops"] == max(p["iops"] for p in within)
    assert all(p["toc"] != 8 for p in within), within
    assert di["min"]["name"] == "tc1-qd1"
    # The device's own count of 4 KiB writes in the max point's time, round by round in the
    # measurement window: the sweep's writing cut into its sections where the device paused.
    first, last = section["window"]
    names = [e["name"] for e in dirth["sweep"]["params"]["elements"]]
    rounds = dirth["rounds"]
    writes = dirth["writes"]
    # From the preconditioning's end (fio printed its last round after its last write) to
    # the sweep's.
    lo = int(dirth["pc_last"]["timestamp_ms"]) / 1000.0
    hi = sweep_end(dirth["finals"][rounds[-1]["round"]], dirth["point_finals"][1])
    runtimes = []
    for r in rounds:
        per_job: dict[str, float] = {}
        for j in dirth["finals"][r["round"]]["jobs"]:
            name = j["jobname"]
            per_job[name] = max(per_job.get(name, 0.0), int(j["job_runtime"]) / 1000.0)
        runtimes.append([per_job[n] for n in names])
    printed = [int(dirth["finals"][r["round"]]["timestamp_ms"]) / 1000.0 for r in rounds]
    sections = device_sections(writes, lo, hi, runtimes, printed)
    k = names.index(top["name"])
    device: list[tuple[float, float] | None] = []
    found, lengths, judged = [], [], 0
    for r, by_section, wanted in zip(rounds, sections, runtimes, strict=True):
        got = [[round(b - a, 3), w, u] for (a, b, _n, u), w in zip(by_section, wanted, strict=True)]
        lengths.append(got)
        if not first <= r["round"] <= last:
            continue
        found.append(r["elements"][top["name"]]["iops"])
        # A round is judged where the device's pauses cut it into fio's sections: each as
        # long as fio ran it. (A pause of the throttle's inside a section can be longer than
        # the one between two sections: seen once in 25; then the round cannot be cut.) A
        # section's [start, end] holds the readings just before its first and at its last
        # change, so it may be longer than the writing by those readings' gaps (`unsure`: 20
        # ms when the reader keeps its pace, more when a busy host held it up), as CBW's.
        if all(x - u - 0.12 <= w <= x + 0.12 for x, w, u in got):
            judged += 1
            start, end, written, unsure = by_section[k]
            ios = written / 4096
            device.append((ios / (end - start), ios / max(end - start - unsure, 1e-3)))
        else:
            device.append(None)
    record(
        "DIRTH max IOPS point against the device's count",
        {"device": [None if v is None else [round(x, 1) for x in v] for v in device],
         "s_vs_fio_unsure": lengths},
        {"point": top["name"], "rounds": [round(v, 1) for v in found], "window": top["iops"]},
    )  # fmt: skip
    assert len(found) == 5
    assert judged >= 3, lengths
    for d, f in zip(device, found, strict=True):
        if d is not None:  # within 5% of the rates the readings allow
            assert d[0] * 0.95 <= f <= d[1] * 1.05, (device, found)
    # The window's figure is the average of its rounds; the device's agree with it.
    assert top["iops"] == pytest.approx(sum(found) / len(found), rel=1e-6)
    measured = [d for d in device if d is not None]
    low = sum(d[0] for d in measured) / len(measured)
    high = sum(d[1] for d in measured) / len(measured)
    assert low * 0.95 <= top["iops"] <= high * 1.05, (device, top)


def fio_job(final: dict) -> tuple[str, int, int, float, int]:
    """A point run's one job as fio reported it: (name, numjobs, iodepth, runtime s, I/Os
    completed), its threads added up (fio's own total_ios of each, reads and writes)."""
    jobs = final["jobs"]
    names = {j["jobname"] for j in jobs}
    assert len(names) == 1, names
    opts = jobs[0]["job options"]
    ios = sum(int(j[d]["total_ios"]) for j in jobs for d in ("read", "write"))
    runtime = max(int(j["job_runtime"]) for j in jobs) / 1000.0
    return names.pop(), int(opts["numjobs"]), int(opts["iodepth"]), runtime, ios


def test_the_point_runs_are_dedicated_runs_whose_ios_the_histograms_hold(dirth: dict) -> None:
    """After the sweep, one run of the stimulus at each distinct IOPS point for `point_s`,
    stored as a round of its own; the report's histograms at the points are those runs' I/Os,
    each one fio counted, and the report says where they come from."""
    section = next(s for s in dirth["report"]["sections"] if s["name"] == "rounds")
    di = section["di"]
    wanted = {di[k]["name"]: di[k] for k in ("max", "mid", "min") if di[k]}
    assert dirth["points"]["kind"] == "fio-points" and dirth["points"]["status"] == "done"
    assert [r["round"] for r in dirth["point_rounds"]] == list(range(1, len(wanted) + 1))
    found = {}
    for r in dirth["point_rounds"]:
        name, numjobs, iodepth, runtime, ios = fio_job(dirth["point_finals"][r["round"]])
        found[name] = ios
        point = wanted[name]
        assert (numjobs, iodepth) == (point["tc"], point["qd"]), (name, numjobs, iodepth)
        assert runtime == pytest.approx(POINT_S, abs=0.5), (name, runtime)
        assert list(r["elements"]) == [name]
        # The drive's limit bounds the point's own run too, and Little's law holds in it.
        figures = r["elements"][name]
        assert figures["write_iops"] <= LIMIT_IOPS * 1.05, figures
        assert figures["lat_mean_us"] == pytest.approx(
            point["toc"] / figures["iops"] * 1e6, rel=0.15
        ), (name, figures)
        # The histogram at the point: every I/O fio completed in its dedicated run, no more.
        counts = section["percentiles"][name]
        assert counts["all"]["ios"] == counts["write"]["ios"] == ios, (name, counts, ios)
        assert section["histograms"][name]["write"], name
        assert sum(y for _x, y in section["histograms"][name]["write"]) == pytest.approx(100)
    assert sorted(found) == sorted(wanted)
    record(
        "DIRTH point runs: fio's I/Os and the histograms' (all equal)",
        {"point_s": POINT_S},
        {n: [wanted[n]["tc"], wanted[n]["qd"], ios] for n, ios in found.items()},
    )
    source = f"from a dedicated {POINT_S}-second run at each point, as the PTS specifies"
    assert section["histograms_source"] == source
    assert section["point_runs"]["status"] == "done"
    assert di["finding"].endswith(f"the histograms are {source}")


def test_histograms_results_words_and_compare_say_the_same(dirth: dict) -> None:
    section = next(s for s in dirth["report"]["sections"] if s["name"] == "rounds")
    di = section["di"]
    for key in ("max", "mid", "min"):
        assert section["histograms"][di[key]["name"]]["write"], key
    by = results(dirth["sweep"])
    assert by["dirth_max_iops"] == pytest.approx(di["max"]["iops"])
    assert by["dirth_max_toc"] == di["max"]["toc"] and by["dirth_min_toc"] == 1
    # The finding in words: the Run page's (the step's findings), the CLI's and the report's.
    step = next(s for s in dirth["full"]["steps"] if s["name"] == "rounds")
    found = step["findings"]["demand_intensity"]
    assert found["finding"] == di["finding"] and found["max"]["name"] == di["max"]["name"]
    lines = findings_lines(dirth["full"])
    top = di["max"]
    assert any(
        f"maximum {top['iops']:.0f} IOPS at TC{top['tc']}/QD{top['qd']}" in line for line in lines
    ), lines
    assert "within the 5 ms ceiling" in di["finding"]
    assert dirth["compare"].status_code == 200, dirth["compare"].text
    test = next(t for t in dirth["compare"].json()["tests"] if t["plan"] == "pts-dirth")
    values = test["drives"][0]["values"]
    assert values["max-iops"]["iops"] == pytest.approx(di["max"]["iops"])
    assert values["tc1-qd1"]["toc"] == 1
