"""Reads at scale: comparison and chart-series requests with 1M+ samples and 200+ runs stored.

Loading (not measured):
1. Real runs, shortened, through the whole stack on its simulated drive, one of each plan of
   the review suite that finishes in seconds: four-corners, transfer-size, consistency,
   torture, hdtach, write-hitching, trace-replay (heavy profile) and trim-performance.
2. Ten drives registered through the api on a bench `synthetic`, named "Synthetic drive N",
   simulated=true. Each gets ROUNDS copies of every real run, written straight into the stack's
   database (COPY for the samples): same plan, parameters, environment, job files, fio outputs
   and analysis; results scaled by a per-drive factor with a little noise; each step's samples
   repeated (scaled, with noise) to the length the step has with the plan's default parameters
   on a 1 TB drive (at most 2000 s; 1000 s for the 100 ms HD Tach passes), so a consistency step
   holds 2000 one-second samples, as in a review. The data is synthetic and labelled so.
Measured (sequential requests from one client, after a warm-up):
- GET /api/compare for the 10 drives and every metric (no `metrics=`), REQUESTS times each:
  - repeated: the api answers the same comparison from its cache of whole answers;
  - another drive under review: each request names another (absent) drive under review, so
    the whole answer is not cached, but no drive's data changed (each drive's part of the
    answer is: what is left is assembling it);
  - after one drive changed: before each request a run finishes for one of the drives (the
    next one each time): a copy of one of its runs, with its steps and results and without
    samples, inserted and committed as the loader does, finished now;
  - nothing cached: before each request a result of every drive's latest run is corrected
    (one UPDATE, committed), so every drive's part is computed again from its results, as
    for the first comparison after the api starts;
- a 5-drive consistency chart: GET /api/compare/series?plan=consistency&metric=write_iops
  for 5 drives (each drive's latest 2000 s consistency run in one call), downsampled to
  points=650, CHARTS times; and as the compare page asks it (points=2000, op_percent=0).
  The charts are measured before the last two comparisons, which add runs and change results.
The browser benchmark loads its drives with the same loader (`load`).
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from typing import Any

import psycopg

from backend.plans.base import DriveContext
from backend.plans.catalog import compile_plan
from backend.results.compare import lower_is_better
from backend.runs.models import SAMPLE_COLUMNS
from tests.bench.common import (
    BenchStack,
    CpuMeter,
    Figure,
    Report,
    add_bench,
    add_drive,
    check,
    conditions,
    finish,
    log,
    percentile,
    private_stack,
    python_entry,
    queue_run,
)

DRIVES = 10
MIN_SAMPLES = int(os.environ.get("BENCH_READS_MIN_SAMPLES", "1000000"))
MIN_RUNS = 200
REQUESTS = int(os.environ.get("BENCH_READS_REQUESTS", "40"))
CHARTS = int(os.environ.get("BENCH_READS_CHARTS", "20"))
POINTS = 650
TARGET_P95_MS = 50.0
CAPACITY = 1_000_204_886_016
MAX_STEP_S = 2000
MAX_FINE_STEP_S = 1000  # steps sampled every 100 ms

REAL_RUNS: list[tuple[str, dict[str, Any]]] = [
    ("four-corners", {"span": "64m", "runtime_s": 2, "seq_runtime_s": 2}),
    ("transfer-size", {"span": "32m", "sizes": ["4k", "64k", "1m"]}),
    ("consistency", {"runtime_s": 5, "span": "64m"}),
    ("consistency", {"runtime_s": 5, "span": "64m", "op_percent": 25}),
    ("torture", {"runtime_s": 4, "span": "64m"}),
    ("hdtach", {"span": "64m"}),
    ("write-hitching", {"runtime_s": 3, "span": "64m"}),
    ("trace-replay", {"profile": "heavy", "runtime_s": 3, "span": "64m"}),
    ("trim-performance", {"span": "64m", "followup_s": 3}),
]


def run_real(bs: BenchStack, runs: list[tuple[str, dict[str, Any]]] = REAL_RUNS) -> list[int]:
    """Run the plans through the whole stack on its simulated drive; their ids."""
    drive = bs.sim_drive()
    with bs.client() as admin:
        ids = [queue_run(admin, drive, plan, params)["id"] for plan, params in runs]
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            runs = [check(admin.get(f"/api/runs/{i}")) for i in ids]
            if all(r["status"] not in ("queued", "running") for r in runs):
                break
            time.sleep(1)
        bad = [(r["plan"], r["status"], r["error"]) for r in runs if r["status"] != "done"]
        if bad:
            raise AssertionError(f"real runs did not finish: {bad}")
    return ids


def default_lengths() -> dict[tuple[str, str], int]:
    """Samples of each step with the plan's default parameters on a 1 TB drive."""
    ctx = DriveContext(
        target_path="/srv/synthetic", capacity_bytes=CAPACITY, serial="SYN", logical_sector=512
    )
    out: dict[tuple[str, str], int] = {}
    for plan, _short in REAL_RUNS:
        defaults = {"profile": "heavy"} if plan == "trace-replay" else {}
        _p, _params, steps = compile_plan(plan, defaults, ctx)
        for s in steps:
            interval_ms = int(s.params.get("status_interval_ms") or 1000)
            cap = MAX_FINE_STEP_S if interval_ms < 1000 else MAX_STEP_S
            out[(plan, s.name)] = int(min(s.estimate_s, cap) * 1000 / interval_ms)
    return out


