"""What every benchmark shares: a private drivelab stack, the machine's description, process
CPU times, percentiles, the printed table and the JSON record in tests/bench/results/.

A benchmark is a module `bench_NAME.py` with `main() -> Report`; `python -m tests.bench` runs
all six (`make bench`), `python -m tests.bench.bench_NAME` one of them. None of them is a
pytest test: pytest collects test_*.py only.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import math
import os
import platform
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg
import redis

from backend.runs.schemas import sample_columns
from tests.conftest import (
    LOCAL_REDIS,
    ROOT,
    Stack,
    create_local_database,
    local_services_available,
    register_drive,
    reserve_redis_db,
    start_stack,
    stop_stack,
)

RESULTS = ROOT / "tests" / "bench" / "results"
CLK_TCK = os.sysconf("SC_CLK_TCK")


# --- figures and reports -----------------------------------------------------------------


@dataclass
class Figure:
    """One measured figure and its target. `op` is how value compares with target: ">=" or
    "<=" (None: reported, no target)."""

    name: str
    value: float | None
    unit: str
    target: float | None = None
    op: str | None = None
    note: str = ""
    # Shown in the README's table although it has no target.
    headline: bool = False
    # A confidence interval (low, high) measured around `value`, shown after it. With op
    # "ci within", the target is met when the interval lies within `target_range` and
    # contains `target`.
    interval: tuple[float, float] | None = None
    target_range: tuple[float, float] | None = None

    @property
    def met(self) -> bool | None:
        if self.target is None or self.op is None or self.value is None:
            return None
        if self.op == "ci within":
            if self.interval is None or self.target_range is None:
                return None
            (lo, hi), (low, high) = self.interval, self.target_range
            return low <= lo and hi <= high and lo <= self.target <= hi
        return self.value >= self.target if self.op == ">=" else self.value <= self.target

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "met": self.met}


def measured_text(f: dict[str, Any]) -> str:
    """A figure's value (Figure.as_dict form), with its confidence interval if it has one."""
    text = fmt(f.get("value"), f.get("unit", ""))
    if f.get("interval"):
        lo, hi = f["interval"]
        text += f" [{fmt(lo, f['unit'])}, {fmt(hi, f['unit'])}]"
    return text


def target_text(f: dict[str, Any]) -> str:
    """A figure's target (Figure.as_dict form), "" when it has none."""
    if not f.get("op") or f.get("target") is None:
        return ""
    if f["op"] == "ci within" and f.get("target_range"):
        low, high = f["target_range"]
        return (
            f"CI within [{fmt(low, f['unit'])}, {fmt(high, f['unit'])}], "
            f"contains {fmt(f['target'], f['unit'])}"
        )
    return f"{f['op']} {fmt(f['target'], f['unit'])}"


@dataclass
class Report:
    benchmark: str
    title: str
    figures: list[Figure] = field(default_factory=list)
    conditions: dict[str, Any] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)
    started_at: str = field(default_factory=lambda: now_iso())
    seconds: float = 0.0

    def add(self, *figures: Figure) -> None:
        self.figures.extend(figures)

    def as_dict(self) -> dict[str, Any]:
        return {
            "benchmark": self.benchmark,
            "title": self.title,
            "started_at": self.started_at,
            "seconds": round(self.seconds, 1),
            "figures": [f.as_dict() for f in self.figures],
            "conditions": self.conditions,
            "details": self.details,
        }

    def write(self) -> Path:
        RESULTS.mkdir(parents=True, exist_ok=True)
        path = RESULTS / f"{self.benchmark}.json"
        path.write_text(json.dumps(self.as_dict(), indent=2, default=str) + "\n")
        return path


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def fmt(value: float | None, unit: str = "") -> str:
    if value is None:
        return "n/a"
    if unit == "%":
        text = f"{value:.2f}"
    elif unit == "ratio":
        text = f"{value:.4f}"
    elif abs(value) >= 1000:
        text = f"{value:,.0f}"
    elif float(value).is_integer() or abs(value) >= 100:
        text = f"{value:.0f}"
    elif abs(value) >= 10:
        text = f"{value:.1f}"
    else:
        text = f"{value:.3g}"
    return f"{text} {unit}".strip() if unit not in ("", "ratio") else text


