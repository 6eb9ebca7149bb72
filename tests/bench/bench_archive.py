"""Archive: how drivelab's storage and reads grow with years of runs kept.

A lab keeps every run: five years of a busy lab is ~20,000 runs on 500 drives, 100-200 million
per-second samples and their 100 ms window logs. This benchmark grows one archive through
SIZES samples (1M and 10M by default; BENCH_ARCHIVE_SIZES=1000000,10000000,100000000 or
BENCH_ARCHIVE_100M=1 adds 100M) and measures at each size:
- PostgreSQL bytes per stored sample (pg_total_relation_size of `samples`: table, TOAST and
  indexes, over its rows) and per window-log row (the stored size of the steps' `logs` JSONB,
  pg_column_size, over the rows of their bw and iops logs);
- GET /api/compare for 10 drives and every metric with nothing cached (a result of every
  drive's latest run corrected before each request, as reads' "nothing cached");
- GET /api/compare/series for 5 drives: a consistency series (2000 s -> 650 points) and an
  HD Tach series;
- the Lab page's and the Compare page's api calls on first open: the real pages in headless
  Chromium, a fresh browser context each time, every /api/ request's time from the browser's
  resource timing (SSE streams left out), after every compared drive's data changed; how
  many calls each open sends and the bytes of their answers (the api does not compress);
- the bytes of GET /api/compare's answer for the 10 drives, every metric;
- ingest while the archive is that large: LOADERS concurrent workers' batches (columns) of
  running runs through the worker api, as the ingest benchmark posts them;
- pg_dump (custom format) of the database, and pg_restore of it into a new database (-j 2).

Loading (not measured): the reads benchmark's real runs through the whole stack, copied by its
loader to drives "Synthetic drive N" (simulated, labelled synthetic) on a bench `synthetic`,
each step's samples lengthened to its default length on a 1 TB drive, and each window log
(write-hitching, TRIM follow-up) lengthened the same way from its real rows (values varied by
+-10%). The archive gains drives as it grows (about one per 200k samples, at least 10, at most
500): 5 years of a lab is ~500 drives with ~40 runs each.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from backend.core.db import make_engine, session_factory
from backend.results.compare_charts import make_for_run
from tests.bench.bench_reads import REAL_RUNS, Loader, default_lengths, run_real, timed_get
from tests.bench.common import (
    ONE_STEP,
    RESULTS,
    BenchStack,
    Figure,
    Report,
    add_bench,
    add_drive,
    batch_body,
    check,
    claim_running,
    conditions,
    finish,
    log,
    median,
    percentile,
    private_stack,
    python_entry,
    queue_run,
    sample_rows,
)

SIZES = [
    int(s)
    for s in os.environ.get("BENCH_ARCHIVE_SIZES", "1000000,10000000").split(",")
    if s.strip()
]
if os.environ.get("BENCH_ARCHIVE_100M") == "1" and 100_000_000 not in SIZES:
    SIZES.append(100_000_000)
REQUESTS = int(os.environ.get("BENCH_ARCHIVE_REQUESTS", "20"))
PAGE_OPENS = int(os.environ.get("BENCH_ARCHIVE_PAGE_OPENS", "4"))
LOADERS = 4
BATCH = 5000
BATCHES = int(os.environ.get("BENCH_ARCHIVE_INGEST_BATCHES", "30"))  # per loader
COMPARED = 10
CHARTED = 5
SAMPLES_PER_DRIVE = 200_000

# Targets for an archive of 100M samples: five years of a busy lab (~20,000 runs, 500 drives).
TARGETS = {
    "compare": 20.0,
    "series": 30.0,
    "pages": 100.0,
    "ingest": 300_000.0,
    "complete": 1000.0,
}


def label(n: int) -> str:
    return f"{n / 1e6:g}M"


# --- loading -------------------------------------------------------------------------------


class ArchiveLoader(Loader):
    """The reads loader, with every window log lengthened like the samples are."""

    def __init__(self, conn: psycopg.Connection, real_ids: list[int]) -> None:
        super().__init__(conn, real_ids)
        self.n_log_rows = 0
        self.logs: dict[int, tuple[Jsonb, int]] = {}
        rng = random.Random(20261124)
        lengths = default_lengths()
        for run_id in real_ids:
            for step_id, name, _role in self.steps[run_id]:
                row = conn.execute("SELECT logs FROM steps WHERE id = %s", (step_id,)).fetchone()
                logs = row[0] if row else None
                if not isinstance(logs, dict):
                    continue
                seconds = lengths[(self.plans[run_id], name)] * self.intervals[step_id] / 1000
                longer, rows = lengthen_logs(logs, seconds, rng)
                if rows:
                    self.logs[step_id] = (Jsonb(longer), rows)

    def clone_run(self, src: int, drive_id: int, finished: float, factor: float, rng: Any,
                  *, samples: bool = True) -> tuple[int, dict[str, int]]:  # fmt: skip
        run_id, step_ids = super().clone_run(src, drive_id, finished, factor, rng, samples=samples)
        for step_id, name, _role in self.steps[src]:
            if step_id in self.logs:
                logs, rows = self.logs[step_id]
                self.conn.execute(
                    "UPDATE steps SET logs = %s WHERE id = %s", (logs, step_ids[name])
                )
                self.n_log_rows += rows
        return run_id, step_ids


def lengthen_logs(
    logs: dict[str, Any], seconds: float, rng: random.Random
) -> tuple[dict[str, Any], int]:
    """The step's window logs (bw, iops) repeated to `seconds`, values varied by +-10%;
    (logs, rows of both logs)."""
    out = dict(logs)
    rows = 0
    for kind in ("bw", "iops"):
        log_ = logs.get(kind)
        if not isinstance(log_, dict) or not log_.get("t_ms"):
            continue
        window = int(logs.get("window_ms") or log_.get("window_ms") or 100)
        n = max(len(log_["t_ms"]), int(seconds * 1000 / window))
        real = len(log_["t_ms"])
        longer: dict[str, Any] = {"window_ms": window, "t_ms": [(i + 1) * window for i in range(n)]}
        for direction in ("read", "write"):
            values = log_.get(direction)
            if values:
                longer[direction] = [
                    round(float(values[i % real] or 0) * rng.uniform(0.9, 1.1)) for i in range(n)
                ]
        out[kind] = longer
        rows += n
    return out, rows


class Archive:
    """The growing archive: drives registered through the api, runs copied into PostgreSQL."""

    def __init__(self, bs: BenchStack, real_ids: list[int]) -> None:
        self.bs = bs
        self.real = real_ids
        self.conn = psycopg.connect(bs.database_url)
        self.engine = make_engine(bs.database_url)
        self.sessions = session_factory(self.engine)
        self.loader = ArchiveLoader(self.conn, real_ids)
        self.drives: list[dict[str, Any]] = []
        self.rng = random.Random(20261121)
        self.per_round = self.loader.samples_per_round()
        # Five years back, one finished run every ten minutes of the lab's life.
        self.finished = time.time() - 86400 * 365 * 5
        with bs.client() as admin:
            add_bench(admin, "synthetic")
        self.round = 0

    def _add_drives(self, n: int) -> None:
        with self.bs.client() as admin:
            while len(self.drives) < n:
                i = len(self.drives) + 1
                self.drives.append(
                    add_drive(admin, "synthetic", f"SYN-{i:04d}", f"Synthetic drive {i}")
                )

    def grow_to(self, samples: int) -> float:
        """Copy runs until the archive holds `samples` samples; seconds it took."""
        t0 = time.monotonic()
        drives = max(COMPARED, min(500, samples // SAMPLES_PER_DRIVE))
        self._add_drives(drives)
        log(
            f"growing to {samples:,} samples: {drives} drives, ~{self.per_round:,} samples "
            f"per drive and round of {len(self.real)} runs"
        )
        while self.loader.n_samples < samples:
            for k, d in enumerate(self.drives):
                if self.loader.n_samples >= samples:
                    break
                factor = 0.55 + 0.05 * (k % 20)
                loaded = []
                for src in self.real:
                    self.finished += 600
                    run_id, _steps = self.loader.clone_run(
                        src, d["id"], self.finished, factor, self.rng
                    )
                    loaded.append(run_id)
                self.conn.commit()
                self.keep_charts(loaded)
            self.round += 1
            log(f"  {self.loader.n_samples:,} samples, {self.loader.n_runs:,} runs")
        self.conn.execute("ANALYZE")
        self.conn.commit()
        return time.monotonic() - t0

    def keep_charts(self, run_ids: list[int]) -> None:
        """What the api does when a run finishes done (worker_service._keep_charts): the
        loaded runs' first-open comparison charts drawn and kept, as a lab's runs have them."""
        with self.sessions() as s:
            for run_id in run_ids:
                make_for_run(s, run_id)
            s.commit()

    def close(self) -> None:
        self.conn.close()
        self.engine.dispose()


# --- measuring -----------------------------------------------------------------------------


def storage(conn: psycopg.Connection) -> dict[str, Any]:
    def one(sql: str, args: Any = None) -> Any:
        return conn.execute(sql, args).fetchone()[0]  # type: ignore[index]

    samples = one("SELECT count(*) FROM sample_rows")
    log_bytes, log_rows = conn.execute(
        "SELECT coalesce(sum(pg_column_size(logs)), 0), "
        "coalesce(sum(coalesce(jsonb_array_length(logs->'bw'->'t_ms'), 0) "
        "+ coalesce(jsonb_array_length(logs->'iops'->'t_ms'), 0)), 0) "
        "FROM steps WHERE logs ? 'bw' OR logs ? 'iops'"
    ).fetchone()  # type: ignore[misc]
    out = {
        "samples": samples,
        "runs": one("SELECT count(*) FROM runs"),
        "results": one("SELECT count(*) FROM results"),
        # live steps' rows and finished steps' packed rows (with their TOAST)
        "samples_total_bytes": one(
            "SELECT pg_total_relation_size('samples') + pg_total_relation_size('packed_samples')"
        ),
        "samples_table_bytes": one(
            "SELECT pg_relation_size('samples') + pg_table_size('packed_samples')"
        ),
        "samples_index_bytes": one(
            "SELECT pg_indexes_size('samples') + pg_indexes_size('packed_samples')"
        ),
        "loose_samples": one("SELECT count(*) FROM samples"),
        "steps_total_bytes": one("SELECT pg_total_relation_size('steps')"),
        "window_log_bytes": int(log_bytes),
        "window_log_rows": int(log_rows),
        "database_bytes": one("SELECT pg_database_size(current_database())"),
    }
    out["bytes_per_sample"] = out["samples_total_bytes"] / max(1, samples)
    out["bytes_per_log_row"] = out["window_log_bytes"] / max(1, out["window_log_rows"])
    return out


def compare_bytes(bs: BenchStack, drive_ids: list[int]) -> int:
    """The bytes of GET /api/compare's answer for these drives, every metric."""
    with bs.client() as c:
        r = c.get("/api/compare", params={"drives": ",".join(map(str, drive_ids))})
        r.raise_for_status()
        return len(r.content)


