"""`drivelab demo`: fill a fresh installation so that every page and chart has data.

1. The catalog: drive models (backend/demo_data/models.csv) and prices taken from published
   review price tables (backend/demo_data/catalog.csv, the columns of POST /api/prices/import).
   Every price carries its source, the page's URL and title, and the date the page states;
   backend/demo_data/README.md says what each figure is (street price, MSRP, launch price).
2. Simulated drives (worker.sim, `drivelab sim`): loop devices over tmpfs files whose speed
   the kernel's block throttle shapes, each with an SLC cache that runs out, a consistency
   cliff and write stalls of its own (profiles demo-a, -b, -c), registered through the api as
   simulated drives of vendor "drivelab" ("Simulated drive A", ...), each with shortened
   four-corners, consistency (default and 25% over-provisioning), hdtach, transfer-size,
   write-hitching, trim-validation and trim-performance runs queued, so every chart of the
   Compare page has step-downs, drop-offs and stalls to show. They live as long as the
   command, which waits for the runs. Without root or cgroups (or with --sparse), sparse
   files `demo-a-1g.img`, ... in the local bench's sandbox (DATA_DIR/targets) instead, and the
   demo says so. Their models are simulated ones of their own: their results are never
   attached to a catalog product.

Everything goes through the api with the CLI's credentials; only the simulated drives (or
sparse files) are created directly, which is why the demo runs on the machine where
`drivelab up` runs.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx

from backend.cli import FINAL, CliError, _data_dir, _table, api_client, call, console, poll
from backend.plans.base import format_size, human_bytes, parse_size

DATA = Path(__file__).resolve().parent / "demo_data"
MODELS_CSV = DATA / "models.csv"
CATALOG_CSV = DATA / "catalog.csv"
# (plan, parameters of this run on top of the profile's for the plan): every chart's data.
# hdtach first: on a fresh drive, so that a simulated drive's SLC cache is there to run out
# (the other plans fill the drive; only a purge or a whole-span TRIM frees it again).
RUNS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("hdtach", {}),
    ("four-corners", {}),
    ("consistency", {}),
    ("consistency", {"op_percent": 25}),
    ("transfer-size", {}),
    ("write-hitching", {}),
    ("trim-validation", {}),
    ("trim-performance", {}),
)
PLANS = tuple(plan for plan, _extra in RUNS)
SIM_VENDOR = "drivelab"
LETTERS = "ABC"


@dataclass(frozen=True)
class Profile:
    """Target size and shortened parameters of each plan."""

    size: str
    params: dict[str, dict[str, Any]] = field(default_factory=dict)


# About 6 minutes per drive; the drives run at the same time.
STANDARD = Profile(
    "1g",
    {
        "four-corners": {"span": "256m", "runtime_s": 10, "seq_runtime_s": 10},
        "consistency": {"runtime_s": 20},
        "hdtach": {},
        "transfer-size": {"span": "64m", "runtime_s": 2},
        "write-hitching": {"runtime_s": 20, "span": "256m"},
        "trim-validation": {"span": "256m", "torture_runtime_s": 20},
        "trim-performance": {"span": "256m", "amounts": ["64m"], "followup_s": 20},
    },
)
# The smallest that still gives every chart data, 256 MiB drives: a second or two per test,
# and long enough for the simulated drives' cliff (8-10 s in) and stalls (every 4-6 s): the
# consistency run holds the level after the cliff for about 10 s, two stalls of drive B and
# jitter in it, where the drop-off method needs 5 s of a level.
QUICK = Profile(
    "256m",
    {
        "four-corners": {"span": "32m", "runtime_s": 1, "seq_runtime_s": 1},
        "consistency": {"runtime_s": 20},
        "hdtach": {},
        "transfer-size": {
            "span": "8m",
            "sizes": ["4k", "16k", "64k", "256k", "1m", "4m"],
            "runtime_s": 1,
        },
        "write-hitching": {"runtime_s": 10, "span": "32m"},
        "trim-validation": {"span": "32m", "torture_runtime_s": 1},
        "trim-performance": {"span": "32m", "amounts": ["8m"], "followup_s": 6},
    },
)


# --- api helpers (also used by `drivelab prices import/export`) ----------------------------


def request(
    client: httpx.Client, method: str, path: str, *, ok: tuple[int, ...] = (), **kwargs: Any
) -> httpx.Response:
    """Like backend.cli.call, but returns the response; statuses in `ok` are not errors."""
    try:
        resp = client.request(method, path, **kwargs)
    except httpx.TransportError as exc:
        raise CliError(
            f"cannot reach the api at {client.base_url}: {exc} (is `drivelab up` running?)"
        ) from None
    if resp.status_code >= 400 and resp.status_code not in ok:
        try:
            detail = resp.json().get("detail", resp.text)
        except ValueError:
            detail = resp.text
        raise CliError(f"{method} {path} failed ({resp.status_code}): {detail}")
    return resp


def import_prices(client: httpx.Client, text: str) -> dict[str, Any]:
    """POST the CSV text to /api/prices/import; the api's counts."""
    resp = request(
        client,
        "POST",
        "/api/prices/import",
        content=text.encode("utf-8"),
        headers={"Content-Type": "text/csv; charset=utf-8"},
    )
    return dict(resp.json())


