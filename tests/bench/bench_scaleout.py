"""Scale-out by simulation: BENCHES benches, each streaming 10 samples a second (one batch a
second, as a worker's outbox posts them; 10 samples = an HD Tach pass's 100 ms intervals) to
one api on loopback for DURATION seconds. Figures: the api process's CPU (% of one core, from
/proc utime+stime) and the batch latency; a batch the api does not answer within 30 s counts
as 30 s (and is counted).

Each simulated bench is registered through the api with its own token and drive; its run is
claimed and its step started through the worker api, as a real worker does. The senders are
asyncio tasks in this process, started at staggered offsets within the second (workers are not
synchronised), each with its own connection. Every acknowledged sample is checked in the
database afterwards.

Two phases, each in a fresh stack: nobody watching; then every run followed on its SSE stream
by a viewer, the 50 streams opened together (a lab screen reloading its tabs).
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any

import httpx

from tests.bench.common import (
    ONE_STEP,
    BenchStack,
    CpuMeter,
    Figure,
    Report,
    add_bench,
    add_drive,
    batch_body,
    claim_running,
    conditions,
    finish,
    log,
    percentile,
    private_stack,
    python_entry,
    queue_run,
    sample_rows,
)

BENCHES = int(os.environ.get("BENCH_SCALEOUT_BENCHES", "50"))
DURATION_S = int(os.environ.get("BENCH_SCALEOUT_SECONDS", "60"))
# A second phase, in a fresh stack: every run followed by an SSE viewer (0 to skip it).
WATCHED_S = int(os.environ.get("BENCH_SCALEOUT_WATCHED_SECONDS", "30"))
PER_BATCH = 10
TARGET_P95_MS = 1000.0  # a batch must be stored before the worker's next one is due


def _setup(bs: BenchStack) -> list[dict[str, Any]]:
    benches = []
    with bs.client() as admin:
        for i in range(BENCHES):
            name = f"sim-{i:03d}"
            token = add_bench(admin, name)
            drive = add_drive(admin, name, f"SYN-SCALE-{i:03d}", "Synthetic scale-out drive")
            run = queue_run(admin, drive, *ONE_STEP)
            benches.append({"name": name, "token": token, "run_id": run["id"]})
    for b in benches:
        with bs.bench_client(b["token"]) as c:
            b.update(claim_running(c, b["run_id"]))
    return benches


TIMEOUT_S = 30.0


async def _sender(
    api_url: str, bench: dict[str, Any], offset: float, t_end: float, out: dict[str, Any]
) -> None:
    headers = {"Authorization": f"Bearer {bench['token']}", "content-type": "application/json"}
    sent = 0
    async with httpx.AsyncClient(base_url=api_url, headers=headers, timeout=TIMEOUT_S) as c:
        await asyncio.sleep(offset)
        next_at = time.monotonic()
        while time.monotonic() < t_end:
            rows = sample_rows(sent * PER_BATCH, PER_BATCH, dt_ms=100)
            body = batch_body(bench["step_id"], rows)
            t = time.perf_counter()
            try:
                r = await c.post(f"/api/worker/runs/{bench['run_id']}/samples", content=body)
            except httpx.TimeoutException:
                # The api did not answer in time (a worker would resend): counted as a batch
                # that took the whole timeout.
                out["latencies"].append(TIMEOUT_S)
                out["timeouts"] += 1
            else:
                out["latencies"].append(time.perf_counter() - t)
                if r.status_code != 200:
                    raise AssertionError(f"bench {bench['name']}: {r.status_code} {r.text}")
                if r.json()["stored"] != PER_BATCH:
                    raise AssertionError(f"bench {bench['name']}: {r.text}, not {PER_BATCH} stored")
                out["acknowledged"] += PER_BATCH
            out["attempted"] += PER_BATCH
            sent += 1
            # Once a second; after a slow answer at once (a worker's outbox then sends what
            # queued up meanwhile in one batch: here, the next one).
            next_at = max(next_at + 1.0, time.monotonic())
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))


async def _viewer(api_url: str, token: str, run_id: int, t_end: float, out: dict[str, Any]) -> None:
    """A browser watching the run: GET /api/runs/{id}/events until the end."""
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx.AsyncClient(base_url=api_url, headers=headers, timeout=None) as c,
        c.stream("GET", f"/api/runs/{run_id}/events") as resp,
    ):
        async for line in resp.aiter_lines():
            if line.startswith("event: "):
                out["events"] += 1
            if time.monotonic() > t_end:
                return


async def _stream(
    api_url: str, benches: list[dict[str, Any]], viewers: int, admin_token: str, seconds: int
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "latencies": [],
        "timeouts": 0,
        "acknowledged": 0,
        "attempted": 0,
        "events": 0,
    }
    t_end = time.monotonic() + seconds
    watching = [
        asyncio.create_task(_viewer(api_url, admin_token, b["run_id"], t_end, out))
        for b in benches[:viewers]
    ]
    await asyncio.sleep(0.5 if viewers else 0)
    await asyncio.gather(
        *(_sender(api_url, b, i / len(benches), t_end, out) for i, b in enumerate(benches))
    )
    for w in watching:
        w.cancel()
    await asyncio.gather(*watching, return_exceptions=True)
    return out


def phase(viewers: int, seconds: int) -> dict[str, Any]:
    """One private stack: BENCHES benches streaming for `seconds`, `viewers` of their runs
    followed on their SSE streams (opened together, as after a page reload of a lab screen)."""
    with private_stack("scaleout") as bs:
        benches = _setup(bs)
        log(
            f"{len(benches)} benches registered, each with a running run; streaming {seconds} s"
            f"{f', {viewers} runs watched' if viewers else ''}"
        )
        meter = CpuMeter(bs.pids, f"scaleout-{viewers}v").start()
        streamed = asyncio.run(_stream(bs.api_url, benches, viewers, bs.stack.token, seconds))
        cpu = meter.stop()
        time.sleep(2)  # batches the client gave up on may still be stored
        with bs.db() as conn:
            stored = conn.execute("SELECT count(*) FROM sample_rows").fetchone()[0]  # type: ignore[index]
        if not streamed["acknowledged"] <= stored <= streamed["attempted"]:
            counts = {k: v for k, v in streamed.items() if k != "latencies"}
            raise AssertionError(f"{counts}, but {stored} samples stored")
        log(
            f"{len(streamed['latencies'])} batches, {streamed['timeouts']} unanswered within "
            f"{TIMEOUT_S:.0f} s; {stored} samples stored, every acknowledged one"
        )
        return {
            **streamed,
            "cpu_s": cpu,
            "wall_s": meter.wall,
            "stored": stored,
            "conditions": conditions(bs),
        }


def figures(report: Report, r: dict[str, Any], label: str, note: str) -> None:
    lat = r["latencies"]
    report.add(
        Figure(
            f"{label}: api CPU",
            r["cpu_s"]["api"] / r["wall_s"] * 100,
            "% of a core",
            headline=True,
            note=f"{len(lat)} batches over {r['wall_s']:.0f} s ({len(lat) / r['wall_s']:.0f} "
            f"batches/s), {r['cpu_s']['api'] / max(1, len(lat)) * 1000:.1f} ms of CPU each; "
            + note,
        ),
        Figure(f"{label}: batch latency p50", (percentile(lat, 50) or 0) * 1000, "ms"),
        Figure(
            f"{label}: batch latency p95",
            (percentile(lat, 95) or 0) * 1000,
            "ms",
            TARGET_P95_MS,
            "<=",
        ),
        Figure(
            f"{label}: batches unanswered within {TIMEOUT_S:.0f} s",
            r["timeouts"],
            "batches",
            0,
            "<=",
        ),
    )


def main() -> Report:
    t0 = time.monotonic()
    report = Report("scaleout", f"{BENCHES} benches x {PER_BATCH} samples/s to one api")
    quiet = phase(0, DURATION_S)
    figures(report, quiet, "no viewer", "no viewer connected")
    watched = phase(BENCHES, WATCHED_S) if WATCHED_S > 0 else None
    if watched is not None:
        figures(
            report,
            watched,
            "every run watched",
            f"{BENCHES} SSE viewers opened together; a batch the api did not answer counts "
            f"as {TIMEOUT_S:.0f} s",
        )
    report.conditions = {
        **quiet["conditions"],
        "benches": BENCHES,
        "seconds": DURATION_S,
        "watched_seconds": WATCHED_S,
        "samples_per_batch": PER_BATCH,
        "p95_target": "none in DESIGN.md: a batch answered before the worker's next one (1 s)",
    }
    report.details = {
        name: {k: v for k, v in r.items() if k not in ("latencies", "conditions")}
        for name, r in (("no_viewer", quiet), ("watched", watched))
        if r is not None
    }
    return finish(report, t0)


if __name__ == "__main__":
    python_entry(main)