def compare_cold(bs: BenchStack, drive_ids: list[int]) -> list[float]:
    ids = ",".join(map(str, drive_ids))
    with bs.client() as c, psycopg.connect(bs.database_url, autocommit=True) as conn:
        latest = latest_results(conn, drive_ids)
        timed_get(c, "/api/compare", {"drives": ids})  # warm the connection and code paths
        seconds = []
        for _ in range(REQUESTS):
            conn.execute(
                "UPDATE results SET value = value * 1.000001 WHERE id = ANY(%s)", (latest,)
            )
            seconds.append(timed_get(c, "/api/compare", {"drives": ids})[0])
    return seconds


def latest_results(conn: psycopg.Connection, drive_ids: list[int]) -> list[int]:
    return [
        row[0]
        for row in conn.execute(
            "SELECT DISTINCT ON (runs.drive_id) results.id FROM results "
            "JOIN runs ON runs.id = results.run_id "
            "WHERE runs.drive_id = ANY(%s) AND runs.status = 'done' "
            "ORDER BY runs.drive_id, runs.finished_at DESC, runs.id DESC, results.id",
            (drive_ids,),
        )
    ]


def series(bs: BenchStack, drive_ids: list[int], plan: str, **params: Any) -> list[float]:
    query = {"drives": ",".join(map(str, drive_ids)), "plan": plan, "points": 650, **params}
    with bs.client() as c:
        _t, body = timed_get(c, "/api/compare/series", query)
        drawn = [d for d in body["drives"] if d.get("series")]
        if len(drawn) < len(drive_ids):
            raise AssertionError(f"{plan} series drew {len(drawn)} drives: {body['missing']}")
        return [timed_get(c, "/api/compare/series", query)[0] for _ in range(REQUESTS)]