def export_prices(client: httpx.Client) -> str:
    return request(client, "GET", "/api/prices.csv").text


# --- the catalog -----------------------------------------------------------------------------


def load_models(client: httpx.Client, path: Path = MODELS_CSV) -> tuple[int, int]:
    """Add the demo's drive models (with their specifications); (added, already there)."""
    added = existing = 0
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            body: dict[str, Any] = {
                "vendor": row["vendor"],
                "model": row["model"],
                "capacity_bytes": int(Decimal(row["capacity_gb"]) * 10**9),
            }
            for spec in ("interface", "form_factor", "controller", "nand", "dram"):
                body[spec] = row.get(spec) or None
            resp = request(client, "POST", "/api/models", json=body, ok=(409,))
            if resp.status_code == 409:
                existing += 1
            else:
                added += 1
    return added, existing


def load_catalog(client: httpx.Client) -> str:
    added, existing = load_models(client)
    out = import_prices(client, CATALOG_CSV.read_text(encoding="utf-8"))
    return (
        f"catalog: {added + existing} drive models ({added} added, {existing} already there); "
        f"{out['rows']} published prices ({out['imported']} imported, {out['duplicates']} "
        f"already stored), each with its source: see {CATALOG_CSV}"
    )


# --- simulated drives and their runs ---------------------------------------------------------


def create_target(path: Path, size: int) -> Path:
    """A sparse file of `size` bytes; an existing one keeps its inode (and so its serial)."""
    with open(path, "ab") as f:
        if path.stat().st_size != size:
            f.truncate(size)
    return path


def _check_name(products: list[dict[str, Any]], name: str) -> None:
    clash = [
        m
        for m in products
        if (m["vendor"].lower(), m["model"].lower()) == (SIM_VENDOR, name.lower())
    ]
    if clash:
        raise CliError(
            f"the catalog has a real product named {SIM_VENDOR} {name} (model "
            f"{clash[0]['id']}): rename it, the demo's simulated drives use that name"
        )


# How long the demo waits for the bench's worker to report a target it just made.
REPORT_WAIT_S = 60.0


def wait_reported(client: httpx.Client, bench: str, target: str, serial: str) -> None:
    """Until bench `bench`'s device report lists `target` with `serial` (the worker reports a
    new file or loop device within a second or two): drives are registered from it."""
    deadline = time.monotonic() + REPORT_WAIT_S
    seen = "no report"
    while True:
        try:
            resp = client.get(f"/api/benches/{bench}/devices")
        except httpx.TransportError as exc:
            # An api process that went away mid-answer (its supervisor starts another): asked
            # again until the deadline, like a report that does not list the drive yet.
            seen = f"no answer from the api: {exc}"
        else:
            if resp.status_code != 200:
                seen = resp.text[:200]
            else:
                entry = next(
                    (d for d in resp.json() if target in [d["path"], *d.get("links", [])]),
                    None,
                )
                if entry is not None and entry["serial"] == serial:
                    return
                seen = f"serial {entry['serial']}" if entry else "not listed"
        if time.monotonic() >= deadline:
            raise CliError(
                f"bench {bench} did not report {target} (serial {serial}) within "
                f"{REPORT_WAIT_S:.0f} s ({seen}): is its worker running? "
                f"(`drivelab devices --bench {bench}`)"
            )
        time.sleep(0.25)