def table(report: Report) -> str:
    rows = [("figure", "measured", "target", "")]
    for f in report.figures:
        d = f.as_dict()
        verdict = {True: "ok", False: "MISSED", None: ""}[f.met]
        rows.append((f.name, measured_text(d), target_text(d) or "-", verdict))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = [f"== {report.benchmark}: {report.title} ({report.seconds:.0f} s) =="]
    for i, r in enumerate(rows):
        lines.append(
            f"  {r[0]:<{widths[0]}}  {r[1]:>{widths[1]}}  {r[2]:>{widths[2]}}  {r[3]}".rstrip()
        )
        if i == 0:
            lines.append("  " + "-" * (sum(widths) + 8))
    notes = [f"  * {f.name}: {f.note}" for f in report.figures if f.note]
    load = report.conditions.get("load")
    if load:
        notes.append(
            f"  machine: {load['busy_pct_during']:.0f}% of its CPUs busy during the benchmark "
            f"(ours and anything else running); load average before "
            f"{load['load_avg_before'][0]:.2f}"
            + ("" if load.get("quiet", True) else " (it did not get quiet)")
        )
    return "\n".join(lines + notes)


def finish(report: Report, t0: float) -> Report:
    report.seconds = time.monotonic() - t0
    path = report.write()
    print(table(report), flush=True)
    print(f"  -> {path.relative_to(ROOT)}", flush=True)
    return report


def log(msg: str) -> None:
    print(f"  [{time.strftime('%H:%M:%S')}] {msg}", flush=True)


# --- statistics ----------------------------------------------------------------------------


def percentile(values: list[float], pct: float) -> float | None:
    """Linear interpolation between closest ranks (numpy's default)."""
    if not values:
        return None
    xs = sorted(values)
    k = (len(xs) - 1) * pct / 100.0
    lo, hi = math.floor(k), math.ceil(k)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def median(values: list[float]) -> float | None:
    return percentile(values, 50.0)


# --- processes -----------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process (all its threads, not its children), in seconds; for the
    api's uvicorn supervisor, with its worker processes (multiprocessing's spawned children:
    `drivelab up` runs one api process per core, and the supervisor does little itself)."""
    total = _own_cpu_seconds(pid)
    if "uvicorn" in cmdline(pid):
        for child in _children(pid):
            if "spawn_main" in cmdline(child):
                with contextlib.suppress(OSError):
                    total += _own_cpu_seconds(child)
    return total


def _own_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            out.append(int(entry.name))
    return out


def cmdline(pid: int) -> str:
    try:
        return (Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")).decode()
    except OSError:
        return ""


def stack_pids(stack: Stack) -> dict[str, int]:
    """The pids of the stack's api (uvicorn) and local worker: children of `drivelab up`."""
    found: dict[str, int] = {}
    for pid in _children(stack.proc.pid):
        line = cmdline(pid)
        if "uvicorn" in line:
            found["api"] = pid
        elif "backend.cli worker" in line:
            found["worker"] = pid
    return found