PAGE_API = re.compile(r"/api/")


def open_pages(bs: BenchStack, drive_ids: list[int]) -> dict[str, Any] | None:
    """Each api call's time (ms) of the Lab page and of the Compare page (10 drives) on first
    open, PAGE_OPENS times each, every compared drive's data changed before each open; and the
    complete Compare page of CHARTED drives (`complete`: ms from navigation to its last
    change, see `_open`) and the drawing of its other charts as a reader scrolls (`rest`)."""
    from tests.e2e.test_browser import CHROMIUM, CHROMIUM_ARGS

    if not Path(CHROMIUM).exists():
        log(f"{CHROMIUM} is missing (`make chromium`): the pages are not measured")
        return None
    from playwright.sync_api import sync_playwright

    out: dict[str, Any] = {"lab": [], "compare": [], "by_path": {}, "per_open": {}}
    out["complete"] = []
    out["rest"] = []
    calls: dict[str, set[str]] = {"lab": set(), "compare": set(), "compare5": set()}
    urls: set[str] = set()
    pages = {
        "lab": "/",
        "compare": f"/compare?drives={','.join(map(str, drive_ids))}",
        "compare5": f"/compare?drives={','.join(map(str, drive_ids[:CHARTED]))}",
    }
    with (
        psycopg.connect(bs.database_url, autocommit=True) as conn,
        sync_playwright() as pw,
    ):
        latest = latest_results(conn, drive_ids)
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            for i in range(PAGE_OPENS + 1):  # the first open warms the api up: not counted
                for name, path in pages.items():
                    conn.execute(
                        "UPDATE results SET value = value * 1.000001 WHERE id = ANY(%s)",
                        (latest,),
                    )
                    rest = out["rest"] if i and name == "compare5" else None
                    timings, complete_ms = _open(browser, bs, path, rest)
                    if name == "compare":
                        urls.update(u for u in (t[3] for t in timings) if "/events" not in u)
                    if i and name == "compare5":
                        out["complete"].append(complete_ms)
                    elif i:
                        out["per_open"].setdefault(name, []).append(
                            {"calls": len(timings), "bytes": sum(t[2] for t in timings)}
                        )
                        took = [(p, ms) for p, ms, _b, _u in timings]
                        out[name] += [ms for _p, ms in took]
                        calls[name] |= {p for p, _ms in took}
                        for p, ms in took:
                            out["by_path"].setdefault(f"{name} {p}", []).append(ms)
            # The Compare page's calls again, each alone (no browser on the CPUs, no other
            # call beside it), after the same change: the api's own time for them, against
            # which their time in the page shows what the page's other work costs them.
            out["alone"] = {}
            for url in sorted(urls):
                path = url.removeprefix(bs.api_url).split("?")[0]
                with bs.client() as c:
                    for _ in range(PAGE_OPENS):
                        conn.execute(
                            "UPDATE results SET value = value * 1.000001 WHERE id = ANY(%s)",
                            (latest,),
                        )
                        t = time.perf_counter()
                        check(c.get(url.removeprefix(bs.api_url)))
                        ms = (time.perf_counter() - t) * 1000.0
                        out["alone"].setdefault(path, []).append(ms)
        finally:
            browser.close()
    alone = {k: round(max(v)) for k, v in out.get("alone", {}).items()}
    log(f"Compare page's api calls alone, slowest of each (ms): {alone}")
    slowest = {k: round(max(v)) for k, v in out["by_path"].items()}
    log(f"pages' api calls, slowest time of each (ms): {slowest}")
    return out


