"""The `drivelab` command."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
from pydantic import ValidationError
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn
from rich.table import Table
from rich.text import Text

from backend.core.settings import Settings, WorkerSettings, default_data_dir

FINAL = ("done", "failed", "cancelled", "lost")


class CliError(Exception):
    pass


# --- talking to the api --------------------------------------------------------------------


def _data_dir(args: argparse.Namespace) -> Path:
    d = args.data_dir or os.environ.get("DRIVELAB_DATA_DIR")
    return Path(d).expanduser().resolve() if d else default_data_dir()


class ApiClient(httpx.Client):
    """An http client for the api that knows where its token came from, to say so when the
    api refuses it."""

    token_source: str = ""


def api_client(args: argparse.Namespace) -> httpx.Client:
    """An http client with the api URL and token from --api/--token, the environment, or the
    credentials `drivelab up` wrote into the data directory."""
    url = getattr(args, "api", None) or os.environ.get("DRIVELAB_API_URL")
    token = os.environ.get("DRIVELAB_USER_TOKEN")
    source = "DRIVELAB_USER_TOKEN" if token else ""
    creds_file = _data_dir(args) / "credentials.json"
    if creds_file.exists():
        creds = json.loads(creds_file.read_text())
        url = url or creds.get("api_url")
        if not token and creds.get("token"):
            token, source = creds["token"], str(creds_file)
    if not url:
        raise CliError(
            f"no api to talk to: start one with `drivelab up` (no credentials in {creds_file}), "
            "or pass --api URL"
        )
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    client = ApiClient(base_url=url.rstrip("/"), headers=headers, timeout=30)
    client.token_source = source or f"none: no DRIVELAB_USER_TOKEN, no {creds_file}"
    return client


def _refused(client: httpx.Client, status: int, detail: str) -> str:
    """What to do when the api refuses the CLI's credentials (401) or their role (403)."""
    source = getattr(client, "token_source", "")
    where = (
        "The CLI signs in with an API token: on the machine where `drivelab up` runs it reads "
        "the admin token `up` writes to DATA_DIR/credentials.json (--data-dir or "
        "DRIVELAB_DATA_DIR); elsewhere set DRIVELAB_USER_TOKEN to a token of yours (Admin page, "
        "Users, Tokens; or POST /api/auth/tokens)"
    )
    if status == 401:
        return (
            f"the api at {client.base_url} needs a signed-in user ({detail}). {where}. "
            f"Token used: {source}."
        )
    return f"{detail} (token from {source})"


def call(client: httpx.Client, method: str, path: str, body: Any = None) -> Any:
    try:
        resp = client.request(method, path, json=body)
    except httpx.TransportError as exc:
        raise CliError(
            f"cannot reach the api at {client.base_url}: {exc} (is `drivelab up` running?)"
        ) from None
    return _answer(client, method, path, resp)


# A wait (`--wait`) rides out an api that does not answer for a while (a busy host, an api
# process restarting, a proxy's 502 meanwhile): it says so once and asks again, for up to
# WAIT_PATIENCE_S; the run goes on at the bench whatever the CLI sees.
WAIT_PATIENCE_S = 300.0
WAIT_RETRY_S = 2.0
PASSING = (500, 502, 503, 504)


def poll(client: httpx.Client, path: str, *, patience_s: float = WAIT_PATIENCE_S) -> Any:
    """GET `path` for a wait: like `call`, but an api that cannot be reached, times out or
    answers 500/502/503/504 is asked again every WAIT_RETRY_S for up to `patience_s`."""
    since: float | None = None
    while True:
        try:
            resp = client.request("GET", path)
        except httpx.TransportError as exc:
            problem = f"{exc.__class__.__name__}: {exc}"
        else:
            if resp.status_code not in PASSING:
                if since is not None:
                    console(stderr=True).print(f"the api answers again (GET {path})")
                return _answer(client, "GET", path, resp)
            problem = f"HTTP {resp.status_code}"
        now = time.monotonic()
        if since is None:
            since = now
            console(stderr=True).print(
                f"the api at {client.base_url} did not answer GET {path} ({problem}): asking "
                f"again for up to {patience_s:.0f} s; the run goes on meanwhile"
            )
        elif now - since >= patience_s:
            raise CliError(
                f"the api at {client.base_url} has not answered GET {path} for "
                f"{patience_s:.0f} s ({problem}); the run goes on at its bench: see it later "
                f"with `drivelab api {path}`"
            )
        time.sleep(WAIT_RETRY_S)


def _answer(client: httpx.Client, method: str, path: str, resp: httpx.Response) -> Any:
    if resp.status_code >= 400:
        try:
            detail = resp.json().get("detail", resp.text)
        except ValueError:
            detail = resp.text
        if resp.status_code in (401, 403):
            detail = _refused(client, resp.status_code, str(detail))
        raise CliError(f"{method} {path} failed ({resp.status_code}): {detail}")
    if not resp.content:
        return None
    return resp.json()


def _print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, default=str))


def _gb(n: int) -> str:
    return f"{n / 1e9:.1f} GB"


def console(*, stderr: bool = False) -> Console:
    """Where the CLI writes, with rich: on a terminal at its width, in colour; piped or
    captured, plain text with lines never wrapped (a script reads whole rows and messages),
    and never markup: a drive's "[simulated]" is text, not a style."""
    stream = sys.stderr if stderr else sys.stdout
    tty = stream.isatty()
    return Console(
        file=stream,
        soft_wrap=True,
        highlight=False,
        markup=False,
        emoji=False,
        width=None if tty else 10_000,
        color_system="auto" if tty else None,
    )


def _numeric(column: list[str]) -> bool:
    cells = [c for c in column if c not in ("", "-", "—")]
    return bool(cells) and all(c.replace(",", "").replace(".", "", 1).isdigit() for c in cells)


def _table(rows: list[list[str]], header: list[str]) -> None:
    """Rows under a header, columns aligned (numbers to the right), as a rich Table."""
    table = Table(box=None, pad_edge=False, header_style="bold", show_edge=False)
    for i, name in enumerate(header):
        right = _numeric([str(r[i]) for r in rows])
        table.add_column(name, justify="right" if right else "left", no_wrap=True)
    for r in rows:
        table.add_row(*(Text(str(c)) for c in r))
    console().print(table)