def process_env(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(e.decode().split("=", 1) for e in raw if b"=" in e)


def stack_database_url(stack: Stack) -> str:
    """The database a stack's api uses (embedded servers: read from the api's environment)."""
    return stack.database_url or process_env(stack_pids(stack)["api"])["DRIVELAB_DATABASE_URL"]


class CpuMeter:
    """CPU seconds of some processes between start() and stop(). With BENCH_PROFILE=1, py-spy
    also samples the api meanwhile (collapsed stacks in tests/bench/results/NAME-api.pyspy);
    BENCH_PROFILE=gil samples only the thread holding the GIL (where the CPU goes)."""

    def __init__(self, pids: dict[str, int], profile_as: str | None = None) -> None:
        self.pids = pids
        self.t0 = 0.0
        self.before: dict[str, float] = {}
        self.used: dict[str, float] = {}
        self.wall = 0.0
        self.profile_as = profile_as
        self._spy: subprocess.Popen[bytes] | None = None

    def start(self) -> CpuMeter:
        if self.profile_as and os.environ.get("BENCH_PROFILE") and "api" in self.pids:
            self._spy = start_profile(self.pids["api"], f"{self.profile_as}-api")
        self.before = {k: cpu_seconds(p) for k, p in self.pids.items()}
        self.t0 = time.monotonic()
        return self

    def stop(self) -> dict[str, float]:
        self.wall = time.monotonic() - self.t0
        self.used = {k: cpu_seconds(p) - self.before[k] for k, p in self.pids.items()}
        if self._spy is not None:
            stop_profile(self._spy)
        return self.used


def start_profile(pid: int, name: str) -> subprocess.Popen[bytes] | None:
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(spy).exists():
        log("BENCH_PROFILE=1 but py-spy is missing: `pip install py-spy`")
        return None
    RESULTS.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        [
            spy,
            "record",
            "--pid",
            str(pid),
            "--format",
            "raw",
            "--rate",
            "200",
            "--threads",
            "--subprocesses",  # the api's worker processes, under uvicorn's supervisor
            "--output",
            str(RESULTS / f"{name}.pyspy"),
            *(["--gil"] if os.environ.get("BENCH_PROFILE") == "gil" else []),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(0.5)
    return proc


def stop_profile(proc: subprocess.Popen[bytes] | None) -> None:
    if proc is None:
        return
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class PostgresMeter:
    """CPU seconds of the PostgreSQL backends serving a database (its server runs on this
    machine): the backends open at start() and any opened meanwhile, read from /proc. A
    backend that exits before stop() is not counted (the api's pool keeps its connections)."""

    def __init__(self, database_url: str) -> None:
        self.url = database_url
        self.before: dict[int, float] = {}
        self.gone = 0

    def _backends(self) -> list[int]:
        with psycopg.connect(self.url, autocommit=True) as conn:
            rows = conn.execute(
                "SELECT pid FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchall()
        return [r[0] for r in rows]

    def start(self) -> PostgresMeter:
        self.before = {}
        for pid in self._backends():
            with contextlib.suppress(OSError):
                self.before[pid] = cpu_seconds(pid)
        return self

    def stop(self) -> float:
        used = 0.0
        now = self._backends()
        for pid in now:
            with contextlib.suppress(OSError):
                used += cpu_seconds(pid) - self.before.get(pid, 0.0)
        self.gone = len(set(self.before) - set(now))
        return used


def _cpu_jiffies() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine, from /proc/stat."""
    values = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + (values[4] if len(values) > 4 else 0)
    return sum(values) - idle, sum(values)


class MachineMeter:
    """How busy the whole machine was (every process, ours included) between two reads."""

    def __init__(self) -> None:
        self.start = _cpu_jiffies()

    def busy_pct(self) -> float:
        busy, total = _cpu_jiffies()
        db, dt_ = busy - self.start[0], total - self.start[1]
        return 100.0 * db / dt_ if dt_ else 0.0


def wait_quiet(max_s: float, below_pct: float = 25.0) -> dict[str, Any]:
    """Wait (at most max_s) until the machine has been under below_pct busy for 3 s in a row:
    other work on a 2-core machine (a test suite, a build) moves every figure here."""
    t0 = time.monotonic()
    quiet = 0
    busy = 100.0
    while time.monotonic() - t0 < max_s:
        m = MachineMeter()
        time.sleep(1.0)
        busy = m.busy_pct()
        quiet = quiet + 1 if busy < below_pct else 0
        if quiet >= 3:
            break
    waited = time.monotonic() - t0
    if quiet < 3 and max_s > 0:
        log(
            f"the machine stayed busy ({busy:.0f}% of its CPUs) for {waited:.0f} s: "
            "measuring anyway"
        )
    return {
        "waited_s": round(waited, 1),
        "quiet": quiet >= 3,
        "busy_pct_before": round(busy, 1),
        "load_avg_before": [round(x, 2) for x in os.getloadavg()],
    }


# --- a private stack -----------------------------------------------------------------------


@dataclass
class BenchStack:
    stack: Stack
    workdir: Path
    services: str  # "machine" or "embedded"
    pids: dict[str, int]
    quiet: dict[str, Any] = field(default_factory=dict)
    machine: MachineMeter = field(default_factory=MachineMeter)

    @property
    def api_url(self) -> str:
        return self.stack.api_url

    def client(self, token: str | None = None, timeout: float = 60) -> httpx.Client:
        c = self.stack.client(token)
        c.timeout = httpx.Timeout(timeout)
        return c

    def bench_client(self, token: str, timeout: float = 60) -> httpx.Client:
        return httpx.Client(
            base_url=self.api_url,
            headers={"Authorization": f"Bearer {token}"},
            timeout=timeout,
        )

    @property
    def database_url(self) -> str:
        """The stack's database, for loading synthetic data and counting rows only."""
        return process_env(self.pids["api"])["DRIVELAB_DATABASE_URL"]

    @property
    def redis_url(self) -> str:
        return process_env(self.pids["api"])["DRIVELAB_REDIS_URL"]

    def db(self) -> psycopg.Connection:
        return psycopg.connect(self.database_url, autocommit=True)

    def sim_drive(self) -> dict[str, Any]:
        with self.client() as c:
            drives = c.get("/api/drives").json()
        return next(d for d in drives if d["simulated"] and d["bench"]["name"] == "local")


@contextlib.contextmanager
def private_stack(name: str, *, sim_size: str = "1g") -> Iterator[BenchStack]:
    """`drivelab up` in a temporary data directory, on the machine's PostgreSQL and Redis (a
    fresh database and a free Redis database number) when they answer, else embedded ones."""
    workdir = Path(tempfile.mkdtemp(prefix=f"drivelab-bench-{name}-"))
    cleanups: list[Callable[[], None]] = []
    env: dict[str, str] = {}
    kind = "embedded"
    if os.environ.get("DRIVELAB_TEST_EMBEDDED") != "1" and local_services_available():
        db = create_local_database()
        cleanups.append(db.drop)
        number, release = reserve_redis_db()
        cleanups.append(release)
        env = {"DRIVELAB_DATABASE_URL": db.url, "DRIVELAB_REDIS_URL": f"{LOCAL_REDIS}/{number}"}
        kind = "machine"
    env["DRIVELAB_LOG_LEVEL"] = "WARNING"
    stack = None
    try:
        quiet = wait_quiet(float(os.environ.get("BENCH_QUIET_WAIT_S", "60")))
        t0 = time.monotonic()
        stack = start_stack(workdir / "data", env, sim_size=sim_size, timeout=120)
        pids = stack_pids(stack)
        log(f"stack up in {time.monotonic() - t0:.1f} s at {stack.api_url} ({kind} servers)")
        yield BenchStack(stack=stack, workdir=workdir, services=kind, pids=pids, quiet=quiet)
    finally:
        if stack is not None:
            stop_stack(stack)
        for fn in reversed(cleanups):
            with contextlib.suppress(Exception):
                fn()
        shutil.rmtree(workdir, ignore_errors=True)


# --- api helpers ---------------------------------------------------------------------------


def check(resp: httpx.Response, status: int = 200) -> Any:
    if resp.status_code != status:
        raise AssertionError(
            f"{resp.request.method} {resp.request.url}: {resp.status_code} {resp.text}"
        )
    return resp.json() if resp.content else None


# Worker tokens of the benches add_bench made: their device reports are posted with them.
_TOKENS: dict[str, str] = {}


def add_bench(admin: httpx.Client, name: str) -> str:
    """A bench registered through the api, with its worker token."""
    token = check(admin.post("/api/benches", json={"name": name}), 201)["token"]
    _TOKENS[name] = str(token)
    return str(token)


def add_drive(
    admin: httpx.Client,
    bench: str,
    serial: str,
    model: str,
    *,
    target_path: str | None = None,
    capacity_bytes: int = 1_000_204_886_016,
    vendor: str = "drivelab-bench",
    interface: str = "synthetic",
    simulated: bool = True,
    firmware: str | None = "SYN1",
) -> dict[str, Any]:
    """A synthetic drive on a bench add_bench made (no worker runs for it): its device report
    is posted with the bench's token, then the drive registered from it."""
    return check(
        register_drive(
            admin,
            {
                "bench": bench,
                "target_path": target_path or f"/srv/drivelab-bench/{serial}",
                "serial": serial,
                "vendor": vendor,
                "model": model,
                "capacity_bytes": capacity_bytes,
                "interface": interface,
                "simulated": simulated,
                "firmware": firmware,
            },
            bench_token=_TOKENS[bench],
        ),
        201,
    )


def queue_run(
    admin: httpx.Client, drive: dict[str, Any], plan: str, params: dict[str, Any]
) -> dict[str, Any]:
    return check(
        admin.post(
            "/api/runs",
            json={
                "plan": plan,
                "drive_id": drive["id"],
                "params": params,
                "confirm_serial": drive["serial"],
            },
        ),
        201,
    )


# One fio step, time-based: a run that a loader drives through the worker api.
ONE_STEP = (
    "trace-replay",
    {
        "profile": "custom",
        "rwmixread": 0,
        "bssplit": "4k/100",
        "percentage_random": 100,
        "iodepth": 32,
        "runtime_s": 86400,
        "prefill": False,
        "span": "1g",
    },
)


def claim_running(bench: httpx.Client, run_id: int) -> dict[str, Any]:
    """Claim a dispatched run with the bench's token and start its first step, as a worker
    does: the run is `running` with a `running` step that takes samples."""
    spec = check(bench.post(f"/api/worker/runs/{run_id}/claim", json={"worker": "bench-loader"}))
    step = spec["steps"][0]
    check(bench.post(f"/api/worker/runs/{run_id}/steps/{step['id']}/start", json={}))
    return {"run_id": run_id, "step_id": step["id"]}


def running_run(stack: Stack, prefix: str) -> tuple[str, dict[str, Any]]:
    """A new bench (its token) with a drive whose run is claimed and running, as a worker
    leaves it: {"run_id", "step_id"}."""
    name = f"{prefix}-{secrets.token_hex(3)}"
    with stack.client() as admin:
        token = add_bench(admin, name)
        drive = add_drive(admin, name, f"SYN-{name}", "Synthetic drive")
        run = queue_run(admin, drive, *ONE_STEP)
    with stack.client(token) as bench:
        return token, claim_running(bench, run["id"])


def sample_rows(start_s: int, n: int, *, seed: int = 0, dt_ms: int = 1000) -> list[dict[str, Any]]:
    """n samples of a 4K random write at about 60k IOPS, one every dt_ms."""
    rows = []
    for i in range(n):
        ios = 60_000 + ((seed * 7919 + i * 104_729) % 9_000)
        t_ms = (start_s + i + 1) * dt_ms
        rows.append(
            {
                "t_ms": t_ms,
                "dt_ms": dt_ms,
                "read_bytes": 0,
                "write_bytes": ios * 4096,
                "read_ios": 0,
                "write_ios": ios,
                "read_lat_mean_us": None,
                "write_lat_mean_us": 520.0 + (i % 50),
                "read_lat_p99_us": None,
                "write_lat_p99_us": 1100.0 + (i % 200),
            }
        )
    return rows


def batch_body(step_id: int, rows: list[dict[str, Any]]) -> bytes:
    """A sample batch's JSON body as a worker posts it (columns)."""
    return json.dumps(
        {"step_id": step_id, "progress": None, "columns": sample_columns(rows)}
    ).encode()


# --- conditions ----------------------------------------------------------------------------


def _first_line(argv: list[str]) -> str | None:
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (out.stdout or out.stderr).strip()
    return text.splitlines()[0] if text else None


def machine() -> dict[str, Any]:
    meminfo = Path("/proc/meminfo").read_text().splitlines()
    mem_kb = int(next(x for x in meminfo if x.startswith("MemTotal")).split()[1])
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    git = _first_line(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"])
    dirty = bool(
        _first_line(["git", "-C", str(ROOT), "status", "--porcelain", "--", "backend", "worker"])
    )
    return {
        "date": now_iso(),
        "cores": os.cpu_count(),
        "cpu": cpu,
        "memory_gib": round(mem_kb / 1024 / 1024, 1),
        "kernel": platform.release(),
        "os": _os_name(),
        "python": platform.python_version(),
        "fio": _first_line(["fio", "--version"]),
        "git": f"{git}{' (working tree has changes in backend/ or worker/)' if dirty else ''}",
    }


def _os_name() -> str | None:
    with contextlib.suppress(OSError):
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip('"')
    return None


def server_versions(bs: BenchStack) -> dict[str, Any]:
    with bs.db() as conn:
        pg = conn.execute("SELECT version()").fetchone()[0]  # type: ignore[index]
    r = redis.Redis.from_url(bs.redis_url)
    try:
        rv = r.info("server").get("redis_version")
    finally:
        r.close()
    return {"postgresql": pg.split(" on ")[0], "redis": rv, "servers": bs.services}


def conditions(bs: BenchStack | None = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"machine": machine()}
    if bs is not None:
        out["versions"] = server_versions(bs)
        out["load"] = {
            **bs.quiet,
            "busy_pct_during": round(bs.machine.busy_pct(), 1),
            "load_avg_after": [round(x, 2) for x in os.getloadavg()],
        }
    out.update(extra)
    return out


def stop_on_sigterm() -> None:
    """SIGTERM (`timeout`, a CI cancel) unwinds like Ctrl-C, so every private stack is
    stopped and its database dropped on the way out."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


def python_entry(main: Callable[[], Report]) -> None:
    """`python -m tests.bench.bench_NAME`: run one benchmark, exit 0 whatever it measured."""
    stop_on_sigterm()
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(130)
