"""Execute one step of a run, by kind: fio, fio-rounds (SNIA PTS steady state), fio-points
(the PTS demand-intensity sweep's point runs), purge, trim, idle. Each returns the report the
api stores for the step (`POST .../steps/{id}/finish`)."""

from __future__ import annotations

import json
import logging
import math
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from backend.analysis import pts
from backend.analysis.fio_results import direction_summary
from backend.analysis.steady_state import is_steady, steady_state_report
from backend.plans.base import job_file_lines, with_point, with_randseed_offset
from backend.plans.thermal import HEAT_ROLE
from worker.client import ApiClient, ApiError, ApiUnreachable, SampleOutbox
from worker.devices import DeviceInfo
from worker.fio.logs import collect_logs
from worker.fio.runner import FioOutcome, run_fio
from worker.fio.stream import Sample
from worker.guard import HeldTarget
from worker.sim.registry import SimError, cgroup_for
from worker.steps import StepError, StepStopped, idle, purge, trim
from worker.steps.file_copy import (
    Filesystem,
    delete_files,
    discarded_bytes,
    mounted,
    settle_discards,
)
from worker.steps.write_cache import restore_recorded, set_write_cache
from worker.temperature import Sampler

log = logging.getLogger("drivelab.worker")


@dataclass
class StepContext:
    client: ApiClient
    run_id: int
    step: dict[str, Any]
    target: HeldTarget  # held for the run; verified before every write
    workdir: Path
    spool_dir: Path
    should_stop: Callable[[], bool]
    on_control: Callable[[dict[str, Any] | None], None]
    fio_binary: str = "fio"
    fio_nice: int = 0
    # The drive's temperature, read in a thread of its own while the step runs (_Outbox).
    sampler: Sampler | None = None

    @property
    def info(self) -> DeviceInfo:
        return self.target.info


@dataclass
class StepReport:
    status: str  # done | failed | cancelled
    output: str | None = None
    stderr: str | None = None
    error: str | None = None
    logs: dict[str, Any] | None = None
    metrics: list[dict[str, Any]] = field(default_factory=list)

    def body(self, fingerprint: dict[str, Any] | None) -> dict[str, Any]:
        return {
            "status": self.status,
            "output": self.output,
            "stderr": (self.stderr or "")[-20000:] or None,
            "error": self.error,
            "logs": self.logs,
            "metrics": self.metrics,
            "fingerprint": fingerprint,
        }


def metric(name: str, value: float, unit: str) -> dict[str, Any]:
    return {"metric": name, "value": float(value), "unit": unit}


class _Outbox:
    """A SampleOutbox for the step, closed (and checked) on exit; the drive's temperature is
    read meanwhile (sc.sampler), for the samples and the step's log."""

    def __init__(self, sc: StepContext) -> None:
        self.sc = sc
        self.box = SampleOutbox(
            sc.client,
            sc.run_id,
            sc.step["id"],
            sc.on_control,
            spool=sc.spool_dir / f"run-{sc.run_id}-step-{sc.step['id']}.jsonl",
        )

    def __enter__(self) -> SampleOutbox:
        self.sc.sampler = Sampler.for_device(self.sc.info).start()
        self.box.start()
        return self.box

    def __exit__(self, *exc: object) -> None:
        if self.sc.sampler is not None:
            self.sc.sampler.stop()
        self.box.close()
        err = self.box.error
        if err is None:
            return
        if isinstance(err, ApiError) and err.status == 409:
            return  # the run ended on the api side; the caller sees should_stop()
        raise ApiUnreachable(str(err))