def error(message: str) -> None:
    """`drivelab: what went wrong and what to do`, on stderr (in red on a terminal)."""
    err = console(stderr=True)
    err.print(Text("drivelab: ", style="bold red") + Text(message))


# --- commands ------------------------------------------------------------------------------


def cmd_up(args: argparse.Namespace) -> None:
    if not args.verbose:
        # alembic logs its plugins as it is imported, with backend.up
        logging.getLogger("alembic").setLevel(logging.WARNING)
    from backend.up import up

    overrides: dict[str, Any] = {}
    if args.data_dir:
        overrides["data_dir"] = args.data_dir
    if args.host is not None:  # --host "" is refused, not taken for the default
        overrides["host"] = args.host
    if args.port:
        overrides["port"] = args.port
    if args.sim_size:
        overrides["sim_drive_size"] = args.sim_size
    if args.api_workers is not None:
        overrides["api_workers"] = args.api_workers
    try:
        settings = Settings(**overrides)
    except ValidationError as exc:
        raise SystemExit(settings_problems(exc)) from None
    up(settings, with_worker=not args.no_worker, verbose=args.verbose)


def settings_problems(exc: ValidationError) -> str:
    """A setting's bad value said as the setting a user sets (its environment variable or
    `up`'s option), what is wrong and the value given."""
    lines = []
    for err in exc.errors():
        name = ".".join(str(p) for p in err.get("loc", ()))
        option = f" (or --{name.replace('_', '-')})" if name in UP_OPTIONS else ""
        lines.append(f"DRIVELAB_{name.upper()}{option}: {err.get('msg')}, got {err.get('input')!r}")
    return "invalid settings:\n  " + "\n  ".join(lines)


UP_OPTIONS = {"host", "port", "api_workers"}


def cmd_worker(args: argparse.Namespace) -> None:
    from worker.main import run_worker

    overrides: dict[str, Any] = {"bench": args.bench}
    keys = ("api_url", "token", "broker_url", "broker_ca", "broker_cert", "broker_key")
    for key in (*keys, "sandbox_dir", "concurrency"):
        value = getattr(args, key)
        if value is not None:
            overrides[key] = value
    if args.data_dir:
        overrides["data_dir"] = args.data_dir
    run_worker(WorkerSettings(**overrides))


def cmd_vm_bench(args: argparse.Namespace) -> int:
    from worker.vmbench import run

    if args.dir is None and args.bench:
        # DATA_DIR as every command takes it: --data-dir, else DRIVELAB_DATA_DIR, else the default
        args.dir = _data_dir(args) / "vm-bench" / args.bench
    return run(args)


def cmd_certs(args: argparse.Namespace) -> None:
    from backend.certs import CertError, fingerprint, make_certs

    directory = Path(args.dir).expanduser().resolve()
    try:
        files = make_certs(directory, args.host, args.ip, args.days)
    except CertError as exc:
        raise CliError(str(exc)) from None
    ca_state = "made" if files.ca_created else "kept (the one already there)"
    print(f"CA {ca_state}: {files.ca_cert}  (key {files.ca_key}, readable by you only)")
    print(f"  SHA-256 fingerprint {fingerprint(files.ca_cert)}")
    print(f"server certificate for {', '.join(files.names)}: {files.server_cert}")
    print(f"  key {files.server_key} (readable by you only)")
    print(
        "Redis: --tls-port 6380 --tls-cert-file redis.pem --tls-key-file redis.key "
        "--tls-ca-cert-file ca.pem --tls-auth-clients no (docker-compose.yml mounts this "
        "directory at /tls). Each lab machine: a copy of ca.pem, then "
        "DRIVELAB_BROKER_CA=/path/to/ca.pem and DRIVELAB_BROKER_URL=rediss://:PASSWORD@"
        f"{files.names[0]}:6380/0. Keep ca.key off the network; it signs new certificates."
    )


def cmd_migrate(args: argparse.Namespace) -> None:
    from backend.core.migrate import upgrade

    url = Settings().database_url
    if not url:
        raise CliError("set DRIVELAB_DATABASE_URL to the database to migrate")
    upgrade(url)
    print("database is at the latest schema")


def cmd_plans(args: argparse.Namespace) -> None:
    with api_client(args) as client:
        plans = call(client, "GET", "/api/plans")
    if args.json:
        _print_json(plans)
        return
    for p in plans:
        flag = "  [writes to the drive]" if p["destructive"] else ""
        print(f"{p['key']}: {p['title']}{flag}")
        print(f"    {p['description']}")
        for name, prop in p["params_schema"].get("properties", {}).items():
            default = json.dumps(prop.get("default")) if "default" in prop else "-"
            print(f"    --param {name}=...  (default {default})  {prop.get('description', '')}")
        print()


def _kind_mark(drive: dict) -> str:
    """What a listing says after a drive that is not a product: " [emulated]" (a virtual
    bench's QEMU controller), " [simulated]", or nothing."""
    if drive.get("emulated"):
        return " [emulated]"
    return " [simulated]" if drive.get("simulated") else ""


def cmd_drives(args: argparse.Namespace) -> None:
    with api_client(args) as client:
        drives = call(client, "GET", "/api/drives")
    if args.json:
        _print_json(drives)
        return
    rows = [
        [
            str(d["id"]),
            d["bench"]["name"] + ("" if d["bench"]["online"] else " (offline)"),
            f"{d['model']['vendor']} {d['model']['model']}" + _kind_mark(d),
            _gb(d["model"]["capacity_bytes"]),
            d["serial"],
            d["target_path"],
            f"run {d['active_run_id']}" if d["active_run_id"] else "free",
        ]
        for d in drives
    ]
    _table(rows, ["ID", "BENCH", "MODEL", "CAPACITY", "SERIAL", "TARGET", "STATE"])


def parse_params(pairs: list[str]) -> dict[str, Any]:
    """k=v pairs; values are JSON when they parse as JSON (numbers, lists, true), else text."""
    params: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise CliError(f"--param {pair!r}: write it as name=value, e.g. --param runtime_s=5")
        try:
            params[key] = json.loads(value)
        except json.JSONDecodeError:
            params[key] = value
    return params


def _current_step(run: dict[str, Any]) -> str:
    steps = run.get("steps", [])
    for s in steps:
        if s["status"] == "running":
            return f"step {s['idx'] + 1}/{len(steps)} {s['label']}"
    return run["status"]