def _columns(conn: psycopg.Connection, table: str) -> list[str]:
    rows = conn.execute(
        "SELECT column_name FROM information_schema.columns "
        "WHERE table_schema = 'public' AND table_name = %s ORDER BY ordinal_position",
        (table,),
    ).fetchall()
    return [r[0] for r in rows]


class Loader:
    def __init__(self, conn: psycopg.Connection, real_ids: list[int]) -> None:
        self.conn = conn
        self.real = real_ids
        self.lengths = default_lengths()
        self.run_cols = [c for c in _columns(conn, "runs") if c != "id"]
        self.step_cols = [c for c in _columns(conn, "steps") if c != "id"]
        self.plans = dict(conn.execute("SELECT id, plan FROM runs WHERE id = ANY(%s)", (real_ids,)))
        self.steps: dict[int, list[tuple[int, str, str]]] = {}
        self.intervals: dict[int, int] = {}
        for run_id in real_ids:
            rows = conn.execute(
                "SELECT id, name, params->>'role', "
                "coalesce((params->>'status_interval_ms')::int, 1000) "
                "FROM steps WHERE run_id = %s ORDER BY idx",
                (run_id,),
            ).fetchall()
            self.steps[run_id] = [(i, name, role) for i, name, role, _ms in rows]
            self.intervals.update({i: ms for i, _n, _r, ms in rows})
        cols = ", ".join(SAMPLE_COLUMNS[2:])
        self.samples: dict[int, list[tuple[Any, ...]]] = {}
        self.results: dict[int, list[tuple[str, float, str]]] = {}
        for run_id in real_ids:
            for step_id, _name, _role in self.steps[run_id]:
                self.samples[step_id] = conn.execute(
                    f"SELECT {cols} FROM sample_rows WHERE step_id = %s ORDER BY t_ms", (step_id,)
                ).fetchall()
                self.results[step_id] = conn.execute(
                    "SELECT metric, value, unit FROM results WHERE step_id = %s", (step_id,)
                ).fetchall()
        self.n_samples = 0
        self.n_runs = 0

    def samples_per_round(self) -> int:
        total = 0
        for run_id in self.real:
            for step_id, name, _role in self.steps[run_id]:
                if self.samples[step_id]:
                    total += max(
                        len(self.samples[step_id]), self.lengths[(self.plans[run_id], name)]
                    )
        return total

    def clone_run(
        self,
        src: int,
        drive_id: int,
        finished: float,
        factor: float,
        rng: random.Random,
        *,
        samples: bool = True,
    ) -> tuple[int, dict[str, int]]:
        overrides = {
            "drive_id": "%(drive_id)s",
            "status": "'done'",
            "progress": "1.0",
            "created_at": "to_timestamp(%(created)s)",
            "started_at": "to_timestamp(%(started)s)",
            "finished_at": "to_timestamp(%(finished)s)",
            "heartbeat_at": "to_timestamp(%(finished)s)",
            "dispatched_at": "to_timestamp(%(created)s)",
            "created_by": "NULL",
        }
        exprs = ", ".join(overrides.get(c, c) for c in self.run_cols)
        args = {
            "drive_id": drive_id,
            "created": finished - 7200,
            "started": finished - 7000,
            "finished": finished,
            "src": src,
        }
        run_id = self.conn.execute(
            f"INSERT INTO runs ({', '.join(self.run_cols)}) SELECT {exprs} FROM runs "
            "WHERE id = %(src)s RETURNING id",
            args,
        ).fetchone()[0]  # type: ignore[index]
        step_exprs = ", ".join("%(run_id)s" if c == "run_id" else c for c in self.step_cols)
        step_ids = {}
        for step_id, name, _role in self.steps[src]:
            step_ids[name] = self.conn.execute(
                f"INSERT INTO steps ({', '.join(self.step_cols)}) SELECT {step_exprs} FROM steps "
                "WHERE id = %(src)s RETURNING id",
                {"run_id": run_id, "src": step_id},
            ).fetchone()[0]  # type: ignore[index]
        with self.conn.cursor().copy(
            "COPY results (run_id, step_id, metric, value, unit) FROM STDIN"
        ) as copy:
            for step_id, name, _role in self.steps[src]:
                for metric, value, unit in self.results[step_id]:
                    f = factor * rng.uniform(0.98, 1.02)
                    scaled = value / f if lower_is_better(metric, unit) else value * f
                    copy.write_row((run_id, step_ids[name], metric, scaled, unit))
        # The latency histograms a finished fio step keeps (results.qos.store_latency), as
        # the finish stores them: without them every latency chart reads the fio outputs.
        for step_id, name, _role in self.steps[src]:
            self.conn.execute(
                "INSERT INTO step_latency (step_id, direction, run_id, ios, mean_us, min_us, "
                "max_us, bins) SELECT %(step)s, direction, %(run)s, ios, mean_us, min_us, "
                "max_us, bins FROM step_latency WHERE step_id = %(src)s",
                {"step": step_ids[name], "run": run_id, "src": step_id},
            )
        self.n_runs += 1
        if not samples:
            return run_id, step_ids
        # The steps are finished: their samples are one packed row each, as the api's trigger
        # packs a step's when it ends (migration 0013), in t_ms order.
        fields = SAMPLE_COLUMNS[2:]
        with self.conn.cursor().copy(
            f"COPY packed_samples (step_id, run_id, n, {', '.join(fields)}) "
            "FROM STDIN (FORMAT BINARY)"
        ) as copy:
            # The drive's temperature is a smallint array, NULL for a step without a sensor
            # (migration 0020).
            kinds = {"t_ms": "int4[]", "dt_ms": "int4[]", "temp_dc": "int2[]"}
            copy.set_types(
                ["int4"] * 3
                + [kinds.get(f, "int8[]" if f.endswith(("_bytes", "_ios")) else "float8[]")
                   for f in fields]
            )  # fmt: skip
            for step_id, name, role in self.steps[src]:
                rows = self._step_rows(step_id, name, role, src, factor, rng)
                if rows:
                    columns: list[Any] = [list(c) for c in zip(*rows, strict=True)]
                    columns = [
                        None if f == "temp_dc" and all(v is None for v in c) else c
                        for f, c in zip(fields, columns, strict=True)
                    ]
                    copy.write_row((step_ids[name], run_id, len(rows), *columns))
                    self.n_samples += len(rows)
        return run_id, step_ids

    def _step_rows(
        self,
        src_step: int,
        name: str,
        role: str | None,
        src_run: int,
        factor: float,
        rng: random.Random,
    ) -> list[tuple[Any, ...]]:
        """A copy of a real step's samples (its fields after run_id and step_id), lengthened
        to the step's default length and scaled by `factor`."""
        real = self.samples[src_step]
        if not real:
            return []
        n = max(len(real), self.lengths[(self.plans[src_run], name)])
        dt_ms = self.intervals[src_step]
        drop_at = n * rng.uniform(0.1, 0.3)  # fresh-out-of-box level, then steady state
        rows: list[tuple[Any, ...]] = []
        for i in range(n):
            _t, real_dt, rb, wb, rio, wio, *lat = real[i % len(real)]
            # The same rate over the nominal interval (a step's last interval is shorter).
            f = factor * rng.uniform(0.75, 1.25) * dt_ms / max(1, real_dt)
            if role in ("consistency", "torture") and i > drop_at:
                f *= 0.35 * (0.15 if rng.random() < 0.02 else 1.0)
            rows.append(
                (
                    (i + 1) * dt_ms,
                    dt_ms,
                    int(rb * f),
                    int(wb * f),
                    int(rio * f),
                    int(wio * f),
                    # latencies: mean, p99 and max per direction, as many as samples have
                    *(None if v is None else v / factor for v in lat[:6]),
                    *lat[6:],  # the drive's temperature (deci-degrees), as it was
                )
            )
        return rows


