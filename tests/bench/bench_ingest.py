"""Ingest: samples per second that the api writes into PostgreSQL (binary COPY) from
concurrent workers' batches, and the latency of a worker's 1-second batch. Batches are sent as
workers send them: one array per field (`columns`).

A private stack; a bench `ingest` registered through the api with drives of its own; runs
queued on them and claimed with the bench's token through the worker api (running, with a
running step), exactly as a worker does. Then:
1. idle: 1-sample batches, one at a time (a real worker posts one batch a second per step);
2. load: LOADERS threads each post BATCH-sample batches of their own run as fast as the api
   answers, while a probe keeps posting 1-sample batches of another run (latency under load);
3. the rows in the database are counted per run (nothing lost, nothing doubled) and a batch
   is sent again (it must store nothing).
Request bodies are encoded before the clock starts, so the figure is the api's, not the
loader's JSON encoder's.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import httpx

from tests.bench.common import (
    ONE_STEP,
    BenchStack,
    CpuMeter,
    Figure,
    PostgresMeter,
    Report,
    add_bench,
    add_drive,
    batch_body,
    check,
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

LOADERS = int(os.environ.get("BENCH_INGEST_LOADERS", "4"))
BATCH = int(os.environ.get("BENCH_INGEST_BATCH", "5000"))
BATCHES = int(os.environ.get("BENCH_INGEST_BATCHES", "100"))  # per loader
IDLE_PROBES = 60
TARGET_RATE = 200_000
HEADERS = {"content-type": "application/json"}


def _runs(bs: BenchStack, n: int) -> tuple[str, list[dict[str, Any]]]:
    with bs.client() as admin:
        token = add_bench(admin, "ingest")
        runs = []
        for i in range(n):
            drive = add_drive(admin, "ingest", f"SYN-INGEST-{i:03d}", "Synthetic ingest drive")
            runs.append(queue_run(admin, drive, *ONE_STEP)["id"])
    with bs.bench_client(token) as bench:
        return token, [claim_running(bench, run_id) for run_id in runs]


class Probe:
    """Posts 1-sample batches of one run, one at a time, and records each latency."""

    def __init__(self, client: httpx.Client, run: dict[str, Any]) -> None:
        self.client = client
        self.run = run
        self.next_s = 0
        self.latencies: list[float] = []
        self.sent = 0

    def post_one(self) -> None:
        body = batch_body(self.run["step_id"], sample_rows(self.next_s, 1, seed=1))
        t = time.perf_counter()
        r = self.client.post(
            f"/api/worker/runs/{self.run['run_id']}/samples", content=body, headers=HEADERS
        )
        self.latencies.append(time.perf_counter() - t)
        check(r)
        self.next_s += 1
        self.sent += 1


def main() -> Report:
    t0 = time.monotonic()
    report = Report("ingest", "samples/s into PostgreSQL with binary COPY")
    with private_stack("ingest") as bs:
        token, runs = _runs(bs, LOADERS + 1)
        probe_run, load_runs = runs[0], runs[1:]
        log(f"{len(load_runs)} running runs claimed with bench ingest's token; encoding bodies")
        bodies = [
            [
                batch_body(r["step_id"], sample_rows(b * BATCH, BATCH, seed=b))
                for b in range(BATCHES)
            ]
            for r in load_runs
        ]
        client = bs.bench_client(token)
        probe = Probe(client, probe_run)
        for _ in range(5):
            probe.post_one()  # warm the connection and the api's paths
        probe.latencies.clear()
        for _ in range(IDLE_PROBES):
            probe.post_one()
            time.sleep(0.02)
        idle_latencies = list(probe.latencies)
        probe.latencies.clear()

        stored = [0] * len(load_runs)
        errors: list[str] = []
        batch_latencies: list[float] = []
        lock = threading.Lock()
        stop_probe = threading.Event()

        def load(i: int) -> None:
            run = load_runs[i]
            with bs.bench_client(token) as c:
                for body in bodies[i]:
                    t = time.perf_counter()
                    r = c.post(
                        f"/api/worker/runs/{run['run_id']}/samples", content=body, headers=HEADERS
                    )
                    elapsed = time.perf_counter() - t
                    if r.status_code != 200:
                        errors.append(f"{r.status_code} {r.text[:200]}")
                        return
                    with lock:
                        batch_latencies.append(elapsed)
                    stored[i] += r.json()["stored"]

        def probing() -> None:
            while not stop_probe.wait(0.2):
                probe.post_one()

        log(f"load: {len(load_runs)} loaders x {BATCHES} batches x {BATCH} samples")
        meter = CpuMeter(bs.pids, "ingest").start()
        pg_meter = PostgresMeter(bs.database_url).start()
        threads = [threading.Thread(target=load, args=(i,)) for i in range(len(load_runs))]
        prober = threading.Thread(target=probing)
        start = time.perf_counter()
        prober.start()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - start
        cpu = meter.stop()
        pg_cpu = pg_meter.stop()
        stop_probe.set()
        prober.join()
        if errors:
            raise AssertionError(f"the api refused batches: {errors[:3]}")
        loaded_latencies = list(probe.latencies)

        sent = len(load_runs) * BATCHES * BATCH
        rate = sent / wall
        with bs.db() as conn:
            counts = {
                run_id: n
                for run_id, n in conn.execute(
                    "SELECT run_id, count(*) FROM sample_rows GROUP BY run_id"
                ).fetchall()
            }
        expected = {r["run_id"]: BATCHES * BATCH for r in load_runs}
        expected[probe_run["run_id"]] = probe.sent
        # A batch sent again is stored once: the api answers stored=0 and adds no row.
        again = check(
            client.post(
                f"/api/worker/runs/{load_runs[0]['run_id']}/samples",
                content=bodies[0][0],
                headers=HEADERS,
            )
        )
        with bs.db() as conn:
            after = conn.execute(
                "SELECT count(*) FROM sample_rows WHERE run_id = %s", (load_runs[0]["run_id"],)
            ).fetchone()[0]  # type: ignore[index]
        client.close()
        exact = counts == expected and sum(stored) == sent
        idempotent = again["stored"] == 0 and after == expected[load_runs[0]["run_id"]]
        if not exact or not idempotent:
            raise AssertionError(
                f"rows lost or doubled: counted {counts}, expected {expected}, "
                f"stored replies {sum(stored)} of {sent}; resend stored {again['stored']}"
            )
        log(f"{sent:,} samples in {wall:.1f} s; every row counted once; a resent batch adds none")
        report.add(
            Figure(
                "ingest rate (load)",
                rate,
                "samples/s",
                TARGET_RATE,
                ">=",
                note=f"{len(load_runs)} concurrent loaders, {BATCH}-sample batches, "
                f"{sent:,} samples; rows counted in PostgreSQL afterwards: exact",
            ),
            Figure(
                f"{BATCH}-sample batch latency p95 (load)",
                (percentile(batch_latencies, 95) or 0) * 1000,
                "ms",
            ),
            Figure(
                "1-sample batch latency p50 (idle)",
                (percentile(idle_latencies, 50) or 0) * 1000,
                "ms",
            ),
            Figure(
                "1-sample batch latency p95 (idle)",
                (percentile(idle_latencies, 95) or 0) * 1000,
                "ms",
                headline=True,
            ),
            Figure(
                "1-sample batch latency p95 (under load)",
                (percentile(loaded_latencies, 95) or 0) * 1000,
                "ms",
                note=f"{len(loaded_latencies)} probes, one every 0.2 s during the load",
                headline=True,
            ),
            Figure("api CPU during the load", cpu["api"] / wall * 100, "% of a core"),
            Figure(
                "api CPU per sample",
                cpu["api"] / sent * 1e6,
                "µs",
                note="request parsing and validation, COPY encoding: the api process",
                headline=True,
            ),
            Figure(
                "PostgreSQL CPU per sample",
                pg_cpu / sent * 1e6,
                "µs",
                note="the backends serving the api's connections (COPY, indexes, "
                "foreign-key checks)"
                + (
                    f"; {pg_meter.gone} backends exited and are not counted"
                    if pg_meter.gone
                    else ""
                ),
                headline=True,
            ),
            Figure(
                "rate the CPU allows on this machine's cores",
                (os.cpu_count() or 1) * 1e6 / ((cpu["api"] + pg_cpu) / sent * 1e6),
                "samples/s",
                note="cores / (api + PostgreSQL CPU per sample): what the load would reach if "
                "nothing else ran, the loaders included; a bound, not a measurement",
            ),
        )
        report.conditions = conditions(
            bs,
            loaders=len(load_runs),
            batch_samples=BATCH,
            batches_per_loader=BATCHES,
            samples_sent=sent,
            idle_probes=len(idle_latencies),
        )
        report.details = {
            "wall_s": wall,
            "rows_per_run": counts,
            "resend_stored": again["stored"],
            "cpu_s": cpu,
            "postgres_cpu_s": pg_cpu,
        }
    return finish(report, t0)


if __name__ == "__main__":
    python_entry(main)