def wait_for(client: httpx.Client, run_id: int, *, quiet: bool) -> dict[str, Any]:
    """Poll the run until it ends, with a rich progress bar on stderr: redrawn in place on a
    terminal, a line per change of step or percent elsewhere (logs, CI)."""
    err = console(stderr=True)
    if quiet:
        while True:
            run = poll(client, f"/api/runs/{run_id}")
            if run["status"] in FINAL:
                return run
            time.sleep(1.0)
    if not err.is_terminal:
        last = ""
        while True:
            run = poll(client, f"/api/runs/{run_id}")
            line = f"run {run_id} {run['progress'] * 100:5.1f}% {_current_step(run)}"
            if line != last:
                err.print(line)
                last = line
            if run["status"] in FINAL:
                return run
            time.sleep(1.0)
    columns = (
        TextColumn(f"run {run_id}"),
        BarColumn(),
        TaskProgressColumn(text_format="{task.percentage:5.1f}%"),
        TextColumn("{task.description}"),
    )
    with Progress(*columns, console=err) as progress:
        task = progress.add_task("", total=1.0)
        while True:
            run = poll(client, f"/api/runs/{run_id}")
            progress.update(task, completed=run["progress"], description=_current_step(run))
            if run["status"] in FINAL:
                return run
            time.sleep(1.0)


def print_results(run: dict[str, Any]) -> None:
    print(f"run {run['id']} ({run['plan']} on {run['drive_label']}): {run['status']}")
    if run.get("error"):
        print(f"error: {run['error']}")
    rows = []
    for s in run["steps"]:
        by = {r["metric"]: r["value"] for r in s["results"]}
        for d in ("read", "write"):
            if f"{d}_mbps" in by:
                rows.append(
                    [
                        s["label"],
                        d,
                        f"{by[f'{d}_mbps']:.1f}",
                        f"{by[f'{d}_iops']:.0f}",
                        f"{by.get(f'{d}_lat_mean_us', 0):.1f}",
                        f"{by.get(f'{d}_lat_p99_us', 0):.1f}",
                    ]
                )
    if rows:
        _table(rows, ["TEST", "DIR", "MB/s", "IOPS", "LAT MEAN µs", "LAT P99 µs"])
    lines = findings_lines(run)
    if lines:
        print("findings:")
        for line in lines:
            print(f"  {line}")


QOS_COLUMNS = ("p50", "p99", "p99.9", "p99.99", "p99.999")


def _us(value: float | None) -> str:
    if value is None:
        return "-"
    if value >= 1e6:
        return f"{value / 1e6:.2f} s"
    if value >= 1e3:
        return f"{value / 1e3:.2f} ms"
    return f"{value:.1f} µs"


def print_qos(qos: dict[str, Any]) -> None:
    """The run's latency QoS table (GET /api/runs/{id}/qos): per step and direction, fio's
    mean and maximum and the percentiles of its histogram; "-" where the I/O count cannot
    support a percentile. A qd-sweep's figures after it."""
    rows = []
    short = False
    for s in qos.get("steps", []):
        for d, q in s["directions"].items():
            cells = [_us(q["percentiles"].get(p)) for p in QOS_COLUMNS]
            short = short or "-" in cells
            rows.append(
                [s["label"], d, f"{q['ios']:,}", _us(q["mean_us"]), *cells, _us(q["max_us"])]
            )
    if not rows:
        return
    print("latency QoS (completion latency):")
    _table(rows, ["TEST", "DIR", "I/Os", "MEAN", *(p.upper() for p in QOS_COLUMNS), "MAX"])
    if short:
        print("  - : not enough I/Os for that percentile (p99.9 needs 1,000, p99.99 10,000, "
              "p99.999 100,000)")  # fmt: skip
    sweep = qos.get("sweep")
    if sweep:
        target = _us(sweep["latency_target_us"])
        print("queue-depth sweep:")
        for w in sweep["workloads"]:
            f = w["figures"]
            under = (
                f"up to {f['iops_under_target']:.0f} IOPS (QD{f['qd_under_target']})"
                if f.get("iops_under_target") is not None
                else "no point"
            )
            low = (
                f", low-QD score {f['low_qd_iops']:.0f} IOPS (mean of QD1, 2, 4)"
                if f.get("low_qd_iops") is not None
                else ""
            )
            print(
                f"  {w['workload']}: peak {f['peak_iops']:.0f} IOPS at QD{f['peak_qd']}, "
                f"95% of it from QD{f['qd_at_share_of_peak']}, p99 under {target}: {under}{low}"
            )


# `drivelab run --wait` says where each stall was, for this many of a step's stalls.
STALLS_SAID = 8


def _heat_said(found: dict[str, Any]) -> str:
    """Whether heat explains a step-down, after it: " (heat: throttled at 78 °C ...)"."""
    from backend.analysis.thermal import heat_words  # noqa: PLC0415 - numpy only when needed

    words = heat_words(found.get("heat"))
    return f" ({words})" if words else ""


