"""A bench self-test: simulated drives with a known answer, run through the whole of drivelab
(api, queue, worker, fio, analysis), and what drivelab found compared with what each drive
really did (worker.sim.truth). `drivelab sim selftest` runs it on a bench; the test suite runs
it on a busy CPU (tests/e2e/test_simulated_drives.py).

Tolerances a reviewer can print: step-down positions within 1% of the span and levels within
5%, no step-down that the drive did not make; every stall the device made (its own counters)
of 0.5 s or more found once and none that it did not make, each stall's length within 0.2 s,
the period within 5% of the device's and marked regular where the device's stalls were; the
consistency drop-off within 5% of its time (and the time the host held fio up around it).

The truth is the device's own counters, read every 5 ms by the simulated drive's controller:
where its speed changed and where its writes stopped. The profile says what the controller
meant to do; the kernel's throttle carries it out a little late, and a busy host can hold the
writes up too. Such a stall is real for the writes (fio could not tell it from the drive's,
nor can drivelab) and the self-test lists it as not the profile's.

The host also holds fio itself up: fio measures a write when it reaps it, so a drive that
resumes while fio waits for a core shows fio a stall that ends when fio runs again, and a
step-down seen while fio catches up lands where fio caught up. The kernel counts how long
fio's threads waited for a core (worker.sim.held, in the trace), and a stall's length and a
step-down's position get that much more room where it happened (the time, or what the drive
wrote in it), said in the check; two stalls between which the host held fio up for all the
writing were one stall to fio, and count as one. A method working from fio's output cannot see
past fio's own delays; the self-test does not blame drivelab for them, and does not excuse
anything else.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from backend.analysis.fio_results import job_runtime_ms
from backend.analysis.slc import BLOCK_S as SLC_BLOCK_S
from backend.analysis.slc import MIN_LEVEL_S as SLC_MIN_LEVEL_S
from backend.analysis.stalls import REGULAR_SPREAD, cadence
from worker.sim import truth
from worker.sim.controller import SimDrive
from worker.sim.profile import PROFILES

MiB = 2**20
POSITION_TOL_PCT = 1.0
LEVEL_TOL = 0.05
STALL_TOL_S = 0.2
PERIOD_TOL = 0.05
DROPOFF_TOL = 0.05
IDLE_TOL_S = 0.5
FINAL = ("done", "failed", "cancelled", "lost")
# How far on each side of a device's change the time the host held fio up counts against it.
HELD_AROUND_S = 0.5


@dataclass
class Check:
    case: str
    what: str
    truth: str
    found: str
    ok: bool


@dataclass
class Case:
    """One simulated drive and the plan run on it."""

    name: str
    profile: str
    size: int
    plan: str
    params: dict[str, Any]
    sim: SimDrive | None = None
    drive: dict[str, Any] | None = None
    run: dict[str, Any] | None = None
    checks: list[Check] = field(default_factory=list)
    host_worst_s: float = 0.0  # the longest the host held a process up during the runs


def cases() -> list[Case]:
    """Small spans and slow levels: each run lasts tens of seconds, and they run at once."""
    return [
        Case("hdtach: SLC cache", "slc-cache", 192 * MiB, "hdtach", {}),
        # Where a step-down is, fio tells in time: 1% of the span must be more than a busy
        # host's hold-ups of fio (0.2-0.6 s). A 20 -> 14 MB/s step (lines that cross at a
        # shallow angle) was placed within 0.15-0.2 s of writing; over 192 MiB, 1% is 0.1 s of
        # it, over 1 GiB 0.5-0.8 s (a real drive's 1% is seconds to minutes).
        Case("hdtach: performance mode", "performance-mode", 1024 * MiB, "hdtach", {}),
        Case("write hitching", "hitching", 256 * MiB, "write-hitching", {"runtime_s": 20}),
        Case(
            "write after TRIM",
            "hitching",
            128 * MiB,
            "trim-performance",
            {"amounts": ["32m"], "followup_s": 12},
        ),
        Case("consistency", "consistency-cliff", 256 * MiB, "consistency", {"runtime_s": 30}),
    ]


def _call(client: httpx.Client, method: str, path: str, body: Any = None) -> Any:
    resp = client.request(method, path, json=body)
    if resp.status_code >= 400:
        raise RuntimeError(f"{method} {path}: {resp.status_code} {resp.text}")
    return resp.json()


def register(client: httpx.Client, bench: str, case: Case) -> dict[str, Any]:
    """The running simulated drive as a drive of `bench`, with a simulated model of its own."""
    from backend.demo import wait_reported
    from worker.devices import identify

    assert case.sim is not None and case.sim.state is not None
    info = identify(case.sim.device)
    # Drives are registered from what the bench reports: wait until its worker lists the new
    # drive (within a second or two).
    wait_reported(client, bench, case.sim.state.target, info.serial)
    body = {
        "bench": bench,
        "target_path": case.sim.state.target,
        "serial": info.serial,
        "vendor": "drivelab",
        "model": f"Simulated drive ({case.profile}, {case.sim.device})",
        "capacity_bytes": info.size_bytes,
        "interface": "loop",
        "firmware": "sim",
        "simulated": True,
    }
    try:
        return dict(_call(client, "POST", "/api/drives", body))
    except httpx.RemoteProtocolError:
        # The api process went away before it answered (its supervisor starts another): the
        # drive is registered if it got that far, else it is registered now.
        for drive in _call(client, "GET", "/api/drives"):
            if drive["target_path"] == body["target_path"] and drive["serial"] == info.serial:
                return dict(drive)
        return dict(_call(client, "POST", "/api/drives", body))


def job_window(step: dict[str, Any], output: str) -> tuple[float, float]:
    """(start, end) of a step's fio job in wall-clock seconds, from fio's final JSON: printed at
    `timestamp_ms`, after the job ran `job_runtime` ms (the print comes a few tens of ms after
    the job's end, so the start is as late)."""
    final = json.loads(output)
    runtime = max(job_runtime_ms(j) for j in final["jobs"]) / 1000.0
    end = int(final["timestamp_ms"]) / 1000.0
    return end - runtime, end


def _steps(run: dict[str, Any], role: str) -> list[dict[str, Any]]:
    return [s for s in run["steps"] if s["params"].get("role") == role]


# Positions of a pass measured at the device leave out this much of the span next to each
# change (found or made) and at its ends (fio starting and stopping), where a level blurs.
EDGE_PCT = 2.0


def _between(found: float, device: float, profile: float) -> bool:
    """A level within LEVEL_TOL of the range from the device's own rate (which counts the
    time a busy host held fio up) to the profile's speed."""
    lo, hi = min(device, profile), max(device, profile)
    return lo * (1.0 - LEVEL_TOL) <= found <= hi * (1.0 + LEVEL_TOL)


def _pass_checks(
    case: Case,
    step: dict[str, Any],
    end: float,
    column: int,
    made: list[dict[str, Any]],
    label: str,
) -> list[Check]:
    """The step-downs found in one pass against the device: every step-down the device made
    (`made`: {"at_pct", "profile_from_mbps", "profile_to_mbps"}) found within
    POSITION_TOL_PCT with both levels within LEVEL_TOL of the profile's, and any other one
    found a real step-down of the device's own speed (its counters, `column` 1 written, 3
    read) with both levels within LEVEL_TOL of the device's."""
    from backend.analysis.hdtach import MIN_DROP

    assert case.sim is not None
    span = case.sim.size_bytes
    trace = case.sim.trace()
    findings = (step.get("findings") or {}).get("hdtach") or {}
    found = findings.get("step_downs") or []

    def rate(lo_pct: float, hi_pct: float) -> float:
        """The device's MB/s between two positions of the pass."""
        lo, hi = (p / 100.0 * span for p in (lo_pct, hi_pct))
        return truth.device_rate(
            trace, column, truth.wall_at(trace, column, end, span, lo),
            truth.wall_at(trace, column, end, span, hi),
        ) / 1e6  # fmt: skip

    edges = [0.0, *(f["at_pct"] for f in found), 100.0]
    checks = []
    for want in made:
        # fio held up by the host around the change moved what it saw by what the drive wrote
        # meanwhile (the kernel's count: worker.sim.held): that much more room, said.
        wall = truth.wall_at(trace, column, end, span, want["at_pct"] / 100.0 * span)
        held = truth.fio_held(trace, wall - HELD_AROUND_S, wall + HELD_AROUND_S)
        tol = POSITION_TOL_PCT + held * want["profile_from_mbps"] * 1e6 / span * 100.0
        want["tol_pct"] = tol  # the same room when its levels are checked below
        near = [f for f in found if abs(f["at_pct"] - want["at_pct"]) <= tol]
        checks.append(
            Check(
                case.name,
                f"{label}: step-down at {want['at_pct']:.2f}% (device; profile "
                f"{want['profile_from_mbps']:g} -> {want['profile_to_mbps']:g} MB/s): position",
                f"{want['at_pct']:.2f}%" + _held_note(held, f"within {tol:.2f}%"),
                ", ".join(f"{f['at_pct']:.2f}%" for f in near)
                or "none within {:.2f}% (found at {})".format(
                    tol, ", ".join(f"{f['at_pct']:.2f}%" for f in found) or "none"
                ),
                len(near) == 1,
            )
        )
    for k, f in enumerate(found):
        before = rate(edges[k] + EDGE_PCT, f["at_pct"] - EDGE_PCT)
        after = rate(f["at_pct"] + EDGE_PCT, edges[k + 2] - EDGE_PCT)
        ours = [w for w in made if abs(f["at_pct"] - w["at_pct"]) <= w["tol_pct"]]
        if ours:
            # The profile's step-down: its levels are the speeds the drive's throttle allows.
            # The device's own rate there is lower by the time a busy host held fio up without
            # a catch-up (seen: 23.2 for 24 MB/s); that measures the host, not the drive.
            # fio's MB/s counts that hold too: a level found between the device's own rate
            # and the profile's is what the drive did, each within LEVEL_TOL.
            want_before, want_after = ours[0]["profile_from_mbps"], ours[0]["profile_to_mbps"]
            truth_text = f"{want_before:g} -> {want_after:g} (profile; device {before:.2f} -> "
            truth_text += f"{after:.2f})"
            ok = _between(f["from_mbps"], before, want_before)
            ok = ok and _between(f["to_mbps"], after, want_after)
        else:
            # Not the profile's: it must be a real step-down of the device's own speed.
            truth_text = f"{before:.2f} -> {after:.2f} (device)"
            ok = after <= (1.0 - MIN_DROP / 2) * before
            ok = ok and abs(f["from_mbps"] - before) <= LEVEL_TOL * before
            ok = ok and abs(f["to_mbps"] - after) <= LEVEL_TOL * after
        note = "" if ours else " (not the profile's)"
        checks.append(
            Check(
                case.name,
                f"{label}: step-down found at {f['at_pct']:.2f}%{note}: MB/s before and after",
                truth_text,
                f"{f['from_mbps']:.2f} -> {f['to_mbps']:.2f}",
                ok,
            )
        )
    if not found:
        levels = findings.get("levels") or []
        value = levels[0]["mbps"] if levels else 0.0
        device = rate(EDGE_PCT, 100.0 - EDGE_PCT)
        # The device's average counts the time the host held fio up and nothing was asked of
        # the drive; a level found without that time (a stall not made up is left out of it)
        # may be as high as the device's rate over the rest (the kernel's count of the hold).
        w0, w1 = (
            truth.wall_at(trace, column, end, span, p / 100.0 * span)
            for p in (EDGE_PCT, 100.0 - EDGE_PCT)
        )
        held = truth.fio_held(trace, w0, w1)
        active = device * (w1 - w0) / max(w1 - w0 - held, 1e-9)
        # What else the pass showed, so that a failure says where the level came from: every
        # level found and fio's average over the pass (bytes over the whole time).
        average = (findings.get("hdtach") or {}).get("average_mbps")
        context = "; ".join(
            f"{lv['from_pct']:.1f}-{lv['to_pct']:.1f}%: {lv['mbps']:.2f}" for lv in levels
        )
        if average is not None:
            context += f"; fio's average over the pass {average:.2f}"
        checks.append(
            Check(
                case.name,
                f"{label}: level, MB/s",
                f"{device:.2f} (device)"
                + _held_note(held, f"up to {active:.2f} while fio was not held"),
                f"{value:.2f} ({context})" if context else f"{value:.2f}",
                device * (1 - LEVEL_TOL) <= value <= active * (1 + LEVEL_TOL),
            )
        )
    return checks


def check_hdtach(client: httpx.Client, case: Case) -> list[Check]:
    """The write pass against the device's level changes (truth.level_changes: where its speed
    really changed), the read pass (flat in every profile) against its read counters."""
    assert case.sim is not None and case.run is not None
    span = case.sim.size_bytes
    expected = truth.level_changes(case.sim.events(), case.sim.trace(), span)
    made = [
        {**c, "at_pct": c.get("at_pct", c["applied_pct"])}
        for c in expected
        if c["profile_to_mbps"] < c["profile_from_mbps"]
    ]
    checks = []
    for role, column, label, downs in (
        ("hdtach-write", 1, "write pass", made),
        ("hdtach-read", 3, "read pass", []),
    ):
        step = _steps(case.run, role)[0]
        _start, end = job_window(step, _output(client, case.run, step))
        checks += _pass_checks(case, step, end + 0.5, column, downs, label)
    return checks


def _output(client: httpx.Client, run: dict[str, Any], step: dict[str, Any]) -> str:
    resp = client.get(f"/api/runs/{run['id']}/steps/{step['id']}/output")
    resp.raise_for_status()
    return resp.text


def check_stalls(client: httpx.Client, case: Case, role: str, label: str) -> list[Check]:
    """The stalls found in each step against the stalls the device made: where its own counters
    show that its writes stopped (truth.device_stalls). Those are the profile's stalls, give or
    take the kernel's throttle resuming a little late, and whatever else held the writes up (the
    host holding fio or the loop device's worker up): no fio output tells those apart, and the
    check says which stalls the profile did not make. A device stall of at least MIN_STALL_S +
    STALL_TOL_S (0.5 s) must be found, once, its length within STALL_TOL_S; a found stall must
    be one the device made (at least MIN_STALL_S - STALL_TOL_S long)."""
    from backend.analysis.stalls import MIN_STALL_S

    assert case.sim is not None and case.run is not None
    made = truth.stalls(case.sim.events())
    trace = case.sim.trace()
    checks = []
    profile = PROFILES[case.profile]
    for step in _steps(case.run, role):
        start, end = job_window(step, _output(client, case.run, step))
        # The profile's stalls in the job, clipped to it (a TRIM stall begins before the write).
        planned = []
        for s in made:
            a, b = max(s["wall"], start), min(s["wall"] + s["duration_s"], end)
            if b - a > STALL_TOL_S:
                planned.append({"start_s": a - start, "duration_s": b - a, "kind": s["kind"]})
        device = _joined_by_holds(
            [
                {"start_s": d["wall"] - start, "duration_s": d["duration_s"]}
                for d in truth.device_stalls(trace, start, end, min_s=MIN_STALL_S - STALL_TOL_S)
            ],
            trace,
            start,
        )
        for d in device:
            d["kind"] = next((p["kind"] for p in planned if _overlap(d, p)), "")
        must = [d for d in device if d["duration_s"] >= MIN_STALL_S + STALL_TOL_S]
        found = (step.get("findings") or {}).get("stalls") or {}
        got = found.get("stalls") or []
        name = f"{label} ({step['name']})"

        def listed(stalls: list[dict[str, Any]]) -> str:
            return f"{len(stalls)}: " + ", ".join(
                f"{x['start_s']:.2f} s for {x['duration_s']:.2f} s"
                + ("" if x.get("kind", "-") else " (not the profile's)")
                + (f" ({x['joined']} joined: fio held up between)" if x.get("joined") else "")
                for x in stalls
            )

        checks.append(
            Check(
                case.name,
                f"{name}: the device made the profile's stalls",
                listed(planned),
                listed(device),
                all(any(_overlap(p, d) for d in device) for p in planned),
            )
        )
        checks += _stalls_matched(
            case.name, name, "stall", device, must, got, trace, start, listed,
            start_room=start_uncertainty(trace, end),
        )  # fmt: skip
        # The period of the stalls the analysis must find: a blip of the device's shorter than
        # a stall (its thread held up by a busy host) is not one of them.
        periodic = [d for d in must if d["kind"] == "periodic"]
        if len(must) >= 3 and profile.stalls and len(periodic) == len(must):
            checks.append(_period_check(case.name, name, profile.stalls.period_s, must, got,
                                        found, trace, start))  # fmt: skip
    return checks


def _period_check(
    case_name: str,
    name: str,
    made_s: float,
    must: list[dict[str, Any]],
    got: list[dict[str, Any]],
    found: dict[str, Any],
    trace: Any,
    start: float,
) -> Check:
    """The period of the stalls found against the device's own: the median gap between the
    starts of its stalls (as fio could see them), within PERIOD_TOL, and marked regular when
    the device's gaps were (their spread within stalls.REGULAR_SPREAD of their median).

    A stall found begins where fio stopped seeing writes complete, so a host that held fio up
    just before a stall began moved that start earlier by as much: each start gets the time the
    host held fio up between it and the device's (the kernel's count, worker.sim.held), as a
    stall's length does, and a gap the room of both its ends. Where that room could make the
    device's gaps look otherwise to fio (regular or not), regularity is not judged (said in
    the truth)."""
    starts = [d["start_s"] for d in must]
    gaps = np.diff(starts)
    period, regular = cadence(starts)  # the device's, by the analysis's own rule
    assert period is not None  # three stalls or more
    rooms = []
    for d in must:
        pair = [g for g in got if _overlap(g, d)]
        lo = min([d["start_s"], *(g["start_s"] for g in pair)]) - STALL_TOL_S
        hi = max([d["start_s"], *(g["start_s"] for g in pair)]) + STALL_TOL_S
        rooms.append(truth.fio_held(trace, start + lo, start + hi))
    room = max(a + b for a, b in zip(rooms, rooms[1:], strict=False))
    tol = PERIOD_TOL * period + room
    spread = float(gaps.max() - gaps.min())
    # The holds can move the spread fio sees either way by up to both ends' room.
    judged = abs(spread - REGULAR_SPREAD * period) > 2 * room
    value = found.get("period_s") or 0.0
    said = bool(found.get("period_regular"))
    note = _held_note(room, f"within {tol:.2f} s")
    if not judged:
        note += ", regularity not judged"
    return Check(
        case_name,
        f"{name}: period, regular",
        f"{period:.2f} s (the profile's {made_s:g} s), {'regular' if regular else 'irregular'}"
        + note,
        f"{value:.2f} s, {'regular' if said else 'irregular'}",
        abs(value - period) <= tol and (not judged or said == regular),
    )


def _stalls_matched(
    case_name: str,
    name: str,
    noun: str,
    device: list[dict[str, Any]],
    must: list[dict[str, Any]],
    got: list[dict[str, Any]],
    trace: Any,
    start: float,
    listed: Callable[[list[dict[str, Any]]], str],
    start_room: float = 0.0,
) -> list[Check]:
    """The stalls found (`got`, seconds from `start`) against the device's (`device`; `must`:
    those long enough that they must be found): each of `must` found once and nothing found
    where the device did not stop; each found one as long as the device's within STALL_TOL_S
    and what the host held fio up there (fio held up as a stall began or ended saw it begin or
    end then). A device stall under way as the job began (cut at `start`) is as long as the
    job's start is sure: `start_room` more (start_uncertainty)."""
    missed = [d for d in must if sum(_overlap(d, g) for g in got) != 1]
    extra = [g for g in got if sum(_overlap(g, d) for d in device) != 1]
    checks = [
        Check(
            case_name,
            f"{name}: {noun}s (each of the device's found once, none it did not make)",
            listed(device),
            listed(got),
            not missed and not extra,
        )
    ]
    for g in got:
        pair = [d for d in device if _overlap(g, d)]
        if len(pair) != 1:
            continue
        d = pair[0]
        lo = min(g["start_s"], d["start_s"]) - STALL_TOL_S
        hi = max(g["start_s"] + g["duration_s"], d["start_s"] + d["duration_s"])
        held = truth.fio_held(trace, start + lo, start + hi + STALL_TOL_S)
        if d["start_s"] <= CUT_S:
            held += start_room
        tol = STALL_TOL_S + held
        checks.append(
            Check(
                case_name,
                f"{name}: {noun} at {d['start_s']:.1f} s, length",
                f"{d['duration_s']:.2f} s (device)" + _held_note(held, f"within {tol:.2f} s"),
                f"{g['duration_s']:.2f} s",
                abs(g["duration_s"] - d["duration_s"]) <= tol,
            )
        )
    return checks


def _joined_by_holds(
    device: list[dict[str, Any]], trace: Any, start: float
) -> list[dict[str, Any]]:
    """The device's stalls as fio could see them: two stalls between which the host held fio
    up for all but STALL_TOL_S of the writing (the kernel's count, worker.sim.held) were one
    stall to fio, which reaped nothing in between. Said in the stall's `joined`."""
    out: list[dict[str, Any]] = []
    for d in sorted(device, key=lambda x: x["start_s"]):
        if out:
            last = out[-1]
            gap_from = last["start_s"] + last["duration_s"]
            gap = d["start_s"] - gap_from
            held = truth.fio_held(trace, start + gap_from, start + d["start_s"])
            if gap <= held + STALL_TOL_S:
                last["duration_s"] = d["start_s"] + d["duration_s"] - last["start_s"]
                last["joined"] = last.get("joined", 1) + 1
                continue
        out.append(dict(d))
    return out


# A device stall that begins this close to the job's start was under way before it (cut there).
CUT_S = 0.05
# fio prints its final JSON (timestamp_ms) a few tens of ms after its job ends, unless the host
# holds it up then: the stretch before the print in which a hold moves it.
PRINT_S = 1.0


def start_uncertainty(trace: Any, end: float) -> float:
    """How much earlier than `job_window` says a job may have begun: the window's start is the
    print's time less the job's runtime, and a hold of fio as it was about to print (the
    kernel's count, worker.sim.held) made the print, and so that start, later by as much."""
    return truth.fio_held(trace, end - PRINT_S, end)


def _held_note(held: float, within: str) -> str:
    """What the host did to fio there, in a check's truth: nothing when it held fio up for
    less than 10 ms."""
    if held < 0.01:
        return ""
    return f"; the host held fio up {held:.2f} s there, so {within}"


def _overlap(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return (
        a["start_s"] < b["start_s"] + b["duration_s"]
        and b["start_s"] < a["start_s"] + a["duration_s"]
    )


def check_consistency(client: httpx.Client, case: Case) -> list[Check]:
    assert case.sim is not None and case.run is not None
    step = _steps(case.run, "consistency")[0]
    start, end = job_window(step, _output(client, case.run, step))
    trace = case.sim.trace()
    cliff = truth.cliff(case.sim.events(), trace)
    found = ((step.get("findings") or {}).get("dropoff") or {}).get("dropoff_s")
    if cliff is None:
        return [Check(case.name, "drop-off", "none made", str(found), found is None)]
    wall = cliff.get("wall", cliff["applied_wall"])
    at = wall - start
    # fio held up by the host around the drop saw it as late as it was held (it reaps the
    # writes when it runs again), and a hold as fio was about to print its results moved the
    # job's start as placed here (start_uncertainty): that much more room, said.
    held = truth.fio_held(trace, wall - HELD_AROUND_S, wall + HELD_AROUND_S)
    held += start_uncertainty(trace, end)
    tol = DROPOFF_TOL * at + held
    return [
        Check(
            case.name,
            "drop-off time",
            f"{at:.2f} s (device), {cliff['applied_wall'] - start:.2f} s (applied)"
            + _held_note(held, f"within {tol:.2f} s"),
            "none" if found is None else f"{found:.2f} s",
            found is not None and abs(found - at) <= tol,
        )
    ]


def bench_cases() -> list[Case]:
    """What `drivelab sim selftest` runs by default: cases() at once, and the SLC cache's
    recovery with them (tests/e2e runs that one in its own module)."""
    return [*cases(), slc_case()]


def slc_case(size: int = 192 * MiB) -> Case:
    """The SLC cache and its recovery (plan slc-cache) on the "slc-recovery" drive: a fill of
    192 MiB, refills of 64 MiB after 3, 6 and 12 s idle (9-36 MiB recovered and more: the time
    between steps is idle too). The longest recovers a cache written in ~2 s at the cache's
    speed, above what the method can see (1.5 s, backend.analysis.slc) with room for a host
    that holds fio up; the shorter ones are below it or near it. Not among cases() (the e2e
    self-test's): its run lasts about a minute and a half; among bench_cases()."""
    return Case(
        "slc cache recovery",
        "slc-recovery",
        size,
        "slc-cache",
        {"recovery_idle_s": [3, 6, 12], "recovery_span": "64m"},
    )


def check_slc(client: httpx.Client, case: Case) -> list[Check]:
    """The fill's cache size and each refill's recovered cache against what the drive did: for
    each pass, the cache the model held as the pass began (its "cache-burst" event) and where
    the device's own counters show the speed fell (truth.effective_change around its
    "cache-empty" event: the kernel's throttle carries the change out a little late), in bytes
    from the pass's start. The found size must be within POSITION_TOL_PCT of the fill's span of
    the device's, with the room the host's holding fio up there gives (as a step-down's
    position); the fill's speeds within LEVEL_TOL of the profile's."""
    assert case.sim is not None and case.run is not None
    profile = PROFILES[case.profile]
    cache = profile.cache
    assert cache is not None
    events = case.sim.events()
    trace = case.sim.trace()
    span = case.sim.size_bytes
    checks: list[Check] = []
    steps = _steps(case.run, "slc-fill") + _steps(case.run, "slc-refill")
    for step in steps:
        start, end = job_window(step, _output(client, case.run, step))
        label = step["name"]
        inside = [e for e in events if start - 1.0 <= e["wall"] <= end + 0.5]
        burst = next((e for e in inside if e["kind"] == "cache-burst"), None)
        empty = next((e for e in inside if e["kind"] == "cache-empty"), None)
        slc = (step.get("findings") or {}).get("slc") or {}
        got = slc.get("cache_gb") if slc.get("kind") == "fill" else slc.get("recovered_gb")
        if burst is None or empty is None:
            checks.append(
                Check(
                    case.name,
                    f"{label}: the drive's cache ran out",
                    "a cache-empty event",
                    "none",
                    False,
                )  # fmt: skip
            )
            continue
        model = float(burst["cache_bytes"])
        first = float(empty["empty_at"]) - float(empty["burst_empty_at"])
        found = truth.effective_change(trace, empty["wall"], 1)
        device = (found["at"] - first) if found is not None else float(empty["burst_empty_at"])
        wall = found["wall"] if found is not None else float(empty["wall"])
        held = truth.fio_held(trace, wall - HELD_AROUND_S, wall + HELD_AROUND_S)
        tol = (POSITION_TOL_PCT / 100.0 * span + held * cache.fast_mbps * 1e6) / 1e9
        what = "cache size" if slc.get("kind") == "fill" else "cache recovered"
        if slc.get("kind") == "refill":
            what += f" after {slc.get('idle_s')} s idle"
        # A recovered cache written at the cache's speed in less than a level must last is
        # below what the method can see (backend.analysis.slc): "none" is its finding then, or
        # a step-down placed to within one of the blocks a level is made of.
        # fio's snapshots stop while the host holds it up: a level shortened by that much.
        unseen = device / (cache.fast_mbps * 1e6) < SLC_MIN_LEVEL_S + held
        coarse = tol + SLC_BLOCK_S * cache.fast_mbps * 1e6 / 1e9
        checks.append(
            Check(
                case.name,
                f"{label}: {what}, GB",
                f"{device / 1e9:.4f} (device; model {model / 1e9:.4f})"
                + _held_note(held, f"within {tol:.4f}")
                + (
                    f"; written in under {SLC_MIN_LEVEL_S + held:.3g} s: none, or within "
                    f"{coarse:.4f}"
                    if unseen
                    else ""
                ),
                f"{got:.4f} ({slc.get('state') or 'fill'})" if got is not None else "none",
                got is not None
                and (
                    (abs(got - device / 1e9) <= tol and slc.get("state") in (None, "step-down"))
                    or (unseen and slc.get("state") == "none")
                    or (unseen and abs(got - device / 1e9) <= coarse)
                ),
            )
        )
        if slc.get("kind") == "refill":
            # The idle the drive had (since its last write, the model's) against the one
            # measured on fio's clock: fio prints its end a few tens of ms after the job's.
            idle = burst.get("idle_s")
            measured = slc.get("idle_measured_s")
            checks.append(
                Check(
                    case.name,
                    f"{label}: idle measured, s",
                    f"{idle:.2f} (device, within {IDLE_TOL_S:g})" if idle else "none",
                    f"{measured:.2f}" if measured is not None else "none",
                    idle is not None
                    and measured is not None
                    and abs(measured - idle) <= IDLE_TOL_S,
                )
            )
        if slc.get("kind") == "fill":
            fast, slow = float(slc.get("cache_mbps") or 0), float(slc.get("after_mbps") or 0)
            checks.append(
                Check(
                    case.name,
                    f"{label}: MB/s in the cache and after it",
                    f"{cache.fast_mbps:g} -> {cache.slow_mbps:g} (profile)",
                    f"{fast:.2f} -> {slow:.2f}" if fast and slow else "none",
                    bool(fast and slow)
                    and abs(fast - cache.fast_mbps) <= LEVEL_TOL * cache.fast_mbps
                    and abs(slow - cache.slow_mbps) <= LEVEL_TOL * cache.slow_mbps,
                )
            )
    return checks


def bursts_case(size: int = 32 * MiB) -> Case:
    """QD1 bursts (plan qd1-bursts) on the "qd1-bursts" drive (reads 20 MB/s, writes 10 MB/s):
    a 32 MiB span, 3 random bursts of at most 8 MiB and 2 sequential bursts of at most 16 MiB
    each way, at most 1 s each (the sequential writes end on time, the rest on size), 1 s idle
    after each (and the time between steps: 1-2 s more on a busy host). Not among cases():
    the bursts are short, the idle between them is what counts."""
    return Case(
        "qd1 bursts",
        "qd1-bursts",
        size,
        "qd1-bursts",
        {
            "random_bursts": 3,
            "random_burst_size": "8m",
            "seq_bursts": 2,
            "seq_burst_size": "16m",
            "burst_max_s": 1,
            "idle_s": 1,
        },
    )


# The trace's readings are this far apart (5 ms), so the device's own time of a burst is known
# to two of them.
TICK_S = 0.005
# Around fio's window of a burst (its final JSON is printed a few tens of ms after its end),
# this much on each side is searched for the device's movement; the idle is longer.
BURST_AROUND_S = 0.3
# A device standing still longer than this between two rises ends a movement: less than the
# shortest idle between bursts the self-test asks for (1 s).
BURST_GAP_S = 0.5


def device_burst(
    trace: Any, column: int, start: float, end: float, around_s: float = BURST_AROUND_S
) -> tuple[float, float, float, float, float] | None:
    """The device's movement (`column` 1 written, 3 read) that is this burst's: its counter's
    rises grouped into movements apart by more than BURST_GAP_S of standing still (bursts are
    a second or more apart on the device), and of those the one that overlaps the burst's
    window on fio's clock (`around_s` wider on each side: fio prints its end late when the host
    holds it up) the most. (a0, a1, b0, b1, bytes): it began between a0 (the last reading before
    the counter rose) and a1 (the first after), and ended between b0 (the last reading below its
    final value) and b1 (the first at it): readings are 5 ms apart, more where the host held the
    controller up, and the device's time of the burst is known to no better than that."""
    import numpy as np

    t, y = trace[:, 0], trace[:, column]
    rises = np.flatnonzero(np.diff(y) > 0)  # reading r to r + 1 moved data
    if rises.size == 0:
        return None
    breaks = np.flatnonzero(t[rises[1:]] - t[rises[:-1] + 1] > BURST_GAP_S)
    firsts = np.concatenate(([rises[0]], rises[breaks + 1]))
    lasts = np.concatenate((rises[breaks], [rises[-1]]))
    lo, hi = start - around_s, end + around_s
    best, best_overlap = None, 0.0
    for a, b in zip(firsts, lasts, strict=True):
        overlap = min(hi, float(t[b + 1])) - max(lo, float(t[a]))
        if overlap > best_overlap:
            best, best_overlap = (int(a), int(b)), overlap
    if best is None:
        return None
    a, b = best
    moved = float(y[b + 1] - y[a])
    return float(t[a]), float(t[a + 1]), float(t[b]), float(t[b + 1]), moved


def check_bursts(client: httpx.Client, case: Case) -> list[Check]:
    """Every burst's MB/s against the device's own (its counters: the bytes it moved over the
    time it moved them, known to the readings on each side of its start and end), within
    LEVEL_TOL; no more than the profile lets it
    (the throttle's speed, LEVEL_TOL above); the sequential bursts at the profile's speed (the
    throttle's pace, not fio's, limits 128K QD1 here); and between two bursts the device idle
    (neither counter moving) at least the idle step, with the idle drivelab measured on fio's
    clock within IDLE_TOL_S of the device's."""
    assert case.sim is not None and case.run is not None
    profile = PROFILES[case.profile]
    trace = case.sim.trace()
    checks: list[Check] = []
    idle_s = float(case.params.get("idle_s", 4))
    found_rows: dict[str, dict[str, Any]] = {}
    for step in case.run["steps"]:
        f = (step.get("findings") or {}).get("bursts")
        if f:
            for row in f["rows"]:
                found_rows[row["step"]] = row
    last_end: float | None = None
    for step in _steps(case.run, "burst"):
        label = step["name"]
        direction = "read" if label.split("-burst")[0].endswith("read") else "write"
        column = 3 if direction == "read" else 1
        start, end = job_window(step, _output(client, case.run, step))
        # fio held up by the host prints its end late, and its clock of the burst moves with it.
        held = truth.fio_held(trace, start - HELD_AROUND_S, end + HELD_AROUND_S)
        dev = device_burst(trace, column, start, end, BURST_AROUND_S + held)
        row = found_rows.get(label)
        limit = profile.read_mbps if direction == "read" else profile.level_at(0.0).mbps
        assert limit is not None
        if dev is None or row is None:
            checks.append(Check(case.name, f"{label}: MB/s", "device moved data", "none", False))
            continue
        a0, a1, b0, b1, moved = dev
        first, last = a0, b1
        # The device's rate lies between its bytes over the longest and the shortest time the
        # readings allow.
        slow = moved / max(b1 - a0, TICK_S) / 1e6
        fast = moved / max(b0 - a1, TICK_S) / 1e6
        got = float(row["mbps"])
        # fio's runtime of a burst holds what the host held fio up in it, the device's does not:
        # that share more room below (as the mixed steps' check).
        held_in = truth.fio_held(trace, min(start, a0), max(end, b1))
        low = LEVEL_TOL + held_in / max(b1 - a0, TICK_S)
        checks.append(
            Check(
                case.name,
                f"{label}: burst MB/s",
                f"{slow:.2f}-{fast:.2f} (device, {moved / 1e6:.2f} MB in {b0 - a1:.3f}-"
                f"{b1 - a0:.3f} s, within {LEVEL_TOL:.0%}"
                + (f", {low:.0%} below: the host held fio up {held_in:.2f} s" if held_in else "")
                + f"; profile at most {limit:g})",
                f"{got:.2f} ({row['iops']:.0f} IOPS in {row.get('runtime_s') or 0:.3f} s)",
                (1 - low) * slow <= got <= (1 + LEVEL_TOL) * fast
                and got <= limit * (1 + LEVEL_TOL),
            )
        )
        if label.startswith("seq"):
            held_words = ""
            if held_in:
                held_words = f", {low:.0%} below: the host held fio up {held_in:.2f} s"
            checks.append(
                Check(
                    case.name,
                    f"{label}: sequential QD1 at the drive's speed",
                    f"{limit:g} MB/s (profile, within {LEVEL_TOL:.0%}"
                    + held_words
                    + ")"
                    + (
                        f"; the device itself moved at most {fast:.2f}: the host, not the drive"
                        if fast < (1 - LEVEL_TOL) * limit
                        else ""
                    ),
                    f"{got:.2f}",
                    (1 - low) * limit <= got <= (1 + LEVEL_TOL) * limit
                    or (fast < (1 - LEVEL_TOL) * limit and got <= (1 + LEVEL_TOL) * limit),
                )
            )
        if last_end is not None:
            # Neither counter moved from the device's end of the burst before to this one's
            # start: the device idle, for at least the idle step.
            t = trace[:, 0]
            gap = (t > last_end) & (t < first)
            moved_between = 0.0
            if gap.any():
                for col in (1, 3):
                    ys = trace[gap, col]
                    moved_between += float(ys.max() - ys.min())
            measured = row.get("idle_before_s")
            # The idle measured on fio's clock: from the end fio printed for the burst before
            # (late by what the host held fio up) to this one's start.
            tol = IDLE_TOL_S + truth.fio_held(
                trace, last_end - HELD_AROUND_S, first + HELD_AROUND_S
            )
            checks.append(
                Check(
                    case.name,
                    f"{label}: idle before it, s",
                    f"{first - last_end:.2f} (device, at least {idle_s:g}, nothing moved; "
                    f"within {tol:.2f})",
                    f"{measured:.2f}, {moved_between / 1e3:.0f} kB moved"
                    if measured is not None
                    else "none",
                    measured is not None
                    and moved_between == 0
                    and first - last_end >= idle_s
                    and abs(measured - (first - last_end)) <= tol,
                )
            )
        last_end = last
    return checks


# A mixed step's MB/s against the device's own (its bytes over the time it was moving them:
# fio's runtime also holds its start and its last reaps); and the model's ends (a direction
# alone at its throttle) within this share of the profile's speed.
MIXED_TOL = 0.05
MIXED_MODEL_TOL = 0.10
# The share of writes found against the device's (percentage points), and fio's bytes
# against the device's counters.
MIXED_SHARE_TOL_PCT = 1.0
MIXED_BYTES_TOL = 0.01
PAD_S = 0.5


def _device_moved(trace: Any, lo: float, hi: float) -> dict[str, float]:
    """Bytes the device read and wrote between two wall times, and how long it was moving
    them: from the last reading before its counters first rose to the first reading after
    they last rose (the controller reads them every 5 ms)."""
    t, wrote, read = trace[:, 0], trace[:, 1], trace[:, 3]
    inside = np.flatnonzero((t >= lo) & (t <= hi))
    if inside.size < 2:
        return {"read": 0.0, "write": 0.0, "seconds": 0.0}
    ti, wi, ri = t[inside], wrote[inside], read[inside]
    rises = np.flatnonzero(np.diff(wi + ri) > 0)
    if rises.size == 0:
        return {"read": 0.0, "write": 0.0, "seconds": 0.0}
    a, b = int(rises[0]), int(rises[-1]) + 1
    return {
        "read": float(ri[b] - ri[a]),
        "write": float(wi[b] - wi[a]),
        "seconds": float(ti[b] - ti[a]),
    }


def mixed_case(size: int = 64 * MiB) -> Case:
    """Mixed random and mixed sequential (plan mixed) on the "mixed" drive (flat 10 MB/s
    writes, 20 MB/s reads): 0, 25, 50, 75 and 100% writes, 3 s each with 1 s idle. Not among
    cases(): its run lasts about a minute."""
    return Case(
        "mixed random and sequential",
        "mixed",
        size,
        "mixed",
        {
            "span": "64m",
            "write_shares": [0, 25, 50, 75, 100],
            "step_runtime_s": 3,
            "idle_s": 1,
        },
    )


def mixed_model_mbps(read_mbps: float, write_mbps: float, write_pct: int) -> float:
    """A drive with flat speeds throttled apart, reads and writes in fio's proportion: the
    direction that reaches its limit first sets the total, min(R / (1 - x), W / x)."""
    x = write_pct / 100.0
    limits = []
    if x < 1:
        limits.append(read_mbps / (1 - x))
    if x > 0:
        limits.append(write_mbps / x)
    return min(limits)


def check_mixed(client: httpx.Client, case: Case) -> list[Check]:
    """Each step against the device's own counters: fio's bytes read and written against what
    the device moved around the step (within MIXED_BYTES_TOL), its MB/s (reads and writes
    together) against the device's bytes over the time it was moving them (within MIXED_TOL
    and the room the host's holding fio up gives), its share of writes against the device's.
    Then each part's curve against the drive's model, min(R / (1 - x), W / x): every point
    within MIXED_MODEL_TOL, the lowest and highest at the model's shares. The model is the
    kernel throttle's, which lets a direction use at QD1 the budget it did not use while the
    other waited; a real drive at QD1 need not follow it."""
    assert case.sim is not None and case.run is not None
    profile = PROFILES[case.profile]
    read_limit = float(profile.read_mbps or 0)
    write_limit = float(profile.write_levels[-1].mbps)
    trace = case.sim.trace()
    checks: list[Check] = []
    # Each fio step's window on the device: its job's window from fio's clock, widened to
    # halfway to the fio steps around it (at most PAD_S), so that all it moved is inside.
    fio = [s for s in case.run["steps"] if s["kind"] == "fio" and s["status"] == "done"]
    jobs = [job_window(s, _output(client, case.run, s)) for s in fio]
    windows = {}
    for k, s in enumerate(fio):
        start, end = jobs[k]
        lo = max(start - PAD_S, (jobs[k - 1][1] + start) / 2) if k else start - PAD_S
        hi = min(end + PAD_S, (end + jobs[k + 1][0]) / 2) if k + 1 < len(fio) else end + PAD_S
        windows[s["id"]] = (lo, hi)
    for summary in _steps(case.run, "mixed-summary"):
        device_mbps: dict[int, float] = {}
        mixed = (summary.get("findings") or {}).get("mixed") or {}
        part = summary["params"].get("part")
        points = {p["write_pct"]: p for p in mixed.get("points", [])}
        for step in [s for s in _steps(case.run, "mixed-step") if s["params"]["part"] == part]:
            pct = int(step["params"]["write_pct"])
            lo, hi = windows[step["id"]]
            moved = _device_moved(trace, lo, hi)
            results = {r["metric"]: r["value"] for r in step["results"]}
            fio_read = float(results.get("read_bytes", 0.0))
            fio_write = float(results.get("write_bytes", 0.0))
            # Bytes: everything fio moved in the step, as the device counted it.
            for what, dev, found in (("read", moved["read"], fio_read),
                                     ("written", moved["write"], fio_write)):  # fmt: skip
                checks.append(
                    Check(
                        case.name,
                        f"{step['name']}: bytes {what}",
                        f"{dev:.0f} (device, within {MIXED_BYTES_TOL * 100:g}%)",
                        f"{found:.0f}",
                        abs(found - dev) <= MIXED_BYTES_TOL * max(dev, 1.0),
                    )
                )
            device = (moved["read"] + moved["write"]) / max(moved["seconds"], 1e-9) / 1e6
            device_mbps[pct] = device
            held = truth.fio_held(trace, lo, hi)
            tol = MIXED_TOL + held / max(moved["seconds"], 1e-9)
            got = points.get(pct, {}).get("mbps")
            checks.append(
                Check(
                    case.name,
                    f"{step['name']}: MB/s, reads and writes",
                    f"{device:.2f} (device, over {moved['seconds']:.2f} s, within "
                    f"{tol * 100:.1f}%)" + _held_note(held, "more room"),
                    f"{got:.2f}" if got is not None else "none",
                    got is not None and abs(got - device) <= tol * device,
                )
            )
            # The share of writes drivelab reports (fio's write part) against the device's; how
            # close fio's own draw came to rwmixwrite is fio's (a 3 s step of 128K I/Os at QD1
            # is about 450 of them: a few points either way).
            share = 100.0 * moved["write"] / max(moved["read"] + moved["write"], 1.0)
            p = points.get(pct, {})
            found_share = 100.0 * p.get("write_mbps", 0.0) / max(p.get("mbps", 0.0), 1e-9)
            checks.append(
                Check(
                    case.name,
                    f"{step['name']}: share of writes, %",
                    f"{share:.1f} (device, within {MIXED_SHARE_TOL_PCT:g}; fio asked {pct})",
                    f"{found_share:.1f}" if p else "none",
                    bool(p) and abs(found_share - share) <= MIXED_SHARE_TOL_PCT,
                )
            )
        if not points:
            checks.append(Check(case.name, f"{part}: the curve", "points", "none", False))
            continue
        shares = sorted(points)
        model = {x: mixed_model_mbps(read_limit, write_limit, x) for x in shares}
        for x in shares:
            want, got = model[x], points[x]["mbps"]
            # A host too busy to drive the throttle's pace (4K at QD4 needs a core) keeps the
            # device itself below the model: then the device's own rate, which the step's
            # check above holds fio's figure to, is what the drive did.
            dev_x = device_mbps.get(x)
            below = dev_x is not None and dev_x < (1 - MIXED_MODEL_TOL) * want
            checks.append(
                Check(
                    case.name,
                    f"{part}: MB/s at {x}% writes",
                    f"{want:g} (model, within {MIXED_MODEL_TOL * 100:g}%)"
                    + (
                        f"; the device itself moved {dev_x:.2f}: the host, not the drive"
                        if below
                        else ""
                    ),
                    f"{got:.2f}",
                    abs(got - want) <= MIXED_MODEL_TOL * want
                    or (below and got <= (1 + MIXED_MODEL_TOL) * want),
                )
            )
        lowest = min(shares, key=lambda x: model[x])
        checks.append(
            Check(
                case.name,
                f"{part}: share of writes of the lowest MB/s",
                f"{lowest}% (model)",
                f"{mixed.get('min_write_pct')}%",
                mixed.get("min_write_pct") == lowest,
            )
        )
        highest = max(shares, key=lambda x: model[x])
        checks.append(
            Check(
                case.name,
                f"{part}: share of writes of the highest MB/s",
                f"{highest}% (model)",
                f"{mixed.get('max_write_pct')}%",
                mixed.get("max_write_pct") == highest,
            )
        )
        avg = sum(p["mbps"] for p in points.values()) / len(points)
        checks.append(
            Check(
                case.name,
                f"{part}: average MB/s over the shares",
                f"{avg:.3f} (its points)",
                f"{mixed.get('avg_mbps', float('nan')):.3f}",
                abs(mixed.get("avg_mbps", -1.0) - avg) <= 1e-6 * max(avg, 1.0),
            )
        )
    return checks


def file_copy_case(size: int = 384 * MiB) -> Case:
    """A file copy after deletions (plan file-copy) on the "discard-stalls" drive: 12 files of
    8 MiB copied at 20 MB/s, 4 of the copies (32 MiB) deleted through ext4's online discard,
    which owes two 1.5 s write stalls (12 MiB each), copied again. Not among cases(): it makes
    a filesystem, and its run lasts about half a minute."""
    return Case(
        "file copy after deletions",
        "discard-stalls",
        size,
        "file-copy",
        {"file_size": "8m", "copy_size": "96m", "delete_size": "32m"},
    )


def check_file_copy(client: httpx.Client, case: Case) -> list[Check]:
    """The copies' standstills against what the drive did: the stalls its model owed to the
    deletions' discards (one per DiscardStalls.per_bytes of what the device itself counted as
    discarded), and where the device's own counters show its writes stopped during each copy
    (truth.device_stalls: the model's stalls, the throttle resuming late, the host holding fio
    up). Each of the device's stops of MIN_STALL_S + STALL_TOL_S or more must be found once,
    its length within STALL_TOL_S (and what the host held fio up there); nothing else found.
    And the copies' bytes are fio's own totals."""
    from backend.analysis.stalls import MIN_STALL_S

    assert case.sim is not None and case.run is not None
    rule = PROFILES[case.profile].discard_stalls
    assert rule is not None
    step = next(s for s in case.run["steps"] if s["kind"] == "file-copy")
    logs = _call(client, "GET", f"/api/runs/{case.run['id']}/steps/{step['id']}/logs")
    found = (step.get("findings") or {}).get("file_copy") or {}
    events = case.sim.events()
    trace = case.sim.trace()
    checks: list[Check] = []
    discarded = int((logs.get("deletion") or {}).get("discarded_bytes") or 0)
    owed = sum(int(e["owed"]) for e in events if e["kind"] == "stalls-owed")
    checks.append(
        Check(
            case.name,
            "stalls owed to the deletions' discards",
            f"{discarded // rule.per_bytes} ({discarded / MiB:.1f} MiB discarded, device)",
            f"{owed} (model)",
            discarded > 0 and owed == discarded // rule.per_bytes,
        )
    )
    for name, which in (("copy-1", "first"), ("copy-2", "repeated")):
        copy = found.get(which) or {}
        output = (logs.get("outputs") or {}).get(name) or ""
        if not copy or not output:
            checks.append(Check(case.name, f"{name}: analysed", "yes", "no", False))
            continue
        final = json.loads(output)
        fio_bytes = sum(int(j["write"]["io_bytes"]) for j in final["jobs"])
        checks.append(
            Check(
                case.name,
                f"{name}: bytes, fio's total",
                str(fio_bytes),
                f"{copy['bytes']:.0f}",
                int(copy["bytes"]) == fio_bytes,
            )  # fmt: skip
        )
        start, end = job_window(step, output)
        made = [x for x in truth.stalls(events) if x["wall"] + x["duration_s"] > start
                and x["wall"] < end]  # fmt: skip
        device = _joined_by_holds(
            [{"start_s": d["wall"] - start, "duration_s": d["duration_s"]}
             for d in truth.device_stalls(trace, start, end, min_s=MIN_STALL_S - STALL_TOL_S)],
            trace, start,
        )  # fmt: skip
        must = [d for d in device if d["duration_s"] >= MIN_STALL_S + STALL_TOL_S]
        got = copy.get("standstills") or []
        listed = _listed
        checks.append(
            Check(
                case.name,
                f"{name}: the model's stalls",
                "none" if name == "copy-1" else f"{owed} of {rule.duration_s:g} s",
                listed(
                    [{"start_s": x["wall"] - start, "duration_s": x["duration_s"]} for x in made]
                ),  # fmt: skip
                len(made) == (0 if name == "copy-1" else owed),
            )
        )
        checks += _stalls_matched(
            case.name, name, "standstill", device, must, got, trace, start, listed,
            start_room=start_uncertainty(trace, end),
        )  # fmt: skip
    return checks


def _listed(stalls: list[dict[str, Any]]) -> str:
    return f"{len(stalls)}: " + ", ".join(
        f"{x['start_s']:.2f} s for {x['duration_s']:.2f} s" for x in stalls
    )


def full_drive_case(size: int = 128 * MiB) -> Case:
    """Empty against full (plan full-drive) on the "full-drive" drive: 1 s tests, the empty
    state in the first 10%, the fill to 80%. Not among cases(): a run lasts half a minute."""
    return Case(
        "full drive",
        "full-drive",
        size,
        "full-drive",
        {"runtime_s": 1, "seq_runtime_s": 1},
    )


# A 1 s test's rate: the throttle's 0.1 s slices and fio's own start and end are a tenth of it.
SHORT_TOL = 0.10
# The drop from empty to full, in points of %, against the device's.
DROP_TOL_PTS = 5.0
# Room around a step's job window from fio's clock, for the device's first and last move.
EDGE_S = 0.3


def check_full_drive(client: httpx.Client, case: Case) -> list[Check]:
    """Each write test in both states against what the drive did: the MB/s fio reported
    against the device's own rate from its first to its last move in the job (its counters),
    that rate against the profile's level at the share of the device written then (the 4K tests
    also held to the IOPS limit), and the finding's drop from empty to full against the
    device's. The sequential read against the profile's read speed in both states."""
    assert case.sim is not None and case.run is not None
    profile = PROFILES[case.profile]
    trace = case.sim.trace()
    size = case.sim.size_bytes
    checks: list[Check] = []
    device: dict[str, float] = {}
    spans: dict[str, tuple[float, float]] = {}
    # What the host held fio up in each job, as a share of the job: its figure is off the
    # device's by as much (a 1 s job held up 0.1 s reads 10% slow), and so is the drop.
    held_share: dict[str, float] = {}
    for step in _steps(case.run, "full-drive-empty") + _steps(case.run, "full-drive-full"):
        rw = step["params"]["rw"]
        write = rw in ("write", "randwrite")
        if not write and rw != "read":
            continue  # 4K random reads: the profile does not limit them (the host does)
        start, end = job_window(step, _output(client, case.run, step))
        column = 1 if write else 3
        # The steps next to it move the other direction, or end a second or more before.
        # The device's rate as its readings bound it: a reader held up by the host reads the
        # first or last move late, and a 1 s job's rate moves by as much.
        slow, fast = truth.active_rate_range(trace, column, start - EDGE_S, end + EDGE_S)
        slow, fast = slow / 1e6, fast / 1e6
        rate = slow
        device[step["name"]] = rate
        spans[step["name"]] = (slow, fast)
        held_share[step["name"]] = truth.held_share(trace, start, end)
        room_tol = SHORT_TOL + held_share[step["name"]]
        direction = "write" if write else "read"
        got = next(r["value"] for r in step["results"] if r["metric"] == f"{direction}_mbps")
        bounds = f"{slow:.2f}" if fast - slow < 0.005 else f"{slow:.2f}-{fast:.2f}"

        lo, hi = (1 - room_tol) * slow, (1 + room_tol) * fast
        checks.append(
            Check(
                case.name,
                f"{step['name']}: MB/s",
                f"{bounds} (device, within {room_tol:.0%}: {SHORT_TOL:.0%} and the host's hold)",
                f"{got:.2f}",
                lo <= got <= hi,
            )
        )
        if write:
            t, y = trace[:, 0], trace[:, 1]
            at = (float(np.interp(start, t, y)) / size, float(np.interp(end, t, y)) / size)
            levels = {profile.level_at(a) for a in at}
            level = min(lv.mbps for lv in levels)
            if profile.cliff and step["params"]["bs"] == "4k":
                level = min(level, profile.cliff.fob_iops * 4096 / 1e6)
            truth_words = f"{level:g} (profile at {at[0]:.0%}-{at[1]:.0%} written)"
            ok = len(levels) == 1 and lo <= level <= hi
        else:
            level = profile.read_mbps or 0.0
            truth_words, ok = f"{level:g} (profile)", lo <= level <= hi
        checks.append(
            Check(case.name, f"{step['name']}: the device's MB/s", truth_words, bounds, ok)
        )
    for step in _steps(case.run, "full-drive-full"):
        pair = step["params"]["pair"]
        if step["name"] not in device or pair not in device:
            continue
        # The drop as the two jobs' device rates bound it (each between its readings).
        (p_slow, p_fast), (s_slow, s_fast) = spans[pair], spans[step["name"]]
        least = (1 - s_fast / p_slow) * 100 if p_slow else 0.0
        most = (1 - s_slow / p_fast) * 100 if p_fast else 0.0
        truth_drop = (device[pair] - device[step["name"]]) / device[pair] * 100
        found = ((step.get("findings") or {}).get("fullstate") or {}).get("drop_pct")
        held = held_share[pair] + held_share[step["name"]]
        tol = DROP_TOL_PTS + held * 100
        room = f"; the host held fio up {held:.1%} of the two jobs, so within {tol:.1f} points"
        bounds = f"{truth_drop:.1f}" if most - least < 0.05 else f"{least:.1f} to {most:.1f}"
        checks.append(
            Check(
                case.name,
                f"{step['name']}: drop from empty, %",
                f"{bounds} (device, within {DROP_TOL_PTS:g} points"
                + (room if held >= 0.005 else "")
                + ")",
                "none" if found is None else f"{found:.1f}",
                found is not None and least - tol <= found <= most + tol,
            )
        )
    return checks


CHECKS: dict[str, Callable[[httpx.Client, Case], list[Check]]] = {
    "full-drive": check_full_drive,
    "file-copy": check_file_copy,
    "mixed": check_mixed,
    "slc-cache": check_slc,
    "qd1-bursts": check_bursts,
    "hdtach": check_hdtach,
    "write-hitching": lambda c, case: (
        check_stalls(c, case, "hitch-seq", "sequential")
        + check_stalls(c, case, "hitch-rand", "random")
    ),
    "trim-performance": lambda c, case: check_stalls(
        c, case, "trim-followup-write", "write after TRIM"
    ),
    "consistency": check_consistency,
}


class HostWatch:
    """How long this host holds a runnable process up: a thread that sleeps 5 ms at a time
    and records how much later than asked it wakes. Over MIN_STALL_S (0.3 s), the host held
    processes up as long as the shortest stall the analysis reports: fio may have been held up
    as long, and no fio output tells that from the drive."""

    def __init__(self) -> None:
        self.worst_s = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        while not self._stop.is_set():
            t = time.monotonic()
            time.sleep(0.005)
            self.worst_s = max(self.worst_s, time.monotonic() - t - 0.005)

    def __enter__(self) -> HostWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(1)


def run_selftest(
    client: httpx.Client,
    bench: str,
    workdir: Path,
    *,
    selected: list[Case] | None = None,
    timeout: float = 600.0,
    progress: Callable[[str], None] = lambda _line: None,
) -> list[Case]:
    """Start every case's simulated drive, register it on `bench`, queue its plan (all at
    once: the bench runs different drives at the same time), wait, check. The drives stop at
    the end; their runs stay, labelled simulated."""
    todo = selected if selected is not None else cases()
    watch = HostWatch().__enter__()
    try:
        for case in todo:
            case.sim = SimDrive(case.profile, case.size, workdir, label=case.name).start()
            case.drive = register(client, bench, case)
            progress(f"{case.name}: {case.sim.device} ({case.profile}), drive {case.drive['id']}")
        runs = {}
        for case in todo:
            assert case.drive is not None
            run = _call(
                client,
                "POST",
                "/api/runs",
                {
                    "plan": case.plan,
                    "drive_id": case.drive["id"],
                    "params": case.params,
                    "confirm_serial": case.drive["serial"],
                },
            )
            runs[case.name] = run["id"]
        deadline = time.monotonic() + timeout
        while True:
            states = {n: _call(client, "GET", f"/api/runs/{i}") for n, i in runs.items()}
            if all(r["status"] in FINAL for r in states.values()):
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"the self-test's runs did not end within {timeout:.0f} s")
            time.sleep(1.0)
        for case in todo:
            case.run = states[case.name]
            if case.run["status"] != "done":
                case.checks = [Check(case.name, "run", "done", case.run["status"], False)]
                continue
            case.checks = CHECKS[case.plan](client, case)
    finally:
        watch.__exit__()
        for case in todo:
            if case.sim is not None:
                case.sim.stop()
    for case in todo:
        case.host_worst_s = watch.worst_s
    return todo