# Kept in the page from its first script on: the time (performance.now(), ms since the
# navigation began) of the last change to the page's content (<main>), its charts included
# (their animations are off, so a drawn chart changes nothing after).
LAST_CHANGE = """
window.__lastChange = 0;
new MutationObserver(() => {
  const main = document.getElementById("main");
  if (main) window.__lastChange = performance.now();
}).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
"""


def _open(
    browser: Any, bs: BenchStack, path: str, rest: list[tuple[float, int]] | None = None
) -> tuple[list[tuple[str, float, int, str]], float]:
    """Sign in (a one-time link), open the page, wait until the network is idle; each finished
    /api/ request's path, time from sending the request to the response's last byte (ms), the
    bytes of its answer and its URL; and the page complete: ms from the navigation's start to the
    last change of its content once every request has ended (the network idle for 500 ms and
    300 ms more: a change after that would be counted too), the first render of the charts the
    page draws on opening (those near the screen) with it. With `rest`, then every other chart
    drawn as a reader scrolls to each (draw_later): (ms from the first scroll to the last
    change, charts not drawn before) appended to it."""
    from tests.e2e.test_browser import VIEWPORT, draw_later

    context = browser.new_context(viewport=VIEWPORT, base_url=bs.api_url)
    try:
        page = context.new_page()
        page.goto(bs.stack.login_link().removeprefix(bs.api_url))
        page.wait_for_url(re.compile(r"/$"))
        page.wait_for_load_state("networkidle")
        timings: list[tuple[str, float, int, str]] = []

        def done(request: Any) -> None:
            if PAGE_API.search(request.url) and "/events" not in request.url:
                t = request.timing
                if t["responseEnd"] > 0:
                    path = request.url.removeprefix(bs.api_url).split("?")[0]
                    size = request.sizes()["responseBodySize"]
                    took = t["responseEnd"] - max(0.0, t["requestStart"])
                    timings.append((path, took, size, request.url))

        page.on("requestfinished", done)
        page.add_init_script(LAST_CHANGE)
        page.goto(path)  # a full load: every query of the page asked again
        page.wait_for_load_state("networkidle", timeout=60_000)
        page.wait_for_timeout(300)
        complete = float(page.evaluate("window.__lastChange"))
        if rest is not None:
            # The charts below the screen, drawn as a reader scrolls to each in turn: from the
            # first scroll to the last change (Playwright's round trips included).
            later = page.locator("[data-drawn=later]").count()
            start = float(page.evaluate("performance.now()"))
            draw_later(page)
            page.wait_for_timeout(300)
            rest.append((float(page.evaluate("window.__lastChange")) - start, later))
        return timings, complete
    finally:
        context.close()