def findings_lines(run: dict[str, Any]) -> list[str]:
    """Each step's headline findings (step-downs, stalls, drop-off, steady state, XSR
    recovery), as the reviewer quotes them, from GET /api/runs/{id}."""
    out = []
    for s in run["steps"]:
        f = s.get("findings") or {}
        by = {r["metric"]: r["value"] for r in s["results"]}
        said = []
        hd = f.get("hdtach")
        if hd:
            avg = by.get(f"hdtach_{hd['direction']}_avg_mbps")
            head = f"{avg:.1f} MB/s average; " if avg is not None else ""
            if hd["step_downs"]:
                said.append(
                    head
                    + "steps down "
                    + ", ".join(
                        f"{d['from_mbps']:.1f} -> {d['to_mbps']:.1f} MB/s at {d['at_pct']:.1f}% "
                        f"({d['at_gb']:.2f} GB){_heat_said(d)}"
                        for d in hd["step_downs"]
                    )
                )
            else:
                said.append(
                    f"{head}no step-down (a drop of at least {hd['min_drop'] * 100:.0f}% "
                    f"between levels of at least {hd['min_span_pct']:g}% of the span)"
                )
        slc = f.get("slc")
        if slc:
            # The cache (fill) or the cache recovered (refill), in the finding's own words.
            text = ("cache: " if slc["kind"] == "fill" else "recovered: ") + slc.get("note", "")
            if slc.get("idle_measured_s") is not None:
                text += f" (after {slc['idle_measured_s']:.1f} s idle, measured)"
            said.append(text)
        bursts = f.get("bursts")
        if bursts:
            # The test's mean over its bursts and their spread, in the finding's own words.
            said.append(bursts.get("note", ""))
        mixed = f.get("mixed")
        if mixed:
            # MB/s at each share of writes, then the finding's own words.
            said.append(
                "MB/s by share of writes: "
                + ", ".join(f"{p['write_pct']}% {p['mbps']:.1f}" for p in mixed["points"])
                + "; "
                + mixed.get("note", "")
            )
        fc = f.get("file_copy")
        if fc:
            # The copies in the finding's own words, each standstill of the repeated copy timed.
            said.append("; ".join(fc["words"]))
            still = fc["repeated"]["standstills"]
            if still:
                said.append(
                    "repeated copy stood still at "
                    + ", ".join(
                        f"{x['start_s']:.1f} s for {x['duration_s']:.1f} s"
                        for x in still[:STALLS_SAID]
                    )
                    + (f" and {len(still) - STALLS_SAID} more" if len(still) > STALLS_SAID else "")
                )
        asssd = f.get("asssd")
        if asssd:
            # The AS-SSD-style table in one line, and where its score's weights come from.
            said.append(f"{asssd['words']}; score {asssd['score_source']}")
        fs = f.get("fullstate")
        if fs:
            # Plan full-drive: the test's drop from empty to full, in the finding's words.
            said.append(fs["said"])
        st = f.get("stalls")
        if st:
            if st["count"]:
                # Two stalls have one gap: too few to tell a cadence from chance.
                regular = " (regular)" if st["period_regular"] else " (irregular)"
                cadence = (
                    f", one every {st['period_s']:.2f} s" + (regular if st["count"] > 2 else "")
                    if st["period_s"]
                    else ""
                )
                each = st.get("stalls") or []
                where = ", ".join(
                    f"{x['start_s']:.2f} s for {x['duration_s']:.2f} s" for x in each[:STALLS_SAID]
                )
                if len(each) > STALLS_SAID:
                    where += f" and {len(each) - STALLS_SAID} more"
                text = (
                    f"{st['count']} stall{'s' if st['count'] != 1 else ''} of at least "
                    f"{st['min_stall_s']:g} s: longest {st['longest_s']:.2f} s, total "
                    f"{st['total_s']:.2f} s{cadence}" + (f"; at {where}" if where else "")
                )
            else:
                text = f"no stall of {st['min_stall_s']:g} s or more"
            if st.get("short_count"):
                text += f"; {st['short_count']} shorter"
            said.append(f"{text} (from the {st['source']})")
        drop = f.get("dropoff")
        if drop and drop["dropoff_s"] is not None:
            said.append(
                f"drop-off at {drop['dropoff_s']:.1f} s: {drop['fob_iops']:.0f} -> "
                f"{drop['after_iops']:.0f} IOPS{_heat_said(drop)}"
            )
        elif drop:
            said.append("no drop-off below half the fresh-out-of-box level")
        if "iops_mean_last400" in by:
            said.append(
                f"last 400 s: {by['iops_mean_last400']:.0f} IOPS mean, "
                f"{by.get('iops_stddev_last400', 0):.0f} stddev, "
                f"{by.get('iops_min_last400', 0):.0f} minimum"
            )
        if "xsr_settled_mbps" in by:
            text = f"settled at {by['xsr_settled_mbps']:.1f} MB/s"
            if "xsr_recovery_s" in by:
                text += f", {by['xsr_recovery_s']:.1f} s after the transition (recovery time)"
            said.append(text)
        di = f.get("demand_intensity")
        if di:
            # Demand intensity (DIRTH, ECW): the maximum, middle and minimum IOPS points.
            said.append(di["finding"])
        if "cbw_iops" in by:
            said.append(
                f"composite workload: {by['cbw_iops']:.0f} IOPS, {by.get('cbw_mbps', 0):.1f} "
                f"MB/s, ART {by.get('cbw_lat_mean_us', 0) / 1000:.2f} ms, MRT "
                f"{by.get('cbw_lat_max_us', 0) / 1000:.2f} ms"
            )
        if "ss_steady" in by:
            rounds = int(by.get("ss_rounds", 0))
            said.append(
                f"steady state reached at round {int(by['ss_round'])} of {rounds}"
                if by["ss_steady"] and "ss_round" in by
                else f"steady state not reached in {rounds} rounds"
            )
        out += [f"{s['label']}: {line}" for line in said]
    return out


def _repeat(args: argparse.Namespace) -> dict[str, Any] | None:
    if args.until_stable:
        return {
            "until_stable": True,
            "max_runs": args.max_runs,
            "min_runs": args.min_runs,
            "rsd_pct": args.rsd,
        }
    return {"times": args.repeat} if args.repeat else None


def wait_series(client: httpx.Client, run: dict[str, Any], *, quiet: bool) -> int:
    """Follow a series' repeats one by one, then print how stable its figures were."""
    series_id = run["series_id"]
    while True:
        run = wait_for(client, run["id"], quiet=quiet)
        series = poll(client, f"/api/series/{series_id}")
        if series["status"] != "running":
            break
        later = [r for r in series["runs"] if r["series_index"] > run["series_index"]]
        while not later:
            time.sleep(1.0)
            series = poll(client, f"/api/series/{series_id}")
            later = [r for r in series["runs"] if r["series_index"] > run["series_index"]]
            if series["status"] != "running":
                break
        if not later:
            break
        run = later[0]
        if not quiet:
            print(f"repeat {run['series_index']}: run {run['id']}", flush=True)
    if quiet:
        _print_json(series)
    else:
        print(f"series {series_id}: {series['status']}: {series['reason']}")
        for f in series["figures"]:
            values = ", ".join(f"{v:,.1f}" for v in f["values"])
            rsd = "-" if f["rsd_pct"] is None else f"{f['rsd_pct']:.2f}%"
            print(f"  {f['name']} ({f['unit']}): {values}  RSD {rsd}")
    return 0 if series["status"] in ("stable", "done") else 1