def _fio(
    sc: StepContext,
    box: SampleOutbox,
    job_file: str,
    name: str,
    *,
    t_offset_ms: int = 0,
    progress: Callable[[float | None], float | None] = lambda p: p,
    stop_early: Callable[[], bool] = lambda: False,
    fs: Filesystem | None = None,
) -> FioOutcome:
    def on_samples(samples: list[Sample], p: float | None) -> None:
        # The temperature read in the last second (a thread reads it: no wait here); None, and
        # left out of the batch, where the drive has no sensor.
        temp_dc = sc.sampler.current_dc() if sc.sampler is not None else None
        rows = []
        for s in samples:
            row = s.as_dict()
            row["t_ms"] += t_offset_ms
            row["temp_dc"] = temp_dc
            rows.append(row)
        box.add(rows, progress(p))

    # Every fio run writes: the target is verified right before it, and fio is given the
    # device or file that was verified, held open, for every section of its run; or, for a
    # file copy, fio runs in the namespace where that device's filesystem is mounted (`fs`).
    sc.target.verify(f"before {name}")
    enter, enter_fds = fs.enter() if fs is not None else (None, ())
    return run_fio(
        job_file if fs is not None else sc.target.fio_job_file(job_file),
        sc.workdir,
        name,
        on_samples=on_samples,
        should_stop=lambda: sc.should_stop() or box.error is not None or stop_early(),
        fio_binary=sc.fio_binary,
        status_interval_ms=int(sc.step["params"].get("status_interval_ms") or 1000),
        cgroup_procs=sim_cgroup(sc.info),
        nice=sc.fio_nice,
        pins=[] if fs is not None else sc.target.pins(),
        namespace=sc.target.namespace and fs is None,
        enter=enter,
        enter_fds=enter_fds,
    )


def sim_cgroup(info: DeviceInfo) -> Path | None:
    """The cgroup of the simulated drive that `info` is (worker.sim), None for any other
    target. SimError when it is one whose controller has stopped."""
    if info.transport != "loop":
        return None
    return cgroup_for(info.name, info.backing_file)


def stderr_summary(stderr: str, kinds: int = 5) -> str:
    """fio's last messages, one line of each kind: an I/O error is repeated for every request
    in flight, with only the offset changing."""
    by_kind: dict[str, list[str]] = {}
    for line in filter(None, (ln.strip() for ln in stderr.splitlines())):
        by_kind.setdefault(re.sub(r"\d+", "#", line), []).append(line)
    shown = [
        same[0] + (f" (and {len(same) - 1} more like it)" if len(same) > 1 else "")
        for same in list(by_kind.values())[-kinds:]
    ]
    return "; ".join(shown) or "no message on stderr"


def _fio_failure(outcome: FioOutcome) -> StepReport:
    detail = stderr_summary(outcome.stderr)
    if outcome.stopped:
        return StepReport("cancelled", outcome.final_text, outcome.stderr)
    if outcome.final_text is None and outcome.returncode == 0:
        message = f"fio printed no JSON result ({detail})"
    else:
        message = f"fio exited with status {outcome.returncode}: {detail}"
    return StepReport("failed", outcome.final_text, outcome.stderr, error=message)


def run_fio_step(sc: StepContext) -> StepReport:
    step = sc.step
    name = f"{step['idx']:02d}-{step['name']}"
    fetch_trace(sc)
    try:
        sim_cgroup(sc.info)
    except SimError as exc:
        return StepReport("failed", error=str(exc))
    phase = ThermalPhase(step["params"].get("until_c"))
    with _Outbox(sc) as box:
        phase.begin(sc)
        outcome = _fio(sc, box, step["job_file"], name, stop_early=lambda: phase.hot(sc))
    # Stopped at the temperature asked for, not cancelled: fio's final JSON (printed after the
    # SIGINT, with what it did until then) is the phase's, whatever its exit status (128).
    early = (
        phase.reached_at is not None
        and outcome.stopped
        and not sc.should_stop()
        and outcome.final_text is not None
    )
    if early:
        phase.fio_exit_status = outcome.returncode
    elif not outcome.ok:
        return _fio_failure(outcome)
    report = StepReport("done", outcome.final_text, outcome.stderr)
    if step["params"].get("role") == HEAT_ROLE:
        report.logs = {"thermal_phase": phase.log()}
        PHASE_START_C[sc.run_id] = phase.start_c
    window = step["params"].get("log_window_ms")
    if window:
        report.logs = {
            **(report.logs or {}),
            **collect_logs(sc.workdir, log_prefix(step["job_file"]) or step["name"], int(window)),
        }
    return with_thermal_log(report, sc)


# The temperature each run's last heat phase began at (a thermal plan's cool phase ends once the
# drive is back near it): kept by the worker process that runs the run's steps one after the
# other. A run resumed by another worker process after its heat phase gets it from the api in
# the cool step's params (`phase_start_c`).
PHASE_START_C: dict[int, float | None] = {}