def load(
    bs: BenchStack,
    real_ids: list[int],
    *,
    drives: int = DRIVES,
    min_samples: int = MIN_SAMPLES,
    min_runs: int = MIN_RUNS,
) -> dict[str, Any]:
    """`drives` synthetic drives on a bench `synthetic`, each with copies of every real run
    (the latest copy last), enough rounds for min_samples samples and min_runs runs."""
    with bs.client() as admin:
        add_bench(admin, "synthetic")
        made = [
            add_drive(admin, "synthetic", f"SYN-{i:04d}", f"Synthetic drive {i}")
            for i in range(1, drives + 1)
        ]
    rng = random.Random(20261121)
    with psycopg.connect(bs.database_url) as conn:
        loader = Loader(conn, real_ids)
        per_round = loader.samples_per_round()
        rounds = 1
        while (
            drives * rounds * per_round < min_samples or drives * rounds * len(real_ids) < min_runs
        ):
            rounds += 1
        log(
            f"loading {drives} drives x {rounds} rounds x {len(real_ids)} runs "
            f"(~{drives * rounds * per_round:,} samples) with COPY"
        )
        finished = time.time() - 86400 * 30
        for _round in range(rounds):
            for k, d in enumerate(made):
                factor = 0.55 + 0.1 * k
                for src in real_ids:
                    finished += 600
                    loader.clone_run(src, d["id"], finished, factor, rng)
            conn.commit()
        conn.execute("ANALYZE")
        conn.commit()
        totals = {
            "samples": conn.execute("SELECT count(*) FROM sample_rows").fetchone()[0],  # type: ignore[index]
            "runs": conn.execute("SELECT count(*) FROM runs").fetchone()[0],  # type: ignore[index]
            "results": conn.execute("SELECT count(*) FROM results").fetchone()[0],  # type: ignore[index]
            "synthetic_runs": loader.n_runs,
            "synthetic_samples": loader.n_samples,
            "rounds": rounds,
        }
    return {"drives": made, "totals": totals}