def cmd_firmware(args: argparse.Namespace) -> None:
    """A drive model's figures by firmware version, each change called only when significant;
    with --drive and --versions, that drive's two versions as an article's headline."""
    if args.versions:
        if args.drive is None:
            raise CliError("--versions compares one drive's versions: give it with --drive ID")
        _firmware_article(args)
        return
    if args.model is None:
        raise CliError("give --model ID (GET /api/models), or --drive ID --versions A B")
    with api_client(args) as client:
        found = call(client, "GET", f"/api/models/{args.model}/firmware")
    if args.json:
        _print_json(found)
        return
    versions = ", ".join(f"{f['firmware']} ({f['runs']} runs)" for f in found["firmwares"])
    print(f"{found['label']}: firmware {versions or 'none run yet'}")
    if not found["metrics"]:
        print("no figure was measured alike on two firmware versions yet")
        return
    rows = []
    for m in found["metrics"]:
        for ch in m["changes"]:
            diff = "-" if ch["diff_pct"] is None else f"{ch['diff_pct']:+.1f}%"
            ci = "" if ch["low_pct"] is None else f" [{ch['low_pct']:+.1f}, {ch['high_pct']:+.1f}]"
            rows.append(
                [
                    m["names"]["title"],
                    f"{ch['from_firmware']} -> {ch['to_firmware']}",
                    diff + ci,
                    ch["verdict"] or "-",
                ]
            )
    _table(rows, ["FIGURE", "FIRMWARE", "CHANGE [95% CI]", "VERDICT"])
    print(found["method"])


def _firmware_article(args: argparse.Namespace) -> None:
    """The headline of GET /api/compare/article for one drive's firmware versions, the last
    under review: each version's figure and the reviewed one's difference with its verdict."""
    base, reviewed = args.versions
    query = urlencode([("drives", args.drive), ("firmware", base), ("firmware", reviewed)])
    with api_client(args) as client:
        found = call(client, "GET", f"/api/compare/article?{query}")
    if args.json:
        _print_json(found)
        return
    cols = {d["firmware"]: str(d["id"]) for d in found["drives"]}
    a, b = (cols.get(fw, "") for fw in (base, reviewed))
    name = found["drives"][-1]["name"].rsplit(" (fw ", 1)[0]
    print(f"{name}: firmware {reviewed} vs {base} (each version's runs, compared as two drives)")
    rows = []
    for row in found["headline"]:
        diff = row["diff"].get(a)
        change, verdict = "-", "-"
        if diff is not None:
            ci = "" if diff["low_pct"] is None else (
                f" [{diff['low_pct']:+.1f}, {diff['high_pct']:+.1f}]"
            )  # fmt: skip
            change, verdict = f"{diff['pct']:+.1f}%{ci}", diff["verdict"]
        rows.append([row["label"], row["cells"][a]["text"], row["cells"][b]["text"], change,
                     verdict])  # fmt: skip
    _table(rows, ["FIGURE", base, reviewed, f"{reviewed} VS {base} [95% CI]", "VERDICT"])


def cmd_run(args: argparse.Namespace) -> int:
    params = parse_params(args.param or [])
    with api_client(args) as client:
        plan = call(client, "GET", f"/api/plans/{args.plan}")
        confirm = args.confirm_serial
        if plan["destructive"] and confirm is None:
            drive = call(client, "GET", f"/api/drives/{args.drive}")
            if not sys.stdin.isatty():
                raise CliError(
                    f"plan {args.plan} writes to drive {args.drive} ({drive['label']}) and erases "
                    f"it: pass --confirm-serial {drive['serial']} to confirm"
                )
            confirm = input(
                f"{args.plan} erases drive {args.drive} ({drive['label']}).\n"
                "Type its serial to confirm: "
            ).strip()
        run = call(
            client,
            "POST",
            "/api/runs",
            {
                "plan": args.plan,
                "drive_id": args.drive,
                "params": params,
                "confirm_serial": confirm,
                **({"repeat": repeat} if (repeat := _repeat(args)) else {}),
            },
        )
        if not args.json:
            print(f"queued run {run['id']}: {run['plan']} on {run['drive_label']}", flush=True)
        qos = None
        if args.wait and run.get("series_id"):
            return wait_series(client, run, quiet=args.json)
        if args.wait:
            run = wait_for(client, run["id"], quiet=args.json)
            if not args.json:
                try:
                    qos = call(client, "GET", f"/api/runs/{run['id']}/qos")
                except CliError:
                    qos = None  # an api of an earlier release: no QoS table
    if args.json:
        _print_json(run)
    elif args.wait:
        print_results(run)
        if qos:
            print_qos(qos)
    return 0 if not args.wait or run["status"] == "done" else 1


def cmd_api(args: argparse.Namespace) -> None:
    method, path = ("GET", args.method) if args.path is None else (args.method.upper(), args.path)
    if not path.startswith("/"):
        path = "/" + path
    body = json.loads(args.data) if args.data else None
    with api_client(args) as client:
        _print_json(call(client, method, path, body))


def cmd_benches_add(args: argparse.Namespace) -> None:
    with api_client(args) as client:
        out = call(client, "POST", "/api/benches", {"name": args.name})
    worker = out["worker"]
    lines = worker["lines"]
    if args.broker:
        lines = _with_broker(lines, args.broker)
    print(f"bench {out['name']} registered. Its worker token (shown once):\n{out['token']}")
    print(
        "\nStart its worker with these lines (the token goes in the environment: on a command "
        "line `ps` would show it to everyone on the machine):"
    )
    print("\n".join(f"  {ln}" for ln in lines))
    if worker["notes"]:
        print("(" + "; ".join(worker["notes"]) + ")")


def _with_broker(lines: list[str], url: str) -> list[str]:
    """The worker lines with another broker URL: with the CA line a rediss:// one needs, and
    without it for a plain one (the worker refuses a CA it would not use)."""
    from backend.benches.service import WORKER_CA_PATH

    broker, ca = "export DRIVELAB_BROKER_URL=", "export DRIVELAB_BROKER_CA="
    out = []
    for ln in lines:
        if ln.startswith(ca):
            continue
        if ln.startswith(broker):
            out.append(f"{broker}{url}")
            if url.startswith("rediss:") and "ssl_ca_certs=" not in url:
                out.append(f"{ca}{WORKER_CA_PATH}")
        else:
            out.append(ln)
    return out