@dataclass
class ThermalPhase:
    """A heat phase of the thermal plan (backend.plans.thermal): the temperature it began at,
    and the end of fio once the drive reaches `until_c` (None: it runs its time)."""

    until_c: float | None
    start_c: float | None = None
    reached_at: float | None = None  # monotonic time the temperature reached until_c
    reached_c: float | None = None
    began: float = 0.0
    fio_exit_status: int | None = None  # fio's, when it was stopped at until_c

    def begin(self, sc: StepContext) -> None:
        self.began = time.monotonic()
        self.start_c = sc.sampler.current_c() if sc.sampler is not None else None

    def hot(self, sc: StepContext) -> bool:
        """Whether the phase should end now (asked every 0.2 s while fio runs)."""
        if sc.sampler is None:
            return False
        if self.start_c is None:  # a command's first reading comes from the sampler's thread
            self.start_c = sc.sampler.current_c()
        if self.until_c is None:
            return False
        if self.reached_at is not None:
            return True
        c = sc.sampler.current_c()
        if c is None or c < float(self.until_c):
            return False
        self.reached_at, self.reached_c = time.monotonic(), c
        log.info("run %s: %.1f °C reached: ending the heat phase", sc.run_id, c)
        return True

    def log(self) -> dict[str, Any]:
        out: dict[str, Any] = {"start_c": self.start_c, "until_c": self.until_c}
        if self.until_c is not None:
            if self.reached_at is not None:
                out["stop"] = "temperature"
                out["stopped_after_s"] = round(self.reached_at - self.began, 3)
                out["stopped_at_c"] = self.reached_c
                out["fio_exit_status"] = self.fio_exit_status
            else:
                out["stop"] = "time"
        return out


def with_thermal_log(report: StepReport, sc: StepContext) -> StepReport:
    """The report with the step's thermal log (worker.temperature.Sampler.log: where the
    temperature was read, NVMe's thermal counters over the step) under logs["thermal"]."""
    thermal = sc.sampler.log() if sc.sampler is not None else None
    if thermal is not None:
        report.logs = {**(report.logs or {}), "thermal": thermal}
    return report


def log_prefix(job_file: str) -> str | None:
    for line in job_file_lines(job_file):
        if line.startswith("write_bw_log="):
            return line.split("=", 1)[1].strip()
    return None


def fetch_trace(sc: StepContext) -> None:
    """Put the uploaded trace a replay step names into the working directory."""
    trace_id = sc.step["params"].get("trace_id")
    trace_file = sc.step["params"].get("trace_file")
    if not trace_id or not trace_file:
        return
    sc.workdir.mkdir(parents=True, exist_ok=True)
    data = sc.client.get_bytes(f"/api/worker/traces/{int(trace_id)}")
    (sc.workdir / Path(trace_file).name).write_bytes(data)