def timed_get(client: Any, url: str, params: dict[str, Any]) -> tuple[float, Any]:
    t = time.perf_counter()
    r = client.get(url, params=params)
    elapsed = time.perf_counter() - t
    return elapsed, check(r)


def measure(bs: BenchStack, data: dict[str, Any], real_ids: list[int]) -> dict[str, Any]:
    ids = ",".join(str(d["id"]) for d in data["drives"])
    drive_ids = [d["id"] for d in data["drives"]]
    five = ",".join(str(d["id"]) for d in data["drives"][:5])
    chart = {"drives": five, "plan": "consistency", "metric": "write_iops", "points": POINTS}
    page = {"drives": five, "plan": "consistency", "op_percent": 0, "points": 2000}
    out: dict[str, Any] = {}

    def compare_requests(name: str, before: Callable[[int], object] | None = None) -> None:
        """REQUESTS timed comparisons of the 10 drives, `before(i)` run (untimed) before
        request i; their latencies and the api's CPU per request."""
        seconds = []
        meter = CpuMeter(bs.pids, "reads-" + name.replace("_", "-")).start()
        for i in range(REQUESTS):
            params: dict[str, Any] = {"drives": ids}
            if before is not None:
                extra = before(i)
                if isinstance(extra, dict):
                    params.update(extra)
            seconds.append(timed_get(c, "/api/compare", params)[0])
        out[f"{name}_s"] = seconds
        out[f"{name}_api_cpu_ms"] = meter.stop()["api"] / REQUESTS * 1000

    with bs.client() as c, psycopg.connect(bs.database_url, autocommit=True) as conn:
        for _ in range(3):  # warm-up: connections, caches, the api's code paths
            _t, body = timed_get(c, "/api/compare", {"drives": ids})
            _t, series = timed_get(c, "/api/compare/series", chart)
            timed_get(c, "/api/compare/series", page)
        out["metrics"] = len(body["metrics"])
        out["rows"] = sum(len(m["rows"]) for m in body["metrics"])
        compare_requests("compare")
        compare_requests("compare_review", lambda i: {"under_review": 10**9 + i})
        meter = CpuMeter(bs.pids, "reads-series").start()
        series_s = [timed_get(c, "/api/compare/series", chart)[0] for _ in range(CHARTS)]
        series_cpu = meter.stop()["api"] / CHARTS
        page_s = [timed_get(c, "/api/compare/series", page)[0] for _ in range(CHARTS)]

        # From here on runs are added and results changed: the series were measured before.
        loader = Loader(conn, real_ids)
        rng = random.Random(20261122)

        def run_finishes(i: int) -> None:
            k = i % len(drive_ids)
            src = real_ids[i % len(real_ids)]
            with conn.transaction():  # the run, its steps and results committed together
                loader.clone_run(src, drive_ids[k], time.time(), 0.55 + 0.1 * k, rng, samples=False)

        compare_requests("compare_one_changed", run_finishes)
        # A result of each drive's latest run (fixed from here on), corrected before each
        # request: every drive's data changes.
        latest = [
            row[0]
            for row in conn.execute(
                "SELECT DISTINCT ON (runs.drive_id) results.id FROM results "
                "JOIN runs ON runs.id = results.run_id "
                "WHERE runs.drive_id = ANY(%s) AND runs.status = 'done' "
                "ORDER BY runs.drive_id, runs.finished_at DESC, runs.id DESC, results.id",
                (drive_ids,),
            )
        ]
        assert len(latest) == len(drive_ids), latest

        def every_drive_changes(i: int) -> None:
            conn.execute(
                "UPDATE results SET value = value * 1.000001 WHERE id = ANY(%s)", (latest,)
            )

        compare_requests("compare_cold", every_drive_changes)
    drawn = [d for d in series["drives"] if d.get("series")]
    if len(drawn) < 5:
        raise AssertionError(f"compare/series drew {len(drawn)} of 5 drives: {series['missing']}")
    return {
        **out,
        "series_s": series_s,
        "page_series_s": page_s,
        "series_api_cpu_ms": series_cpu * 1000,
        "series_points": [sum(len(s["points"]) for s in d["series"]) for d in drawn],
    }