def cmd_login_link(args: argparse.Namespace) -> None:
    body: dict[str, Any] = {"ttl_s": args.ttl}
    if args.user:
        body["user"] = args.user
    with api_client(args) as client:
        out = call(client, "POST", "/api/auth/links", body)
    print(f"sign in as {out['user']} (works once, until {out['expires_at']}):\n{out['url']}")


def cmd_benches(args: argparse.Namespace) -> None:
    with api_client(args) as client:
        benches = call(client, "GET", "/api/benches")
    if args.json:
        _print_json(benches)
        return
    _table(
        [
            [
                b["name"],
                "online" if b["online"] else "offline",
                str(b["last_seen_at"] or "-"),
                str(b["host_info"].get("fio_version") or "-"),
            ]
            for b in benches
        ],
        ["BENCH", "STATE", "LAST SEEN", "FIO"],
    )


def _flags(dev: dict[str, Any]) -> str:
    from backend.drives.registration import flags

    # The refusals shouted, so that a listing's reader does not pick the system disk.
    loud = ("system disk", "in use")
    return ", ".join(f.upper() if f in loud else f for f in flags(dev)) or "-"


def _registered_as(dev: dict[str, Any], drives: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The drive a reported device is registered as: the one at this name with this serial
    first. Another drive may carry the same serial (a sandbox file deleted and made again can
    get its inode number back, and so its serial) or have been registered at this name before."""
    names = [dev["path"], *(dev.get("links") or [])]
    at_name = [d for d in drives if d["target_path"] in names]
    same = [d for d in drives if d["serial"] == dev["serial"]]
    both = [d for d in at_name if d in same]
    return next(iter(both or at_name or same), None)


def cmd_devices(args: argparse.Namespace) -> None:
    """The block devices and sandbox files a bench's worker reports, with the serial each is
    registered by and whether it can be (the system disk and disks in use cannot)."""
    with api_client(args) as client:
        devices = call(client, "GET", f"/api/benches/{args.bench}/devices")
        drives = call(client, "GET", "/api/drives")
    if args.json:
        _print_json(devices)
        return
    if not devices:
        print(f"bench {args.bench} reports no block devices and no files in its sandbox")
        return
    mine = [d for d in drives if d["bench"]["name"] == args.bench]
    rows = []
    for dev in devices:
        known = _registered_as(dev, mine)
        rows.append(
            [
                dev["path"],
                dev.get("kind") or "block",
                dev.get("model") or "-",
                dev["serial"] or "-",
                _gb(int(dev.get("size_bytes") or 0)),
                dev.get("transport") or "-",
                _flags(dev),
                f"drive {known['id']}" if known else "-",
            ]
        )
    _table(
        rows,
        ["DEVICE", "KIND", "MODEL", "SERIAL", "SIZE", "TRANSPORT", "FLAGS", "REGISTERED"],
    )
    for dev in devices:
        for why in [dev.get("system"), *(dev.get("in_use") or [])]:
            if why:
                print(f"  {why}")
    print(
        f"\nregister one: drivelab drives add --bench {args.bench} --target DEVICE --vendor "
        "VENDOR --model MODEL  (serial, capacity and firmware come from this report; or on the "
        "Admin page, Benches)"
    )


def cmd_drives_add(args: argparse.Namespace) -> None:
    """Register a device the bench reports: --target alone takes its serial, capacity and
    firmware from the report; a --serial that the bench does not report is refused."""
    body = {
        "bench": args.bench,
        "target_path": args.target,
        "serial": args.serial,
        "vendor": args.vendor,
        "model": args.model,
        "capacity_bytes": args.capacity,
        "firmware": args.firmware,
        "interface": args.interface,
    }
    with api_client(args) as client:
        out = call(client, "POST", "/api/drives", {k: v for k, v in body.items() if v is not None})
    print(
        f"drive {out['id']} registered: {out['label']} at {out['target_path']} on "
        f"{out['bench']['name']}" + _kind_mark(out)
    )


# --- prices (CSV in and out; the demo lives in backend/demo.py) -----------------------------

# backend.demo imports its helpers from backend.cli: under `python -m backend.cli` this module
# is __main__, so name it backend.cli too, or the demo's CliError would be another class.
if __name__ == "__main__":
    sys.modules.setdefault("backend.cli", sys.modules[__name__])


def cmd_retention(args: argparse.Namespace) -> None:
    with api_client(args) as client:
        if args.action == "set":
            body: dict[str, Any] = {"days": None if args.days == 0 else args.days}
            if args.points is not None:
                body["points"] = args.points
            out = call(client, "PUT", "/api/admin/retention", body)
        elif args.action == "compact":
            body = {"days": args.days, "points": args.points, "limit": args.limit}
            out = call(client, "POST", "/api/admin/retention/compact", body)
            if not args.json:
                print(
                    f"{len(out['runs'])} runs compacted ({out['steps']} steps): samples "
                    f"{out['samples_before']} -> {out['samples_after']}, window-log rows "
                    f"{out['log_rows_before']} -> {out['log_points_after']} chart points"
                )
                return
        else:
            out = call(client, "GET", "/api/admin/retention")
    if args.json or args.action == "set":
        _print_json(out)
        return
    days = f"{out['days']} days" if out["days"] else "not set (everything kept)"
    print(f"retention: {days}, {out['points']} points per chart")
    if out["eligible_runs"] is not None:
        print(f"{out['eligible_runs']} finished runs are older and not compacted yet")


def cmd_prices_import(args: argparse.Namespace) -> None:
    from backend.demo import import_prices

    text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
    with api_client(args) as client:
        out = import_prices(client, text)
    print(
        f"{out['rows']} rows: {out['imported']} imported, {out['duplicates']} already stored, "
        f"{len(out['created_models'])} models added to the catalog"
    )


def cmd_prices_export(args: argparse.Namespace) -> None:
    from backend.demo import export_prices

    with api_client(args) as client:
        text = export_prices(client)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)


def _global_options(parser: argparse.ArgumentParser, default: Any) -> None:
    """--data-dir and -v, before the command (`drivelab --data-dir D up`) or after it
    (`drivelab up --data-dir D`): a command's own copy keeps the value given before it
    unless it is given again (its default is SUPPRESS)."""
    parser.add_argument(
        "--data-dir",
        default=default,
        help=f"data directory (default: DRIVELAB_DATA_DIR or {default_data_dir()})",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        default=default if default is argparse.SUPPRESS else False,
        help="debug logging, and everything the embedded servers print at start-up",
    )


class _Commands(argparse._SubParsersAction):  # type: ignore[type-arg]
    """Sub-commands that accept the global options too (and their own sub-commands)."""

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        p = super().add_parser(name, **kwargs)
        _global_options(p, argparse.SUPPRESS)
        p.register("action", "parsers", _Commands)
        return p


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="drivelab",
        description="Review-lab SSD test orchestration: queue fio test plans on bench workers, "
        "watch them live, compare drives. --data-dir and -v go before or after the command.",
    )
    _global_options(parser, None)
    parser.register("action", "parsers", _Commands)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser(
        "up",
        help="start everything on this machine (embedded PostgreSQL and "
        "Redis unless DRIVELAB_DATABASE_URL / DRIVELAB_REDIS_URL are set)",
    )
    p.add_argument("--host", help="address to serve on (default 127.0.0.1)")
    p.add_argument("--port", type=int, help="port (default 8000)")
    p.add_argument("--sim-size", help="size of the simulated drive (default 8g = 8 GiB)")
    p.add_argument("--no-worker", action="store_true", help="do not start the local worker")
    p.add_argument(
        "--api-workers",
        type=int,
        metavar="N",
        help="api processes (DRIVELAB_API_WORKERS; default one per core)",
    )
    p.set_defaults(func=cmd_up)

    p = sub.add_parser("worker", help="run a bench worker (one per lab machine)")
    p.add_argument("--bench", required=True, help="bench name; consumes queue bench.NAME")
    p.add_argument("--api", dest="api_url", help="api URL (DRIVELAB_API_URL)")
    p.add_argument(
        "--token",
        help="the bench's token; prefer DRIVELAB_TOKEN in the environment: a command line "
        "is shown by `ps` to everyone on the machine",
    )
    p.add_argument(
        "--broker",
        dest="broker_url",
        help="redis://... or, across a lab network, rediss://... (TLS) (DRIVELAB_BROKER_URL)",
    )
    p.add_argument(
        "--broker-ca",
        metavar="FILE",
        help="the lab's CA certificate (ca.pem from `drivelab certs`) that the rediss:// "
        "broker's certificate must verify against (DRIVELAB_BROKER_CA)",
    )
    p.add_argument(
        "--broker-cert",
        metavar="FILE",
        help="this worker's client certificate, for a Redis that requires one "
        "(DRIVELAB_BROKER_CERT)",
    )
    p.add_argument("--broker-key", metavar="FILE", help="its private key (DRIVELAB_BROKER_KEY)")
    p.add_argument(
        "--sandbox",
        dest="sandbox_dir",
        help="directory where file targets may live (default DATA_DIR/targets)",
    )
    p.add_argument("--concurrency", type=int, help="runs at once on different drives (4)")
    p.set_defaults(func=cmd_worker)

    p = sub.add_parser(
        "vm-bench",
        help="run a virtual bench: a QEMU guest with an emulated NVMe controller (two "
        "namespaces) and SATA disk, running this bench's worker (functional checks, no "
        "performance figures)",
        description="Boots a QEMU guest (KVM when it works here, else TCG: about a minute) "
        "whose own Linux drivers, nvme-cli, smartctl and hdparm talk to QEMU's NVMe controller "
        "and AHCI disk as to hardware, and runs `drivelab worker --bench NAME` in it, reaching "
        "the api and broker on this host as a lab machine would. Needs `make vm-tools`. "
        "Register a bench first with `drivelab benches add NAME`; Ctrl-C stops the guest.",
    )
    from worker.vmbench import add_arguments as vm_bench_arguments

    vm_bench_arguments(p)
    p.set_defaults(func=cmd_vm_bench)

    p = sub.add_parser(
        "certs",
        help="make the broker's TLS certificates: a CA (kept when there is one) and a "
        "certificate for the Redis host",
        description="Writes ca.pem (for every lab machine), ca.key, redis.pem and redis.key "
        "(for Redis's tls-cert-file / tls-key-file) into DIR; the keys readable by their "
        "owner only. Run again to issue a new server certificate from the same CA.",
    )
    p.add_argument(
        "--dir",
        default="broker-certs",
        help="where to write them (default ./broker-certs, which docker-compose.yml mounts)",
    )
    p.add_argument(
        "--host",
        action="append",
        default=[],
        metavar="NAME",
        help="a name lab machines reach the broker by (repeat for several)",
    )
    p.add_argument(
        "--ip", action="append", default=[], metavar="ADDRESS", help="an address, likewise"
    )
    p.add_argument("--days", type=int, default=825, help="the server certificate's lifetime (825)")
    p.set_defaults(func=cmd_certs)

    p = sub.add_parser("migrate", help="apply database migrations (DRIVELAB_DATABASE_URL)")
    p.set_defaults(func=cmd_migrate)

    listings = {}
    for name, func, text in (
        ("plans", cmd_plans, "list the test plans and their parameters"),
        ("drives", cmd_drives, "list the drives on every bench"),
        ("benches", cmd_benches, "list the benches"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("--json", action="store_true", help="print the api's JSON")
        p.add_argument("--api", help="api URL (default: from `drivelab up`'s credentials)")
        p.set_defaults(func=func)
        listings[name] = p

    p = sub.add_parser(
        "firmware",
        help="a drive model's figures by firmware version: improvements and regressions",
    )
    p.add_argument("--model", type=int, help="drive model id (GET /api/models)")
    p.add_argument("--drive", type=int, help="with --versions: the drive (GET /api/drives)")
    p.add_argument(
        "--versions",
        nargs=2,
        metavar=("A", "B"),
        help="the drive's firmware A and B as an article's headline, B under review",
    )
    p.add_argument("--json", action="store_true", help="print the api's JSON")
    p.add_argument("--api", help="api URL (default: from `drivelab up`'s credentials)")
    p.set_defaults(func=cmd_firmware)

    actions = listings["benches"].add_subparsers(dest="action", metavar="ACTION")
    p = actions.add_parser("add", help="register a bench and print its worker token (admin)")
    p.add_argument("name", help="bench name, e.g. bench1")
    p.add_argument("--api", help="api URL")
    p.add_argument(
        "--broker",
        help="the broker URL to print for the worker (default: the api's own broker, as the "
        "worker's machine reaches it)",
    )
    p.set_defaults(func=cmd_benches_add)

    actions = listings["drives"].add_subparsers(dest="action", metavar="ACTION")
    p = actions.add_parser("add", help="register a drive on a bench")
    p.add_argument("--bench", required=True)
    p.add_argument(
        "--target",
        required=True,
        help="a whole block device the bench reports (/dev/disk/by-id/...) or a file in its "
        "sandbox: see `drivelab devices --bench B`",
    )
    p.add_argument(
        "--serial",
        help="the serial the device reports (default: the bench's report; another is refused)",
    )
    p.add_argument("--vendor", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--capacity", type=int, help="capacity in bytes (default: the report's)")
    p.add_argument("--firmware", help="default: the report's")
    p.add_argument("--interface", help="e.g. NVMe PCIe 4.0 x4, SATA 6Gb/s")
    p.add_argument("--api", help="api URL")
    p.set_defaults(func=cmd_drives_add)

    p = sub.add_parser(
        "devices",
        help="list the block devices and sandbox files a bench's worker reports, with the "
        "serial to register and the system disk and disks in use marked",
    )
    p.add_argument("--bench", required=True, help="bench name (see `drivelab benches`)")
    p.add_argument("--json", action="store_true", help="print the api's JSON")
    p.add_argument("--api", help="api URL")
    p.set_defaults(func=cmd_devices)

    p = sub.add_parser(
        "run",
        help="queue a plan on a drive",
        epilog="example: drivelab run four-corners --drive 1 --param runtime_s=5 "
        "--param span=256m --confirm-serial SIM-0123abcd --wait",
    )
    p.add_argument("plan", help="plan key (see `drivelab plans`)")
    p.add_argument("--drive", type=int, required=True, help="drive id (see `drivelab drives`)")
    p.add_argument("--param", action="append", metavar="NAME=VALUE", help="plan parameter")
    p.add_argument("--confirm-serial", help="the drive's serial: plans that write need it")
    p.add_argument("--repeat", type=int, metavar="N", help="run the plan N times (a series)")
    p.add_argument(
        "--until-stable",
        action="store_true",
        help="repeat while the MB/s and IOPS figures vary by --rsd %% or more",
    )
    p.add_argument("--max-runs", type=int, default=10, help="until stable: at most (10)")
    p.add_argument("--min-runs", type=int, default=3, help="until stable: at least (3)")
    p.add_argument("--rsd", type=float, default=2.5, help="until stable: threshold, %% (2.5)")
    p.add_argument(
        "--wait", action="store_true", help="wait, with a progress bar, and print the results"
    )
    p.add_argument("--json", action="store_true", help="print the run as GET /api/runs/{id}")
    p.add_argument("--api", help="api URL")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser(
        "api",
        help="call any api endpoint and print the JSON (like `gh api`)",
        epilog="examples: drivelab api /api/runs/1;  drivelab api POST /api/runs/1/cancel",
    )
    p.add_argument("method", help="HTTP method, or the path for a GET")
    p.add_argument("path", nargs="?", help="path, e.g. /api/health")
    p.add_argument("--data", help="JSON request body")
    p.add_argument("--api", help="api URL")
    p.set_defaults(func=cmd_api)

    p = sub.add_parser(
        "login-link",
        help="print a one-time sign-in link for the browser (admin)",
        description="The link signs a browser in once, within 15 minutes. Without --user it "
        "signs in as the user whose token the CLI uses (the admin, on the machine where "
        "`drivelab up` runs).",
    )
    p.add_argument("--user", help="sign in as this user (default: yourself)")
    p.add_argument("--ttl", type=int, default=900, help="seconds until it expires (<= 900)")
    p.add_argument("--api", help="api URL")
    p.set_defaults(func=cmd_login_link)

    p = sub.add_parser(
        "retention",
        help="show or set the retention period; compact old runs' samples and logs (admin)",
        description="Runs that finished more than the retention period ago can be compacted: "
        "their per-second samples and window logs keep the min/max of each chart bucket; "
        "results and fio's JSON stay as they are. Recorded in the audit log.",
    )
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    p.add_argument("--json", action="store_true", help="print the api's JSON")
    p.add_argument("--api", help="api URL")
    p.set_defaults(func=cmd_retention, action=None)
    q = actions.add_parser("set", help="set the period (days, 0 = keep everything)")
    q.add_argument("days", type=int)
    q.add_argument("--points", type=int, help="chart points kept per step (default 650)")
    q.add_argument("--api", help="api URL")
    q.add_argument("--json", action="store_true", help="print the api's JSON")
    q = actions.add_parser("compact", help="compact the runs older than the period now")
    q.add_argument("--days", type=int, help="this period instead of the setting's")
    q.add_argument("--points", type=int, help="this many points instead of the setting's")
    q.add_argument("--limit", type=int, help="at most this many runs")
    q.add_argument("--api", help="api URL")
    q.add_argument("--json", action="store_true", help="print the api's JSON")

    p = sub.add_parser("prices", help="import or export price observations as CSV")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    p = actions.add_parser(
        "import",
        help="import a CSV: vendor,model,capacity_gb,retailer,price,currency,observed_on,source",
        description="Every row is checked first; one bad row rejects the file (each bad line is "
        "listed) and nothing is imported. Models missing from the catalog are added; rows "
        "already stored are not stored twice.",
    )
    p.add_argument("file", help="the CSV file, or - for standard input")
    p.add_argument("--api", help="api URL")
    p.set_defaults(func=cmd_prices_import)
    p = actions.add_parser("export", help="every price observation as CSV (imports back)")
    p.add_argument("-o", "--output", help="file to write (default: standard output)")
    p.add_argument("--api", help="api URL")
    p.set_defaults(func=cmd_prices_export)

    from backend.demo import add_parser as add_demo_parser
    from worker.sim.cli import add_parser as add_sim_parser

    add_demo_parser(sub)
    add_sim_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    level = logging.DEBUG if args.verbose else logging.INFO
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # One line per HTTP request drowns the worker's own log.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    if args.data_dir:
        os.environ["DRIVELAB_DATA_DIR"] = str(Path(args.data_dir).expanduser().resolve())
    try:
        result = args.func(args)
    except CliError as exc:
        error(str(exc))
        return 2
    except KeyboardInterrupt:
        return 130
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())