def run_rounds_step(sc: StepContext) -> StepReport:
    """SNIA PTS: repeat the round until the window of the last rounds is steady, or a limit.

    A round is one fio run of the step's job file (round k with randseed + k - 1). With a
    `track` (the PTS tests), the round's job file has one stonewalled section per element,
    the tracking variable is one element's figure (backend.analysis.pts), and every round's
    fio output is posted to the api as soon as the round ends: it keeps them all and shows the
    convergence live. The loop also stops once `stop_write_bytes` have been written or
    `max_s` have passed (write saturation), and waits `wait_s` with no I/O after each round
    (host idle recovery's wait states). Samples are placed on the step's own clock, so the
    waits are gaps in the series."""
    p = sc.step["params"]
    max_rounds = int(p.get("max_rounds", 25))
    window = int(p.get("window", 5))
    excursion = float(p.get("excursion_pct", 20.0))
    slope = float(p.get("slope_pct", 10.0))
    track = p.get("track")
    stop_at_steady = bool(p.get("stop_at_steady", True))
    wait_s = float(p.get("wait_s") or 0.0)
    stop_bytes = float(p.get("stop_write_bytes") or 0)
    max_s = float(p.get("max_s") or 0)
    direction, _, key = str(p.get("metric", "write_iops")).partition("_")
    values: list[float] = []
    rounds: list[dict[str, Any]] = []
    written = 0.0
    stop = "rounds"
    started = time.monotonic()
    last: FioOutcome | None = None

    def clock_ms() -> int:
        return int((time.monotonic() - started) * 1000)

    try:
        sim_cgroup(sc.info)
    except SimError as exc:
        return StepReport("failed", error=str(exc))
    with _Outbox(sc) as box:
        for r in range(max_rounds):
            job = sc.step["job_file"]
            if p.get("randseed_per_round"):
                job = with_randseed_offset(job, r)
            t_start = clock_ms()
            last = _fio(
                sc,
                box,
                job,
                f"{sc.step['idx']:02d}-{sc.step['name']}-r{r + 1}",
                t_offset_ms=t_start,
                progress=partial(_round_progress, r, max_rounds),
            )
            if not last.ok:
                break
            final = json.loads(last.final_text or "{}")
            t_end = t_start + (last.samples[-1].t_ms if last.samples else 0)
            if track:
                summary = pts.round_summary(final)
                value = pts.tracked_value(summary, track["element"], track["metric"])
                written += sum(e.get("write_bytes", 0.0) for e in summary.values())
                _post_round(sc, r + 1, last.final_text or "", t_start, t_end)
            else:
                value = float((direction_summary(final, direction) or {}).get(key, 0.0))
            values.append(value)
            rounds.append(
                {"round": r + 1, "value": value, "t_start_ms": t_start, "t_end_ms": t_end}
            )
            if (
                stop_at_steady
                and len(values) >= window
                and is_steady(values[-window:], excursion_pct=excursion, slope_pct=slope)
            ):
                stop = "steady"
                break
            if stop_bytes and written >= stop_bytes:
                stop = "written"
                break
            if max_s and clock_ms() >= max_s * 1000:
                stop = "time"
                break
            if wait_s > 0:
                _slept, stopped = idle(
                    wait_s,
                    should_stop=sc.should_stop,
                    on_tick=partial(_tick, box, _round_progress(r, max_rounds, 1.0)),
                )
                if stopped:
                    break
    report_data = (
        steady_state_report(values, window=window, excursion_pct=excursion, slope_pct=slope)
        if values
        else {"steady": False}
    )
    logs = {
        "metric": p.get("metric", "write_iops"),
        "values": values,
        "report": report_data,
        "rounds": rounds,
        "stop": stop,
        "written_bytes": written,
    }
    if last is None or not last.ok:
        failed = _fio_failure(last) if last else StepReport("failed", error="no round ran")
        failed.logs = logs
        return failed
    if sc.should_stop():
        return StepReport("cancelled", logs=logs)
    return with_thermal_log(
        StepReport(
            "done",
            # A tracked round's output holds every element: the api has each round's on its own.
            None if track else last.final_text,
            last.stderr,
            logs=logs,
            metrics=steady_state_metrics(values, report_data) if stop_at_steady else [],
        ),
        sc,
    )


def run_points_step(sc: StepContext) -> StepReport:
    """SNIA PTS DIRTH/ECW: after the sweep, a dedicated run of the test stimulus at each of
    its maximum, middle and minimum IOPS points (backend.plans.pts_dirth.points_step).

    The api says which points (computed from the sweep's stored rounds, as its report does);
    each is one fio run of the step's job file with the point's TC x QD and its name
    (with_point), through the same interlock and pinning as every fio run (_fio), posted as a
    round of the step as soon as it ends. Samples are on the step's own clock."""
    try:
        points = sc.client.get(f"/api/worker/runs/{sc.run_id}/steps/{sc.step['id']}/points")
    except ApiError as exc:
        return StepReport("failed", error=f"the api gave no IOPS points to run: {exc.detail}")
    try:
        sim_cgroup(sc.info)
    except SimError as exc:
        return StepReport("failed", error=str(exc))
    started = time.monotonic()
    ran: list[dict[str, Any]] = []
    last: FioOutcome | None = None
    with _Outbox(sc) as box:
        for k, point in enumerate(points):
            if sc.should_stop():
                break
            t_start = int((time.monotonic() - started) * 1000)
            last = _fio(
                sc,
                box,
                with_point(sc.step["job_file"], point["name"], point["tc"], point["qd"]),
                f"{sc.step['idx']:02d}-{sc.step['name']}-{point['name']}",
                t_offset_ms=t_start,
                progress=partial(_round_progress, k, len(points)),
            )
            if not last.ok:
                break
            t_end = t_start + (last.samples[-1].t_ms if last.samples else 0)
            _post_round(sc, k + 1, last.final_text or "", t_start, t_end)
            ran.append({**point, "round": k + 1, "t_start_ms": t_start, "t_end_ms": t_end})
    logs = {"points": points, "runs": ran}
    if last is not None and not last.ok:
        failed = _fio_failure(last)
        failed.logs = logs
        return failed
    if sc.should_stop() or len(ran) < len(points):
        return StepReport("cancelled", logs=logs)
    # Each run's output is the api's as a round of its own.
    return with_thermal_log(StepReport("done", None, last.stderr if last else None, logs=logs), sc)