def _register(
    client: httpx.Client, bench: str, name: str, target: str, info: Any, interface: str
) -> dict[str, Any]:
    wait_reported(client, bench, target, info.serial)
    drive = call(
        client,
        "POST",
        "/api/drives",
        {
            "bench": bench,
            "target_path": target,
            "serial": info.serial,
            "vendor": SIM_VENDOR,
            "model": name,
            "capacity_bytes": info.size_bytes,
            "firmware": "sim",
            "interface": interface,
            "simulated": True,
        },
    )
    if not drive["simulated"]:
        raise CliError(
            f"drive {drive['id']} was registered under model {drive['model']['id']}, which "
            "is not a simulated one: its results would count for a real product"
        )
    return dict(drive)


def register_drives(
    client: httpx.Client, bench: str, sandbox: Path, count: int, size: int
) -> list[dict[str, Any]]:
    """Sparse files in the sandbox, where simulated drives cannot run (no root or cgroups)."""
    from worker.devices import identify_file

    products = call(client, "GET", "/api/models?simulated=false")
    drives = []
    for letter in LETTERS[:count]:
        name = f"Simulated drive {letter}"
        _check_name(products, name)
        # The size is in the name: another size is another drive, with a history of its own.
        path = sandbox / f"demo-{letter.lower()}-{format_size(size)}.img"
        target = create_target(path, size)
        info = identify_file(str(target))
        drives.append(_register(client, bench, name, str(target), info, "file"))
    return drives


def start_sim_drives(
    client: httpx.Client, bench: str, count: int, size: int, workdir: Path
) -> tuple[list[dict[str, Any]], list[Any]]:
    """Simulated drives (worker.sim: loop devices over tmpfs files shaped by the kernel's block
    throttle), each with its own SLC cache, consistency cliff and stalls; they run until
    `stop_sim_drives`."""
    from worker.devices import identify
    from worker.sim.controller import SimDrive
    from worker.sim.profile import DEMO_PROFILES

    products = call(client, "GET", "/api/models?simulated=false")
    drives, sims = [], []
    try:
        for letter in LETTERS[:count]:
            name = f"Simulated drive {letter}"
            _check_name(products, name)
            profile = DEMO_PROFILES[f"demo-{letter.lower()}"]
            sim = SimDrive(profile, size, workdir, label=name).start()
            sims.append(sim)
            assert sim.state is not None
            info = identify(sim.device)
            drives.append(_register(client, bench, name, sim.state.target, info, "loop"))
    except BaseException:
        stop_sim_drives(sims)
        raise
    return drives, sims


def stop_sim_drives(sims: list[Any]) -> None:
    for sim in sims:
        sim.stop()


def plan_params(plan: dict[str, Any], wanted: dict[str, Any]) -> dict[str, Any]:
    """The wanted parameters the plan's schema has (a renamed one is skipped, not sent)."""
    known = plan["params_schema"].get("properties", {})
    missing = sorted(set(wanted) - set(known))
    if missing:
        print(
            f"demo: plan {plan['key']} has no parameter {', '.join(missing)}: using its default",
            file=sys.stderr,
        )
    return {k: v for k, v in wanted.items() if k in known}


