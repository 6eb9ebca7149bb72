"""`drivelab sim`: simulated drives with a known answer, and the bench self-test."""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
from pathlib import Path
from typing import Any

from worker.sim.profile import PROFILES

DESCRIPTION = """\
A simulated drive is a loop device over a file in tmpfs (/dev/shm) whose speed the kernel's
block throttle sets (cgroup v2 io.max, or cgroup v1 blkio.throttle.* where the io controller
is bound to v1), from a profile: write speed levels by the share of the drive written (an SLC
cache that runs out), random-write IOPS that fall after so many bytes of random writes (the
consistency cliff), periodic write stalls and a stall after a whole-span TRIM. A controller
process reads the drive's counters (/sys/block/loopN/stat) every 5 ms and sets the throttle;
the worker runs fio inside the drive's cgroup. Everything it does is logged: that is the known
answer drivelab's findings are checked against. Results on it are labelled simulated.

Needs root, a block throttle and tmpfs: `drivelab sim check` says what is missing."""


def cmd_check(_args: argparse.Namespace) -> int:
    from worker.sim.controller import requirements
    from worker.sim.throttle import ThrottleUnavailable, detect

    missing = requirements()
    if missing:
        print("simulated drives cannot run here; missing:")
        for m in missing:
            print(f"  - {m}")
        return 1
    try:
        kind, root = detect()
    except ThrottleUnavailable as exc:  # pragma: no cover (requirements() said it is there)
        print(exc)
        return 1
    print(f"simulated drives can run here: {kind.version} at {root}, tmpfs at /dev/shm")
    return 0


def cmd_profiles(_args: argparse.Namespace) -> int:
    for p in PROFILES.values():
        print(f"{p.name}: {p.title}")
        for line in p.describe():
            print(f"    {line}")
        downs = p.expected_step_downs()
        if downs:
            where = ", ".join(f"{d['from_mbps']:g} -> {d['to_mbps']:g} MB/s at {d['at_pct']:g}%"
                              for d in downs)  # fmt: skip
            print(f"    a full write pass steps down: {where}")
    print("A profile of your own: a JSON file with the fields of `drivelab sim profiles --json`.")
    return 0


def cmd_profiles_json(_args: argparse.Namespace) -> int:
    import json

    print(json.dumps({n: p.as_dict() for n, p in PROFILES.items()}, indent=2))
    return 0


def cmd_start(args: argparse.Namespace) -> int:
    from backend.plans.base import parse_size
    from worker.sim.controller import load_profile, serve
    from worker.sim.registry import SimError

    try:
        profile = load_profile(args.profile)
        size = parse_size(args.size)
    except (SimError, ValueError) as exc:
        print(f"drivelab sim: {exc}", file=sys.stderr)
        return 2

    def ready(state: Any) -> None:
        print(f"simulated drive '{state.label}' ({profile.name}) is {state.device}, "
              f"{size / 2**20:g} MiB, throttled by {state.throttle} in {state.cgroup}")  # fmt: skip
        print(f"known answer: {state.events} (and .trace beside it); Ctrl-C stops and removes it")
        if args.register:
            drive = _register(args, state)
            print(f"registered as drive {drive['id']} on bench {args.bench}, serial "
                  f"{drive['serial']}")  # fmt: skip
        sys.stdout.flush()

    return serve(profile, size, args.label or profile.name, None, None, on_ready=ready)


def _register(args: argparse.Namespace, state: Any) -> dict[str, Any]:
    from backend.cli import api_client, call
    from backend.demo import wait_reported
    from worker.devices import identify

    info = identify(state.device)
    with api_client(args) as client:
        wait_reported(client, args.bench, state.target, info.serial)
        return dict(
            call(
                client,
                "POST",
                "/api/drives",
                {
                    "bench": args.bench,
                    "target_path": state.target,
                    "serial": info.serial,
                    "vendor": "drivelab",
                    "model": f"Simulated drive ({state.label})",
                    "capacity_bytes": info.size_bytes,
                    "interface": "loop",
                    "firmware": "sim",
                    "simulated": True,
                },
            )
        )


def cmd_list(_args: argparse.Namespace) -> int:
    from worker.sim.registry import running

    states = running()
    if not states:
        print("no simulated drive is running")
    for s in states:
        print(f"{s.device}  {s.label}  ({s.profile['name']}, {s.size_bytes / 2**20:g} MiB, "
              f"controller pid {s.controller_pid}, {s.throttle})")  # fmt: skip
        if s.sensor:
            print(f"    temperature sensor (millidegrees °C): {s.sensor}")
    return 0