def _tick(box: SampleOutbox, progress: float, _fraction: float) -> None:
    box.add([], progress)


def _post_round(sc: StepContext, number: int, output: str, t_start: int, t_end: int) -> None:
    """Hand a round's fio output to the api, which stores it and shows it live."""
    try:
        reply = sc.client.post(
            f"/api/worker/runs/{sc.run_id}/steps/{sc.step['id']}/rounds",
            {"round": number, "output": output, "t_start_ms": t_start, "t_end_ms": t_end},
        )
    except ApiError as exc:
        if exc.status == 409:
            sc.on_control({"cancel": True})  # the run ended on the api side
            return
        raise
    sc.on_control(reply)


def steady_state_metrics(values: list[float], report: dict[str, Any]) -> list[dict[str, Any]]:
    """SNIA PTS figures: rounds run, whether and when steady state was reached, and the data
    and slope excursions of the measurement window."""
    out = [
        metric("ss_rounds", len(values), "rounds"),
        metric("ss_steady", 1.0 if report.get("steady") else 0.0, "bool"),
    ]
    if report.get("round"):
        out.append(metric("ss_round", report["round"], "round"))
    for key, unit in (("average", "value"), ("range_pct", "%"), ("slope_excursion_pct", "%")):
        if report.get(key) is not None:
            out.append(metric(f"ss_{key}", report[key], unit))
    window = report.get("window")
    if window:
        out += [
            metric("ss_window_first", window[0], "round"),
            metric("ss_window_last", window[1], "round"),
        ]
    return out


def _round_progress(round_index: int, rounds: int, fraction: float | None) -> float:
    return (round_index + (fraction or 0.0)) / rounds


def run_purge_step(sc: StepContext) -> StepReport:
    with _Outbox(sc):
        try:
            result = purge(sc.info, should_stop=sc.should_stop, discard=sc.target.discard)
        except StepStopped:
            return StepReport("cancelled")
        except StepError as exc:
            return StepReport("failed", error=f"purge: {exc}")
    log.info(
        "run %s: purged %s by %s in %.1f s", sc.run_id, sc.info.path, result.method, result.seconds
    )
    return StepReport(
        "done",
        logs={"purge": result.as_dict()},
        metrics=[metric("purge_seconds", result.seconds, "s")],
    )


def run_trim_step(sc: StepContext) -> StepReport:
    p = sc.step["params"]
    with _Outbox(sc):
        try:
            result = trim(
                sc.info, int(p.get("offset") or 0), p.get("length"), discard=sc.target.discard
            )
        except StepError as exc:
            return StepReport("failed", error=f"TRIM: {exc}")
    return StepReport(
        "done",
        logs={"trim": result.as_dict()},
        metrics=[
            metric("trim_gbps", result.gbps, "GB/s"),
            metric("trim_seconds", result.seconds, "s"),
            metric("trim_bytes", result.length, "B"),
        ],
    )


def run_idle_step(sc: StepContext) -> StepReport:
    seconds = float(sc.step["params"].get("seconds", 0))
    if sc.step["params"].get("sample_temperature"):
        return run_cool_step(sc, seconds)
    with _Outbox(sc) as box:
        slept, stopped = idle(seconds, should_stop=sc.should_stop, on_tick=lambda f: box.add([], f))
    if stopped:
        return StepReport("cancelled", logs={"idle_s": slept})
    return StepReport("done", logs={"idle_s": slept}, metrics=[metric("idle_seconds", slept, "s")])