def ingest(bs: BenchStack, size: int) -> dict[str, Any]:
    """LOADERS workers' batches into running runs while the archive holds `size` samples."""
    with bs.client() as admin:
        token = add_bench(admin, f"ingest-{label(size).lower().replace('.', '-')}")
        name = f"ingest-{label(size).lower().replace('.', '-')}"
        runs = []
        for i in range(LOADERS):
            drive = add_drive(admin, name, f"SYN-INGEST-{size}-{i}", "Synthetic ingest drive")
            runs.append(queue_run(admin, drive, *ONE_STEP)["id"])
    with bs.bench_client(token) as bench:
        running = [claim_running(bench, r) for r in runs]
    bodies = [
        [batch_body(r["step_id"], sample_rows(b * BATCH, BATCH, seed=b)) for b in range(BATCHES)]
        for r in running
    ]
    errors: list[str] = []

    def load(i: int) -> None:
        with bs.bench_client(token) as c:
            for body in bodies[i]:
                r = c.post(
                    f"/api/worker/runs/{running[i]['run_id']}/samples",
                    content=body,
                    headers={"content-type": "application/json"},
                )
                if r.status_code != 200:
                    errors.append(f"{r.status_code} {r.text[:200]}")
                    return

    threads = [threading.Thread(target=load, args=(i,)) for i in range(LOADERS)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    if errors:
        raise AssertionError(f"the api refused batches: {errors[:3]}")
    sent = LOADERS * BATCHES * BATCH
    with psycopg.connect(bs.database_url) as conn:
        stored = conn.execute(
            "SELECT count(*) FROM sample_rows WHERE run_id = ANY(%s)",
            ([r["run_id"] for r in running],),
        ).fetchone()[0]  # type: ignore[index]
    if stored != sent:
        raise AssertionError(f"ingest stored {stored} rows of {sent}")
    with bs.client() as admin:  # the runs end, as a worker's would
        for r in runs:
            admin.post(f"/api/runs/{r}/cancel")
    return {"rate": sent / wall, "sent": sent, "seconds": wall}


def _pg_bin(bs: BenchStack, name: str) -> str:
    """The server's own client programs for the embedded PostgreSQL, else the machine's."""
    if bs.services == "embedded":
        import pgserver

        found = Path(pgserver.__file__).parent / "pginstall" / "bin" / name
        if found.exists():
            return str(found)
    path = shutil.which(name)
    if path is None:
        raise AssertionError(f"{name} is missing: install PostgreSQL's client programs")
    return path


def dump_restore(bs: BenchStack, workdir: Path) -> dict[str, Any]:
    """pg_dump -Fc of the stack's database, then pg_restore -j 2 into a new database (dropped
    after); seconds of each and the dump's size."""
    url = bs.database_url
    dump = workdir / "archive.dump"
    t0 = time.monotonic()
    subprocess.run([_pg_bin(bs, "pg_dump"), "-Fc", "-f", str(dump), url], check=True)
    dump_s = time.monotonic() - t0
    base, _, dbname = url.rpartition("/")
    dbname, _, query = dbname.partition("?")
    restored = f"{dbname}_restore"
    admin_url = f"{base}/postgres" + (f"?{query}" if query else "")
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{restored}"')
        conn.execute(f'CREATE DATABASE "{restored}"')
    try:
        target = f"{base}/{restored}" + (f"?{query}" if query else "")
        t0 = time.monotonic()
        subprocess.run(
            [_pg_bin(bs, "pg_restore"), "-j", "2", "--no-owner", "-d", target, str(dump)],
            check=True,
        )
        restore_s = time.monotonic() - t0
        with psycopg.connect(target) as conn:
            n = conn.execute("SELECT count(*) FROM sample_rows").fetchone()[0]  # type: ignore[index]
    finally:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{restored}" WITH (FORCE)')
    size = dump.stat().st_size
    dump.unlink()
    return {"dump_s": dump_s, "restore_s": restore_s, "dump_bytes": size, "restored_samples": n}


def measure(bs: BenchStack, archive: Archive, size: int) -> dict[str, Any]:
    compared = [d["id"] for d in archive.drives[:COMPARED]]
    charted = compared[:CHARTED]
    with psycopg.connect(bs.database_url, autocommit=True) as conn:
        # The previous size's ingest left its rows in `samples` as dead tuples once their
        # steps were packed; autovacuum returns that space in time, VACUUM does it now so
        # that the figure is the archive's and not the timing of autovacuum's last visit.
        conn.execute("VACUUM samples")
        stored = storage(conn)
    log(f"{label(size)}: {stored['samples']:,} samples, {stored['runs']:,} runs stored")
    m: dict[str, Any] = {"storage": stored}
    m["compare_bytes"] = compare_bytes(bs, compared)
    m["compare_s"] = compare_cold(bs, compared)
    m["consistency_s"] = series(bs, charted, "consistency", metric="write_iops")
    m["hdtach_s"] = series(bs, charted, "hdtach")
    m["pages_ms"] = open_pages(bs, compared)
    m["ingest"] = ingest(bs, size)
    log(f"{label(size)}: ingest {m['ingest']['rate']:,.0f} samples/s; pg_dump and restore")
    m["backup"] = dump_restore(bs, bs.workdir)
    return m


def figures(size: int, m: dict[str, Any], load_s: float) -> list[Figure]:
    s = label(size)
    st = m["storage"]

    def p95(xs: list[float] | None, scale: float = 1000.0) -> float | None:
        v = percentile(xs or [], 95)
        return None if v is None else v * scale

    out = [
        Figure(f"{s}: bytes per sample", st["bytes_per_sample"], "B", headline=True,
               note=f"samples and packed_samples {st['samples_table_bytes'] / 1e6:.0f} MB "
               f"tables + {st['samples_index_bytes'] / 1e6:.0f} MB indexes, "
               f"{st['samples']:,} samples ({st['loose_samples']:,} of live steps as rows)"),
        Figure(f"{s}: bytes per window-log row", st["bytes_per_log_row"], "B", headline=True,
               note=f"{st['window_log_rows']:,} rows of bw and iops logs in steps.logs (JSONB, "
               f"TOAST-compressed): {st['window_log_bytes'] / 1e6:.1f} MB"),
        Figure(f"{s}: compare, 10 drives, nothing cached: p95", p95(m["compare_s"]), "ms",
               TARGETS["compare"], "<="),
        Figure(f"{s}: compare answer, 10 drives, every metric", m.get("compare_bytes"), "B",
               headline=True),
        Figure(f"{s}: consistency series, 5 drives x 2000 s -> 650 points: p95",
               p95(m["consistency_s"]), "ms", TARGETS["series"], "<="),
        Figure(f"{s}: HD Tach series, 5 drives: p95", p95(m["hdtach_s"]), "ms",
               TARGETS["series"], "<="),
    ]  # fmt: skip
    pages = m.get("pages_ms")
    for name, title in (("lab", "Lab page"), ("compare", "Compare page")):
        calls = (pages or {}).get(name)
        out.append(
            Figure(f"{s}: {title} api calls on first open: p95", p95(calls, 1.0), "ms",
                   TARGETS["pages"], "<=",
                   note=f"{len(calls or [])} calls over {PAGE_OPENS} opens; slowest "
                   f"{max(calls or [0]):.0f} ms" if calls else "Chromium missing: not measured")
        )  # fmt: skip
        opens = (pages or {}).get("per_open", {}).get(name) or []
        out += [
            Figure(f"{s}: {title} api calls per first open", median([o["calls"] for o in opens])
                   if opens else None, "calls", headline=True),
            Figure(f"{s}: {title} answers' bytes per first open",
                   median([o["bytes"] for o in opens]) if opens else None, "B", headline=True),
        ]  # fmt: skip
    alone = (pages or {}).get("alone") or {}
    if alone:
        every = [ms for v in alone.values() for ms in v]
        slowest = max(alone, key=lambda k: max(alone[k]))
        out.append(
            Figure(f"{s}: Compare page api calls alone (no browser): p95", p95(every, 1.0), "ms",
                   headline=True,
                   note=f"each of its {len(alone)} calls {PAGE_OPENS} times, data changed before "
                   f"each; slowest {slowest} {max(alone[slowest]):.0f} ms")
        )  # fmt: skip
    complete = (pages or {}).get("complete")
    out.append(
        Figure(f"{s}: Compare page complete, {CHARTED} drives: p95", p95(complete, 1.0), "ms",
               TARGETS["complete"], "<=",
               note=f"Chromium, navigation to the last change of the page with the charts it "
               f"draws on opening (near the screen), {len(complete)} opens; median "
               f"{median(complete):.0f} ms" if complete
               else "Chromium missing: not measured")
    )  # fmt: skip
    rest = (pages or {}).get("rest")
    if rest:
        out.append(
            Figure(f"{s}: Compare page, the other charts drawn reading down: median",
                   median([ms for ms, _n in rest]), "ms", headline=True,
                   note=f"{median([n for _ms, n in rest]):.0f} charts below the screen, drawn as a "
                   "reader scrolls to each in turn, from the first scroll to the last change")
        )  # fmt: skip
    b = m["backup"]
    out += [
        Figure(f"{s}: ingest while the archive is this large", m["ingest"]["rate"], "samples/s",
               TARGETS["ingest"], ">=",
               note=f"{LOADERS} loaders x {BATCHES} batches x {BATCH} samples"),
        Figure(f"{s}: pg_dump", b["dump_s"], "s", headline=True,
               note=f"custom format, {b['dump_bytes'] / 1e6:.0f} MB; database "
               f"{st['database_bytes'] / 1e6:.0f} MB"),
        Figure(f"{s}: pg_restore (-j 2)", b["restore_s"], "s", headline=True,
               note=f"{b['restored_samples']:,} samples restored"),
        Figure(f"{s}: generating the archive", load_s, "s", headline=True),
    ]  # fmt: skip
    return out


GROWTH = (
    ("bytes per sample", "B", None),
    ("bytes per window-log row", "B", None),
    ("compare, 10 drives, nothing cached: p95", "ms", "compare"),
    ("consistency series, 5 drives x 2000 s -> 650 points: p95", "ms", "series"),
    ("HD Tach series, 5 drives: p95", "ms", "series"),
    ("Lab page api calls on first open: p95", "ms", "pages"),
    ("Compare page api calls on first open: p95", "ms", "pages"),
    ("Compare page api calls per first open", "calls", None),
    ("Compare page answers' bytes per first open", "B", None),
    ("Compare page api calls alone (no browser): p95", "ms", None),
    (f"Compare page complete, {CHARTED} drives: p95", "ms", "complete"),
    ("Compare page, the other charts drawn reading down: median", "ms", None),
    ("compare answer, 10 drives, every metric", "B", None),
    ("ingest while the archive is this large", "samples/s", "ingest"),
    ("pg_dump", "s", None),
    ("pg_restore (-j 2)", "s", None),
)


def growth_table(report: Report) -> list[dict[str, Any]]:
    """One row per figure: its value at each size, the growth from the first size to the last,
    and the target (at 100M samples)."""
    by_name = {f.name: f for f in report.figures}
    sizes = report.details["sizes"]
    rows = []
    for name, unit, target in GROWTH:
        values = [by_name.get(f"{label(n)}: {name}") for n in sizes]
        vals = [None if f is None else f.value for f in values]
        first, last = vals[0], vals[-1]
        op = ">=" if target == "ingest" else "<="
        rows.append(
            {
                "figure": name,
                "unit": unit,
                "values": dict(zip(map(label, sizes), vals, strict=True)),
                "growth": (last / first) if first and last is not None and len(vals) > 1 else None,
                "target": None if target is None else f"{op} {TARGETS[target]:g}",
            }
        )
    return rows


def print_growth(rows: list[dict[str, Any]], sizes: list[int]) -> None:
    from tests.bench.common import fmt

    head = ["figure", *map(label, sizes), "growth", "target (100M)"]
    lines = [head]
    for r in rows:
        lines.append(
            [
                r["figure"],
                *(fmt(r["values"][label(n)], r["unit"]) for n in sizes),
                "-" if r["growth"] is None else f"x{r['growth']:.2f}",
                r["target"] or "-",
            ]
        )
    widths = [max(len(str(line[i])) for line in lines) for i in range(len(head))]
    print("  growth between sizes:")
    for line in lines:
        cells = [line[0].ljust(widths[0])]
        cells += [str(c).rjust(w) for c, w in zip(line[1:], widths[1:], strict=True)]
        print("  " + "  ".join(cells))


def main() -> Report:
    t0 = time.monotonic()
    report = Report("archive", "storage and reads as the archive grows")
    sizes = sorted(SIZES)
    report.details["sizes"] = sizes
    with private_stack("archive") as bs:
        log(f"running {len(REAL_RUNS)} short plans through the stack")
        real_ids = run_real(bs)
        archive = Archive(bs, real_ids)
        measured: dict[str, Any] = {}
        try:
            for size in sizes:
                load_s = archive.grow_to(size)
                log(f"{label(size)} generated in {load_s:.0f} s; measuring")
                m = measure(bs, archive, size)
                measured[label(size)] = {**m, "load_s": load_s}
                report.add(*figures(size, m, load_s))
                report.details["measured"] = measured
                report.write()  # what is measured so far survives an interrupted run
            hold = float(os.environ.get("BENCH_ARCHIVE_HOLD_S", "0"))
            if hold:  # to look into the archive (EXPLAIN) before the stack goes
                log(f"holding the stack {hold:.0f} s: {bs.api_url}, {bs.database_url}")
                time.sleep(hold)
        finally:
            archive.close()
        report.conditions = conditions(
            bs, sizes=sizes, drives=len(archive.drives), runs=archive.loader.n_runs,
            compared=COMPARED, charted=CHARTED,
        )  # fmt: skip
    report.details["growth"] = growth_table(report)
    finish(report, t0)
    print_growth(report.details["growth"], sizes)
    (RESULTS / "archive.json").write_text(json.dumps(report.as_dict(), indent=2, default=str))
    return report


if __name__ == "__main__":
    python_entry(main)