def cmd_selftest(args: argparse.Namespace) -> int:
    from backend.cli import api_client, call
    from worker.sim.controller import requirements
    from worker.sim.selftest import bench_cases, run_selftest

    missing = requirements()
    if missing:
        print("the self-test needs simulated drives; missing: " + "; ".join(missing))
        return 2
    chosen = bench_cases()
    if args.only:
        chosen = [c for c in chosen if c.plan in args.only or c.profile in args.only]
    with contextlib.ExitStack() as stack:
        client = stack.enter_context(api_client(args))
        if args.keep:
            tmp = str(args.keep)
            args.keep.mkdir(parents=True, exist_ok=True)
        else:
            tmp = stack.enter_context(tempfile.TemporaryDirectory())
        call(client, "GET", "/api/health")
        print(f"self-test of bench {args.bench}: {len(chosen)} simulated drives, their runs at "
              "once (about two minutes)", flush=True)  # fmt: skip
        done = run_selftest(client, args.bench, Path(tmp), selected=chosen,
                            progress=lambda line: print(f"  {line}", flush=True))  # fmt: skip
    failed = 0
    for case in done:
        for check in case.checks:
            failed += not check.ok
            print(f"{'ok  ' if check.ok else 'FAIL'}  {case.name}: {check.what}: truth "
                  f"{check.truth}, found {check.found}")  # fmt: skip
    total = sum(len(c.checks) for c in done)
    print(f"{total - failed} of {total} checks passed")
    worst = done[0].host_worst_s if done else 0.0
    print(f"the host held a process up for {worst:.3f} s at most during the runs", end="")
    if worst > 0.3:
        print(": more than the 0.3 s the analysis can tell from a drive's stall (other work on "
              "this machine); run the self-test on a quiet bench")  # fmt: skip
    else:
        print()
    return 0 if failed == 0 else 1


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "sim",
        help="simulated drives with a known answer, and a bench self-test (root)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  sudo drivelab sim check\n  drivelab sim profiles\n"
        "  sudo drivelab sim start slc-cache --size 1g --register\n"
        "  sudo drivelab sim selftest            (with `drivelab up` running)",
    )
    actions = p.add_subparsers(dest="sim_action", required=True, metavar="ACTION")
    a = actions.add_parser("check", help="say whether simulated drives can run here, and why not")
    a.set_defaults(func=cmd_check)
    a = actions.add_parser("profiles", help="the built-in profiles and what each drive does")
    a.add_argument("--json", action="store_true", help="as JSON (a template for your own)")
    a.set_defaults(func=lambda args: cmd_profiles_json(args) if args.json else cmd_profiles(args))
    a = actions.add_parser(
        "start",
        help="run a simulated drive in the foreground until Ctrl-C",
        description="Create a simulated drive, print its device, keep it shaped until Ctrl-C, "
        "then remove it (the loop device, the tmpfs file and the cgroup).",
    )
    a.add_argument("profile", help=f"{', '.join(PROFILES)}, or a JSON profile file")
    a.add_argument("--size", default="1g", help="size in fio's syntax (default 1g = 1 GiB)")
    a.add_argument("--label", help="a name for it (default: the profile's)")
    a.add_argument("--register", action="store_true", help="register it as a drive via the api")
    a.add_argument("--bench", default="local", help="bench to register it on (local)")
    a.add_argument("--api", help="api URL (default: from `drivelab up`'s credentials)")
    a.set_defaults(func=cmd_start)
    a = actions.add_parser("list", help="the simulated drives running on this machine")
    a.set_defaults(func=cmd_list)
    a = actions.add_parser(
        "selftest",
        help="self-test a bench: runs on simulated drives, findings against the known answer",
        description="Start six simulated drives on this machine, register them on the bench, "
        "run hdtach, write-hitching, trim-performance, consistency and slc-cache on them at "
        "once, and compare what drivelab found with what the drives did (their own counters): "
        "step-down positions within 1% of the span, levels within 5%, every stall found once, "
        "stall lengths within 0.2 s, the period within 5% of the drive's and regular where its "
        "stalls were, the drop-off within 5%, "
        "the SLC cache and what each idle gap gave back of it within 1% of the fill. Run "
        "it on the bench "
        "(as root), with its worker running. Exit status 0 when every check passed.",
    )
    a.add_argument("--bench", default="local", help="the bench whose worker runs here (local)")
    a.add_argument("--only", nargs="*", help="plans or profiles to run (default: all)")
    a.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="keep each drive's profile, events and counter trace (the known answer) in DIR",
    )
    a.add_argument("--api", help="api URL (default: from `drivelab up`'s credentials)")
    a.set_defaults(func=cmd_selftest)