def queue_runs(
    client: httpx.Client, drives: list[dict[str, Any]], profile: Profile
) -> list[dict[str, Any]]:
    plans = {p["key"]: p for p in call(client, "GET", "/api/plans")}
    absent = sorted({k for k in PLANS if k not in plans})
    if absent:
        raise CliError(f"the api has no plan {', '.join(absent)}: is it an older version?")
    runs = []
    for drive in drives:
        for key, extra in RUNS:
            runs.append(
                call(
                    client,
                    "POST",
                    "/api/runs",
                    {
                        "plan": key,
                        "drive_id": drive["id"],
                        "params": plan_params(plans[key], {**profile.params.get(key, {}), **extra}),
                        "confirm_serial": drive["serial"],
                    },
                )
            )
    return runs


def wait_runs(
    client: httpx.Client, run_ids: list[int], *, timeout: float, quiet: bool = False
) -> list[dict[str, Any]]:
    """Poll until every run has ended, with one rich progress bar (redrawn in place on a
    terminal; elsewhere a line now and then)."""
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn

    err = console(stderr=True)
    live = not quiet and err.is_terminal
    bar = Progress(
        TextColumn("demo"),
        BarColumn(),
        TaskProgressColumn(text_format="{task.percentage:5.1f}%"),
        TextColumn("{task.description}"),
        console=err,
        disable=not live,
    )
    task = bar.add_task("", total=1.0)
    deadline = time.monotonic() + timeout
    bar.start()
    try:
        return _poll(client, run_ids, bar, task, deadline, timeout, quiet, live)
    finally:
        bar.stop()


def _poll(
    client: httpx.Client,
    run_ids: list[int],
    bar: Any,
    task: Any,
    deadline: float,
    timeout: float,
    quiet: bool,
    live: bool,
) -> list[dict[str, Any]]:
    err = console(stderr=True)
    last, last_print = "", 0.0
    while True:
        runs = [poll(client, f"/api/runs/{i}") for i in run_ids]
        ended = sum(r["status"] in FINAL for r in runs)
        progress = sum(r["progress"] if r["status"] not in FINAL else 1.0 for r in runs)
        running = [r for r in runs if r["status"] == "running"]
        now = ", ".join(f"run {r['id']} {r['plan']}" for r in running[:3])
        words = f"{ended}/{len(runs)} runs ended" + (f"; running {now}" if now else "")
        fraction = progress / len(runs)
        if live:
            bar.update(task, completed=fraction, description=words)
        elif not quiet:
            line = f"demo {fraction * 100:5.1f}% {words}"
            if line != last and (time.monotonic() - last_print > 2 or ended == len(runs)):
                err.print(line)
                last, last_print = line, time.monotonic()
        if ended == len(runs):
            return runs
        if time.monotonic() > deadline:
            raise CliError(
                f"the demo's runs did not end within {timeout:.0f} s; they keep running: "
                "see `drivelab api /api/runs/ID`"
            )
        time.sleep(1.0)


# --- the command -----------------------------------------------------------------------------