def latency(name: str, seconds: list[float], note: str) -> tuple[Figure, Figure]:
    """p50 (a headline) and p95 (against the target) of a request's latency."""
    return (
        Figure(f"{name}: p50", (percentile(seconds, 50) or 0) * 1000, "ms", headline=True),
        Figure(
            f"{name}: p95",
            (percentile(seconds, 95) or 0) * 1000,
            "ms",
            TARGET_P95_MS,
            "<=",
            note=note,
        ),
    )


def main() -> Report:
    t0 = time.monotonic()
    report = Report("reads", "compare and chart series with 1M+ samples stored")
    with private_stack("reads") as bs:
        log(f"running {len(REAL_RUNS)} short plans through the stack")
        real_ids = run_real(bs)
        data = load(bs, real_ids)
        log(f"stored: {data['totals']}")
        m = measure(bs, data, real_ids)
        stored = (
            f"{m['metrics']} metrics, {m['rows']} rows in the answer; "
            f"{data['totals']['samples']:,} samples, {data['totals']['runs']} runs, "
            f"{data['totals']['results']:,} results stored"
        )
        report.add(
            *latency(
                "compare, 10 drives x all metrics",
                m["compare_s"],
                f"{REQUESTS} requests (the same comparison, answered from the api's cache of "
                f"whole answers), {m['compare_api_cpu_ms']:.0f} ms of api CPU each; {stored}",
            ),
            *latency(
                "compare, 10 drives x all metrics, another drive under review",
                m["compare_review_s"],
                f"{REQUESTS} requests, each naming another drive under review: the whole "
                "answer is not cached, no drive's data changed; "
                f"{m['compare_review_api_cpu_ms']:.0f} ms of api CPU each",
            ),
            *latency(
                "compare, 10 drives x all metrics, after one drive changed",
                m["compare_one_changed_s"],
                f"{REQUESTS} requests, each after a run finished for one of the drives (the "
                "next one each time: a copy of one of its runs with its results, committed "
                f"before the request); {m['compare_one_changed_api_cpu_ms']:.0f} ms of api "
                "CPU each",
            ),
            *latency(
                "compare, 10 drives x all metrics, nothing cached",
                m["compare_cold_s"],
                f"{REQUESTS} requests, each after a result of every drive's latest run was "
                "corrected (committed before the request): every drive's part of the answer "
                f"is computed from its results; {m['compare_cold_api_cpu_ms']:.0f} ms of api "
                "CPU each",
            ),
            *latency(
                "5-drive consistency series (2000 s -> 650 points)",
                m["series_s"],
                f"GET /api/compare/series, {CHARTS} calls, {m['series_api_cpu_ms']:.0f} ms of "
                "api CPU each; points per drive: " + ", ".join(str(n) for n in m["series_points"]),
            ),
            Figure(
                "5-drive consistency series as the compare page asks (2000 points): p95",
                (percentile(m["page_series_s"], 95) or 0) * 1000,
                "ms",
                note="op_percent=0&points=2000: every second of the run",
            ),
        )
        report.conditions = conditions(bs, drives=DRIVES, **data["totals"], points=POINTS)
        report.details = {k: v for k, v in m.items()}
    return finish(report, t0)


if __name__ == "__main__":
    python_entry(main)