def run_cool_step(sc: StepContext, seconds: float) -> StepReport:
    """A thermal plan's cool phase: idle (no I/O) for `seconds`, the drive's temperature stored
    once a second as a sample with 0 bytes; with `within_c`, ended once the temperature is
    back within that many °C of where the run's last heat phase began."""
    within = sc.step["params"].get("within_c")
    # This worker ran the heat phase; or, for a run resumed after it, the api says where the
    # heat phase began (backend.runs.worker_service.worker_params).
    if sc.run_id in PHASE_START_C:
        start_c = PHASE_START_C[sc.run_id]
    else:
        start_c = sc.step["params"].get("phase_start_c")
    target = None if within is None or start_c is None else start_c + float(within)
    log_out: dict[str, Any] = {"phase_start_c": start_c, "within_c": within, "target_c": target}
    if within is not None and target is None:
        log_out["note"] = (
            "the temperature the heat phase began at is unknown (no sensor): the phase idled "
            "its whole time"
        )
    with _Outbox(sc) as box:
        began = time.monotonic()
        last_ms = 0
        cooled = False

        def tick(fraction: float) -> None:
            # A sample per reading, at the time it was taken (the sampler reads once a
            # second, in its own thread): the temperature of the sample is that of its end.
            # Without a sensor, a sample per second without a temperature.
            nonlocal last_ms, cooled
            got = sc.sampler.reading() if sc.sampler is not None else None
            at = got[0] if got is not None else time.monotonic()
            now_ms = int((at - began) * 1000)
            temp_dc = None if got is None else math.floor(got[1] * 10 + 0.5)
            if now_ms > last_ms:
                box.add([_idle_sample(now_ms, now_ms - last_ms, temp_dc)], fraction)
                last_ms = now_ms
            if target is not None and temp_dc is not None and temp_dc <= target * 10:
                cooled = True

        # Asked twice a second: every reading of the once-a-second sampler is seen.
        slept, stopped = idle(
            seconds, should_stop=lambda: sc.should_stop() or cooled, on_tick=tick, tick_s=0.5
        )
    log_out["idle_s"] = slept
    if stopped and not cooled:
        return StepReport("cancelled", logs=log_out)
    log_out["stop"] = "temperature" if cooled else "time"
    return with_thermal_log(
        StepReport("done", logs={"cool": log_out}, metrics=[metric("idle_seconds", slept, "s")]),
        sc,
    )


def _idle_sample(t_ms: int, dt_ms: int, temp_dc: int | None) -> dict[str, Any]:
    """A second of a cool phase as a sample: nothing moved, and the drive's temperature."""
    return {
        **Sample(t_ms, dt_ms, 0, 0, 0, 0, None, None, None, None).as_dict(),
        "temp_dc": temp_dc,
    }


WRITE_CACHE_RECORD = "write-cache.json"


def run_write_cache_step(sc: StepContext) -> StepReport:
    """Set the drive's volatile write cache for the PTS profile, or put back what it was
    (`restore`): the first step records the setting it found, with the drive's path and
    serial, in the run's working directory on the bench (worker.steps.write_cache's
    restore_pending), so that a run that fails, is cancelled or is lost with its worker
    still gets the setting back."""
    p = sc.step["params"]
    record = sc.workdir / WRITE_CACHE_RECORD
    with _Outbox(sc):
        try:
            if p.get("restore"):
                put_back = restore_recorded(record, sc.info)
                if put_back is None:
                    return StepReport(
                        "done",
                        logs={"write_cache": {"restored": False, "detail": "nothing was changed"}},
                    )
                return StepReport("done", logs={"write_cache": put_back})
            enabled = bool(p.get("enabled"))
            result = set_write_cache(sc.info, enabled, asked=enabled)
        except StepError as exc:
            return StepReport("failed", error=f"write cache: {exc}")
    if result.supported and result.before is not None and result.before != result.after:
        sc.workdir.mkdir(parents=True, exist_ok=True)
        pending = {**result.as_dict(), "path": sc.info.path, "serial": sc.info.serial,
                   "run_id": sc.run_id, "restored": False}  # fmt: skip
        tmp = record.with_suffix(".tmp")
        tmp.write_text(json.dumps(pending))
        os.replace(tmp, record)
    log.info("run %s: write cache of %s: %s", sc.run_id, sc.info.path, result.detail)
    return StepReport("done", logs={"write_cache": result.as_dict()})