def cmd_demo(args: argparse.Namespace) -> int:
    profile = QUICK if args.quick else STANDARD
    size = parse_size(args.size or profile.size)
    if not 1 <= args.drives <= len(LETTERS):
        raise CliError(f"--drives {args.drives}: the demo sets up 1 to {len(LETTERS)} drives")
    sandbox = Path(args.sandbox).resolve() if args.sandbox else _data_dir(args) / "targets"
    with api_client(args) as client:
        call(client, "GET", "/api/health")
        if not args.no_catalog:
            print(load_catalog(client), flush=True)
        if args.no_runs:
            return 0
        bench = next(
            (b for b in call(client, "GET", "/api/benches") if b["name"] == args.bench), None
        )
        if bench is None or not bench["online"]:
            state = "is offline" if bench else "does not exist"
            raise CliError(
                f"bench {args.bench} {state}: start `drivelab up` (it runs the local worker), "
                "or pass --no-runs for the catalog only"
            )
        from worker.sim.controller import requirements

        missing = [] if args.sparse else requirements()
        sims: list[Any] = []
        if args.sparse or missing:
            if missing:
                print(
                    "demo: no simulated drives here (missing: " + "; ".join(missing) + "): "
                    "sparse files instead, whose charts show no step-downs, stalls or "
                    "drop-off (`drivelab sim check` says more)",
                    flush=True,
                )
            if not sandbox.is_dir():
                raise CliError(
                    f"no sandbox directory {sandbox}: run the demo on the machine where "
                    "`drivelab up` runs (same --data-dir), or pass the worker's --sandbox"
                )
            drives = register_drives(client, args.bench, sandbox, args.drives, size)
            kind = "sparse file"
        else:
            workdir = _data_dir(args) / "sim"
            workdir.mkdir(parents=True, exist_ok=True)
            drives, sims = start_sim_drives(client, args.bench, args.drives, size, workdir)
            kind = "simulated drive: a loop device shaped by the kernel's block throttle"
        try:
            runs = queue_runs(client, drives, profile)
            for d in drives:
                print(
                    f"simulated drive {d['id']}: {d['label']} at {d['target_path']} "
                    f"({human_bytes(d['model']['capacity_bytes'])} {kind})"
                )
            ids = [r["id"] for r in runs]
            print(
                f"queued {len(ids)} runs ({', '.join(dict.fromkeys(PLANS))} on each): "
                f"{ids[0]}..{ids[-1]}",
                flush=True,
            )
            if sims:
                print(
                    "the simulated drives run as long as this command: waiting for the runs "
                    "(Ctrl-C cancels them)",
                    flush=True,
                )
            elif not args.wait:
                print(f"watch them at {client.base_url}/ or rerun with --wait")
                return 0
            try:
                final = wait_runs(client, ids, timeout=args.timeout)
            except KeyboardInterrupt:
                for i in ids:
                    request(client, "POST", f"/api/runs/{i}/cancel", ok=(409,))
                raise
        finally:
            stop_sim_drives(sims)
    _table(
        [[str(r["id"]), r["drive_label"], r["plan"], r["status"], r["error"] or ""] for r in final],
        ["RUN", "DRIVE", "PLAN", "STATUS", "ERROR"],
    )
    return 0 if all(r["status"] == "done" for r in final) else 1


DESCRIPTION = __doc__.split("\n\n", 1)[1] if __doc__ else ""


def add_parser(sub: Any) -> None:
    """Register `drivelab demo` on the CLI's subcommands."""
    p = sub.add_parser(
        "demo",
        help="load a catalog with published prices and run shortened plans on simulated drives",
        description="Fill drivelab with demo data.\n\n" + DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  drivelab demo --wait              3 drives of 1 GiB, a few "
        "minutes\n  drivelab demo --drives 2 --quick  2 drives of 256 MiB, seconds per test"
        "\n  drivelab demo --no-runs           the catalog and prices only\n"
        "Running it again adds no duplicate models or prices; it queues new runs.",
    )
    p.add_argument(
        "--drives", type=int, default=3, help="simulated drives to set up, 1 to 3 (default 3)"
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="smallest sizes and durations: 256 MiB targets, 1-3 s per test",
    )
    p.add_argument(
        "--size", help="size of each simulated drive in fio syntax (default 1g; 256m with --quick)"
    )
    p.add_argument(
        "--wait",
        action="store_true",
        help="wait for the runs, with a progress line (always, with simulated drives)",
    )
    p.add_argument(
        "--sparse",
        action="store_true",
        help="use sparse files even where simulated drives can run (no root or cgroups needed)",
    )
    p.add_argument(
        "--timeout", type=float, default=1800, help="seconds --wait waits at most (1800)"
    )
    p.add_argument("--no-catalog", action="store_true", help="skip the catalog and prices")
    p.add_argument("--no-runs", action="store_true", help="skip the simulated drives and runs")
    p.add_argument("--bench", default="local", help="bench of the simulated drives (local)")
    p.add_argument(
        "--sandbox", help="the bench worker's sandbox directory (default DATA_DIR/targets)"
    )
    p.add_argument("--api", help="api URL (default: from `drivelab up`'s credentials)")
    p.set_defaults(func=cmd_demo)