def run_file_copy_step(sc: StepContext) -> StepReport:
    """A file copy through a filesystem (backend.plans.file_copy): mkfs and mount in a
    namespace of their own (worker.steps.file_copy), the source files, copy 1, the deletions,
    copy 2, all on the step's one clock; each phase's place on it in `logs["phases"]`, each
    fio run's final JSON in `logs["outputs"]` (copy 2's is also the step's output)."""
    p = sc.step["params"]
    began = time.monotonic()
    phases: list[dict[str, Any]] = []
    outputs: dict[str, str | None] = {}
    fio_runs = [("sources", p["sources_job_file"]), *p["copy_job_files"].items()]
    failure: StepReport | None = None
    fs_log: dict[str, Any] = {}
    deletion: dict[str, Any] = {}

    def clock_ms() -> int:
        return int((time.monotonic() - began) * 1000)

    try:
        sim_cgroup(sc.info)
    except SimError as exc:
        return StepReport("failed", error=str(exc))
    with _Outbox(sc) as box:
        try:
            sc.target.verify("before mkfs")
            with mounted(
                sc.target, p["fs"], p["mkfs_options"], p["mount_options"], sc.should_stop
            ) as fs:
                fs_log = fs.log
                phases.append({"phase": "mkfs", "t_start_ms": 0, "t_end_ms": clock_ms()})
                for k, (name, job) in enumerate(fio_runs):
                    if name == "copy-2":
                        deletion = _delete(sc, fs, p["deleted_files"], clock_ms, phases)
                        if sc.should_stop():
                            break
                    t_start = clock_ms()
                    outcome = _fio(
                        sc, box, job, f"{sc.step['idx']:02d}-{name}", t_offset_ms=t_start,
                        progress=partial(_round_progress, k, len(fio_runs)), fs=fs,
                    )  # fmt: skip
                    phases.append(
                        {"phase": name, "t_start_ms": t_start,
                         "t_end_ms": t_start + (outcome.samples[-1].t_ms if outcome.samples else 0)}
                    )  # fmt: skip
                    outputs[name] = outcome.final_text
                    if not outcome.ok:
                        failure = _fio_failure(outcome)
                        break
        except StepStopped:
            failure = StepReport("cancelled")
        except StepError as exc:
            failure = StepReport("failed", error=f"file copy: {exc}")
    logs: dict[str, Any] = {
        "filesystem": fs_log, "phases": phases, "deletion": deletion, "outputs": outputs,
    }  # fmt: skip
    if failure is None and sc.should_stop():
        failure = StepReport("cancelled")
    if failure is not None:
        failure.logs = logs
        return failure
    if not fs_log.get("unmounted"):
        return StepReport(
            "failed", logs=logs,
            error=f"file copy: the filesystem was not unmounted cleanly ({fs_log})",
        )  # fmt: skip
    # The copies' throughput and standstills are the api's to find, from the samples it stored
    # (backend.results.file_copy); the deletions are known here only.
    metrics = [
        metric("file_copy_delete_seconds", deletion["seconds"], "s"),
        metric("file_copy_discarded_bytes", deletion["discarded_bytes"], "B"),
    ]
    return with_thermal_log(
        StepReport("done", outputs.get("copy-2"), None, logs=logs, metrics=metrics), sc
    )


def _delete(
    sc: StepContext,
    fs: Filesystem,
    names: list[str],
    clock_ms: Callable[[], int],
    phases: list[dict[str, Any]],
) -> dict[str, Any]:
    """The deletions between the copies: the files unlinked and the filesystem synced, so its
    online discards reach the drive; what the drive was sent is read from its own counters."""
    sc.target.verify("before the deletions")
    before = discarded_bytes(sc.info.name)
    t_start = clock_ms()
    seconds = delete_files(fs, names, sc.workdir)
    # The journal commit sends the discards, and the drive may still be taking them when the
    # sync returns: wait until its counter has stood still for DISCARD_SETTLE_S.
    settled = settle_discards(sc.info.name, sc.should_stop)
    phases.append({"phase": "delete", "t_start_ms": t_start, "t_end_ms": clock_ms()})
    return {
        "files": len(names),
        "seconds": round(seconds, 3),
        "settle_s": round(settled, 3),
        "discarded_bytes": discarded_bytes(sc.info.name) - before,
    }


RUNNERS: dict[str, Callable[[StepContext], StepReport]] = {
    "file-copy": run_file_copy_step,
    "write-cache": run_write_cache_step,
    "fio": run_fio_step,
    "fio-rounds": run_rounds_step,
    "fio-points": run_points_step,
    "purge": run_purge_step,
    "trim": run_trim_step,
    "idle": run_idle_step,
}
