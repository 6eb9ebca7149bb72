"""Fidelity against bare fio: the same fio job run by hand and through the whole stack (api,
broker, worker, fio's JSON status stream, sample posts), in interleaved pairs on the same
target, until the ratio stack/hand is known to within +-1%.

Jobs, taken from existing plans so the job file is exactly the one drivelab stores:
- 4K random read QD32: `trace-replay`, profile custom (rwmixread=100, bssplit 4k/100,
  percentage_random=100, iodepth=32), no prefill: one fio step.
- 128K sequential write QD32: `write-hitching`'s first step (hitch-seq-128k-qd32); the run is
  cancelled as soon as that step is done, so its second step (4K random writes) never runs for
  long. Its 100 ms bw/IOPS logs are part of the job file, so the hand run writes them too.
Targets:
- file: the stack's simulated drive (a sparse file in its sandbox, written over before the
  first pair);
- loop (root): a loop device attached to a sparse file here (buffered: its reads come from
  the page cache, so that job is CPU-bound, the hardest case for a harness on 2 cores);
- simulated drive (root, worker.sim): a loop device over tmpfs held by the kernel's block
  throttle to SIM_WRITE_MBPS / SIM_READ_MBPS, well below what the loop device does unthrottled.
  fio runs in the drive's cgroup on both sides (the worker puts it there; the hand run's
  shell writes its pid there first, as worker.fio.runner does), so both meet the same ceiling:
  a harness that costs fio I/O shows here as a ratio below 1 without the host's CPU-bound
  noise of the other two targets.

For each target and job: a warm-up run through the stack (its stored job file, from GET
/api/runs/{id}/jobs, is the one run by hand), then pairs: `fio --output-format=json JOB` by
hand and the same job through the stack, the side that goes first alternating (hand, stack,
stack, hand, ...: ABBA, so a drift of the target or the host over the pairs weighs on both
sides alike). Each pair gives a ratio stack MB/s / hand MB/s (MB/s = io_bytes / runtime, fio's
own totals, by the same function the api uses).

The figure is the median of the ratios with a 95% confidence interval for it from order
statistics (`median_ci`): distribution-free, so it needs no assumption about the shape of the
ratios. That matters here: on 2 cores a CPU-bound run meets one of two speeds, whichever
process launched fio, so a pair can give 0.6 or 1.7 among ratios near 1.00; such outliers
would widen a t-interval of the mean of log ratios (or move it) far more than they move the
median's interval, which only counts how many ratios lie on each side. Its price is that it
needs at least 6 pairs for any 95% interval ([min, max] has 96.9% coverage at n = 6).
Pairs are added until the interval's half-width ((high - low) / 2) is below 1% (at least
MIN_PAIRS, at most MAX_PAIRS, and no more once PAIR_BUDGET_S has passed for that target and
job: a noisy host ends with the interval it reached, reported as missed, never an endless
loop). Stopping on the width, not on where the interval lies, keeps the look at each new pair
from favouring any verdict. Target: the interval lies within [0.99, 1.01] and contains 1.00.

Before every run, by hand or through the stack, the kernel writes back what earlier runs left
dirty (`settle`): otherwise a read job shares the CPUs with the writeback of the write job
before it, a drift that has nothing to do with the harness.

Harness CPU: utime+stime of the worker and the api processes (/proc) while the measured fio
step runs (from the SSE event that shows it running to the one that shows it done), over that
time; and per test second: the whole run's (claim, drive and host info, SMART, job set-up,
results) worker + api CPU seconds over fio's runtime, beside each target's ratios. A client
follows the run on its SSE stream, as a browser would.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from math import comb
from pathlib import Path
from typing import Any

import httpx

from backend.analysis.fio_results import direction_summary
from tests.bench.common import (
    BenchStack,
    CpuMeter,
    Figure,
    Report,
    check,
    conditions,
    cpu_seconds,
    finish,
    log,
    median,
    private_stack,
    python_entry,
    queue_run,
)
from worker.fio.pin import FILES_DIR
from worker.fio.runner import _in_cgroup as in_cgroup
from worker.sim.controller import SimDrive, requirements
from worker.sim.profile import Level, Profile

# At least 6 pairs (the fewest for which order statistics give a 95% interval of the median),
# at most MAX_PAIRS, and no pair started after PAIR_BUDGET_S of one target and job.
MIN_PAIRS = int(os.environ.get("BENCH_FIDELITY_MIN_PAIRS", "6"))
MAX_PAIRS = int(os.environ.get("BENCH_FIDELITY_MAX_PAIRS", "24"))
PAIR_BUDGET_S = float(os.environ.get("BENCH_FIDELITY_BUDGET_S", "75"))
RUNTIME_S = int(os.environ.get("BENCH_FIDELITY_RUNTIME_S", "3"))
SPAN = "1g"
SIM_SIZE = "2g"
CONFIDENCE = 0.95
HALF_WIDTH = 0.01
TARGET_RANGE = (0.99, 1.01)
# The simulated drive: a flat throttle well below what the loop device over tmpfs does
# unthrottled on this machine (GB/s), so that both sides run at the throttle's speed.
SIM_WRITE_MBPS = 200.0
SIM_READ_MBPS = 80.0
SIM_BYTES = 1024**3
TARGET_CPU_PCT = 1.0
# Written-back enough: what a quiet machine keeps dirty (logs, the database's WAL).
SETTLED_DIRTY_BYTES = 16 * 1024**2

JOBS: dict[str, dict[str, Any]] = {
    "randread-4k-qd32": {
        "plan": "trace-replay",
        "params": {
            "profile": "custom",
            "rwmixread": 100,
            "bssplit": "4k/100",
            "percentage_random": 100,
            "iodepth": 32,
            "runtime_s": RUNTIME_S,
            "prefill": False,
            "span": SPAN,
        },
        "step": 0,
        "direction": "read",
        "cancel_after_step": False,
    },
    "seqwrite-128k-qd32": {
        "plan": "write-hitching",
        "params": {"runtime_s": RUNTIME_S, "span": SPAN},
        "step": 0,
        "direction": "write",
        "cancel_after_step": True,
    },
}


class RunWatch:
    """Follows a run on GET /api/runs/{id}/events until it ends; notes the CPU times of the
    stack's processes when the measured step is first seen running and first seen done, and
    cancels the run then if asked."""

    def __init__(self, bs: BenchStack, run_id: int, step_idx: int, cancel: bool) -> None:
        self.bs = bs
        self.run_id = run_id
        self.step_idx = step_idx
        self.cancel = cancel
        self.marks: dict[str, tuple[float, dict[str, float]]] = {}
        self.final: dict[str, Any] | None = None
        self.thread = threading.Thread(target=self._follow, daemon=True)

    def _mark(self, name: str) -> None:
        if name not in self.marks:
            self.marks[name] = (
                time.monotonic(),
                {k: cpu_seconds(p) for k, p in self.bs.pids.items()},
            )

    def _follow(self) -> None:
        headers = {"Authorization": f"Bearer {self.bs.stack.token}"}
        url = f"{self.bs.api_url}/api/runs/{self.run_id}/events"
        with httpx.stream("GET", url, headers=headers, timeout=600) as resp:
            name = None
            for line in resp.iter_lines():
                if line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: ") and name == "run":
                    run = json.loads(line[6:])
                    self._on_run(run)

    def _on_run(self, run: dict[str, Any]) -> None:
        step = run["steps"][self.step_idx]
        if step["status"] == "running":
            self._mark("step_running")
        if step["status"] in ("done", "failed", "cancelled"):
            self._mark("step_ended")
            if self.cancel and step["status"] == "done" and run["status"] == "running":
                self.cancel = False
                with self.bs.client() as c:
                    c.post(f"/api/runs/{self.run_id}/cancel")
        if run["status"] in ("done", "failed", "cancelled", "lost"):
            self.final = run

    def step_cpu_pct(self) -> dict[str, float] | None:
        if "step_running" not in self.marks or "step_ended" not in self.marks:
            return None
        (t0, c0), (t1, c1) = self.marks["step_running"], self.marks["step_ended"]
        return {k: (c1[k] - c0[k]) / (t1 - t0) * 100 for k in c0} if t1 > t0 else None


def dirty_bytes() -> int:
    """Bytes the kernel still has to write back: Dirty + Writeback of /proc/meminfo."""
    total = 0
    for line in Path("/proc/meminfo").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name in ("Dirty", "Writeback"):
            total += int(rest.split()[0]) * 1024
    return total


def settle(max_s: float = 60) -> float:
    """Flush what earlier runs wrote and wait until the kernel has written it back (at most
    max_s), so that no run, by hand or through the stack, shares the CPUs with the writeback
    of the one before: a write job leaves up to gigabytes dirty in the target's page cache
    (a loop device's backing file, the simulated drive's file), and writing them back takes
    kernel threads' CPU for tens of seconds. Returns the seconds waited."""
    t0 = time.monotonic()
    os.sync()
    while dirty_bytes() > SETTLED_DIRTY_BYTES and time.monotonic() - t0 < max_s:
        time.sleep(0.1)
        os.sync()
    return time.monotonic() - t0


def stack_run(bs: BenchStack, drive: dict[str, Any], job: dict[str, Any]) -> dict[str, Any]:
    settle()
    meter = CpuMeter(bs.pids).start()
    with bs.client() as admin:
        run = queue_run(admin, drive, job["plan"], job["params"])
        watch = RunWatch(bs, run["id"], job["step"], job["cancel_after_step"])
        watch.thread.start()
        watch.thread.join(RUNTIME_S * 4 + 120)
        used = meter.stop()
        run = check(admin.get(f"/api/runs/{run['id']}"))
        step = run["steps"][job["step"]]
        if step["status"] != "done":
            raise AssertionError(f"run {run['id']} step {step['name']} {step['status']}: {run}")
        jobs = check(admin.get(f"/api/runs/{run['id']}/jobs"))
        output = json.loads(admin.get(f"/api/runs/{run['id']}/steps/{step['id']}/output").text)
    results = {r["metric"]: r["value"] for r in step["results"]}
    runtime_s = max(int(j["job_runtime"]) for j in output["jobs"]) / 1000
    return {
        "run_id": run["id"],
        "mbps": results[f"{job['direction']}_mbps"],
        "job_file": jobs[job["step"]]["job_file"],
        "runtime_s": runtime_s,
        "step_cpu_pct": watch.step_cpu_pct(),
        "run_cpu_s": used,
        "run_wall_s": meter.wall,
    }


def median_ci(
    values: list[float], confidence: float = CONFIDENCE
) -> tuple[float, float, float] | None:
    """A distribution-free confidence interval for the median of `values`: (x_(k), x_(n+1-k),
    coverage), the k-th smallest and k-th largest, with k the largest rank whose coverage
    P(k <= B <= n-k), B ~ Binomial(n, 1/2), is at least `confidence` (the median lies below
    each value with probability 1/2, whatever the distribution). None when even [min, max]
    covers less (n < 6 at 95%)."""
    n = len(values)
    xs = sorted(values)
    best: tuple[int, float] | None = None
    below = 1  # P(B <= k - 1) times 2^n: at k = 1, P(B = 0) = 1 / 2^n
    for k in range(1, n // 2 + 1):
        coverage = 1 - 2 * below / 2**n
        if coverage < confidence:
            break
        best = (k, coverage)
        below += comb(n, k)
    if best is None:
        return None
    k, coverage = best
    return xs[k - 1], xs[n - k], coverage


def interval_done(ratios: list[float]) -> bool:
    """Enough pairs: the median's interval is narrower than +-HALF_WIDTH."""
    ci = median_ci(ratios)
    return ci is not None and (ci[1] - ci[0]) / 2 < HALF_WIDTH


def hand_run(
    job_file: str, direction: str, workdir: Path, target: str, cgroup_procs: Path | None
) -> float:
    """`fio --output-format=json JOB` with the stored job file, in an empty directory; in the
    simulated drive's cgroup for that target. A sandbox file's job file names it where the
    worker's mount namespace binds it (worker.fio.pin); by hand it is opened by its path."""
    settle()
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    pinned = f"{FILES_DIR}/{os.path.basename(target)}"
    (workdir / "job.fio").write_text(job_file.replace(pinned, target))
    out = subprocess.run(
        [*in_cgroup(cgroup_procs), "fio", "--output-format=json", "job.fio"],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=RUNTIME_S * 4 + 60,
    )
    if out.returncode != 0:
        raise AssertionError(f"fio by hand failed: {out.stderr}")
    final = json.loads(out.stdout[out.stdout.index("{") :])
    summary = direction_summary(final, direction)
    assert summary is not None, out.stdout[:500]
    return summary["mbps"]


def measure_target(
    bs: BenchStack, drive: dict[str, Any], label: str, cgroup_procs: Path | None = None
) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    # Write the span before anything reads it (unwritten blocks of a sparse file are read
    # without touching the disk); this warm-up is also the write job's warm-up.
    order = ["seqwrite-128k-qd32", "randread-4k-qd32"]
    warm = {name: stack_run(bs, drive, JOBS[name]) for name in order}
    for name in order:
        job = JOBS[name]
        job_file = warm[name]["job_file"]
        hand: list[float] = []
        stack: list[dict[str, Any]] = []
        ratios: list[float] = []
        t0 = time.monotonic()
        hand_args = (job_file, job["direction"], bs.workdir / "hand")
        on = (drive["target_path"], cgroup_procs)

        while len(ratios) < MAX_PAIRS:
            if len(ratios) >= MIN_PAIRS and (
                interval_done(ratios) or time.monotonic() - t0 > PAIR_BUDGET_S
            ):
                break
            # hand, stack, stack, hand, ...: a drift of the target cancels out of the median.
            if len(ratios) % 2 == 0:
                h = hand_run(*hand_args, *on)
                s = stack_run(bs, drive, job)
            else:
                s = stack_run(bs, drive, job)
                h = hand_run(*hand_args, *on)
            if s["job_file"] != job_file:
                raise AssertionError("the stack ran a different job file than the hand run")
            hand.append(h)
            stack.append(s)
            ratios.append(s["mbps"] / h)
            ci = median_ci(ratios)
            log(
                f"{label} {name} pair {len(ratios)}: hand {h:.0f} MB/s, "
                f"stack {s['mbps']:.0f} MB/s ({ratios[-1]:.3f})"
                + (f"; median's CI [{ci[0]:.4f}, {ci[1]:.4f}]" if ci else "")
            )
        ci = median_ci(ratios)
        step_cpu = [s["step_cpu_pct"] for s in stack if s["step_cpu_pct"]]
        test_s = sum(s["runtime_s"] for s in stack)
        hand_median = median(hand) or 1.0
        out[name] = {
            "pairs": len(ratios),
            "seconds": time.monotonic() - t0,
            "ratio_median": median(ratios),
            "ci": None if ci is None else [ci[0], ci[1]],
            "ci_coverage": None if ci is None else ci[2],
            "ratio_of_medians": (median([s["mbps"] for s in stack]) or 0.0) / hand_median,
            # How much the same job by hand moves from run to run: below this, a ratio's
            # distance from 1 is noise.
            "hand_spread_pct": median([abs(h / hand_median - 1) * 100 for h in hand]),
            "ratios": ratios,
            "hand_mbps": hand,
            "stack_mbps": [s["mbps"] for s in stack],
            "worker_step_cpu_pct": median([c["worker"] for c in step_cpu]),
            "api_step_cpu_pct": median([c["api"] for c in step_cpu]),
            "worker_run_cpu_pct": sum(s["run_cpu_s"]["worker"] for s in stack) / test_s * 100,
            "api_run_cpu_pct": sum(s["run_cpu_s"]["api"] for s in stack) / test_s * 100,
            "run_ids": [s["run_id"] for s in stack],
            "job_file": job_file,
        }
    return out


def attach_loop(workdir: Path) -> str | None:
    if os.geteuid() != 0 or shutil.which("losetup") is None:
        return None
    backing = workdir / "loop-backing.img"
    with open(backing, "wb") as f:
        f.truncate(2 * 1024**3)
    return subprocess.run(
        ["losetup", "-f", "--show", str(backing)], capture_output=True, text=True, check=True
    ).stdout.strip()


def sim_profile() -> Profile:
    return Profile(
        name="fidelity-flat",
        title=f"writes at {SIM_WRITE_MBPS:g} MB/s, reads at {SIM_READ_MBPS:g} MB/s",
        write_levels=(Level(until_pct=100, mbps=SIM_WRITE_MBPS),),
        read_mbps=SIM_READ_MBPS,
    )


def target_figure(label: str, name: str, m: dict[str, Any]) -> Figure:
    ci = m["ci"]
    note = (
        f"{m['pairs']} interleaved pairs (ABBA), {RUNTIME_S} s runs, {m['seconds']:.0f} s; "
        + (
            f"{m['ci_coverage'] * 100:.1f}% order-statistics interval, half-width "
            f"{(ci[1] - ci[0]) / 2 * 100:.2f}%; "
            if ci
            else "too few pairs for an interval; "
        )
        + f"hand median {median(m['hand_mbps']):.0f} MB/s (runs spread "
        f"{m['hand_spread_pct']:.1f}% around it), stack median "
        f"{median(m['stack_mbps']):.0f} MB/s; harness CPU per test second "
        f"{m['worker_run_cpu_pct'] + m['api_run_cpu_pct']:.1f}% of a core (worker "
        f"{m['worker_run_cpu_pct']:.1f}, api {m['api_run_cpu_pct']:.1f}); ratios "
        + ", ".join(f"{r:.3f}" for r in m["ratios"])
    )
    return Figure(
        f"{label} {name}: MB/s stack/hand, median [95% CI], {m['pairs']} pairs",
        m["ratio_median"],
        "ratio",
        1.0,
        "ci within",
        note=note,
        interval=None if ci is None else (ci[0], ci[1]),
        target_range=TARGET_RANGE,
    )


def main() -> Report:
    t0 = time.monotonic()
    report = Report("fidelity", "drivelab vs the same fio job by hand")
    with private_stack("fidelity", sim_size=SIM_SIZE) as bs:
        targets: dict[str, dict[str, Any]] = {"file": bs.sim_drive()}
        cgroups: dict[str, Path] = {}
        loop = attach_loop(bs.workdir)
        missing = requirements()
        sim = None if missing else SimDrive(sim_profile(), SIM_BYTES, bs.workdir / "sim")
        try:
            if loop is not None:
                targets["loop"] = bs.stack.add_drive(loop, "Loop device (benchmark)")
            else:
                log("not root or no losetup: the loop device variant is skipped")
            if sim is not None:
                sim.start()
                assert sim.state is not None
                targets["simulated"] = bs.stack.add_drive(
                    sim.state.target, f"Simulated drive ({sim_profile().title})"
                )
                cgroups["simulated"] = sim.state.procs
            else:
                log("no simulated drive here: " + "; ".join(missing))
            measured = {
                label: measure_target(bs, d, label, cgroups.get(label))
                for label, d in targets.items()
            }
        finally:
            if sim is not None:
                sim.stop()
            if loop is not None:
                subprocess.run(["losetup", "-d", loop], check=False)
        for label, jobs in measured.items():
            for name, m in jobs.items():
                report.add(target_figure(label, name, m))
            report.add(
                Figure(
                    f"{label}: harness (worker + api) CPU per test second",
                    max(m["worker_run_cpu_pct"] + m["api_run_cpu_pct"] for m in jobs.values()),
                    "% of a core",
                    note="the higher of its two jobs: CPU seconds of the worker and the api "
                    "from claim to end of each run, over fio's runtime",
                    headline=True,
                )
            )
        all_jobs = [m for jobs in measured.values() for m in jobs.values()]
        report.add(
            Figure(
                "hand runs' spread around their median (noise floor)",
                max(m["hand_spread_pct"] for m in all_jobs),
                "%",
                note="worst job: the same job by hand moves this much from run to run on this "
                "machine; a ratio closer to 1 than this is within the noise",
                headline=True,
            ),
            Figure(
                "worker CPU while fio runs",
                max(m["worker_step_cpu_pct"] or 0 for m in all_jobs),
                "% of a core",
                TARGET_CPU_PCT,
                "<=",
                note="worst job's median: parsing fio's JSON status stream, posting samples",
            ),
            Figure(
                "api CPU while fio runs",
                max(m["api_step_cpu_pct"] or 0 for m in all_jobs),
                "% of a core",
                note="storing the samples, serving one SSE viewer",
                headline=True,
            ),
            Figure(
                "worker CPU per test second, whole run",
                max(m["worker_run_cpu_pct"] for m in all_jobs),
                "% of a core",
                note=f"claim to end, over fio's runtime; includes per-run set-up (drive and "
                f"host info) that a {RUNTIME_S} s test cannot amortise",
            ),
            Figure(
                "api CPU per test second, whole run",
                max(m["api_run_cpu_pct"] for m in all_jobs),
                "% of a core",
            ),
        )
        report.conditions = conditions(
            bs,
            pairs={"min": MIN_PAIRS, "max": MAX_PAIRS, "budget_s": PAIR_BUDGET_S},
            interval="95% for the median, from order statistics; pairs added until half-width "
            f"< {HALF_WIDTH * 100:g}%",
            sim_drive={"write_mbps": SIM_WRITE_MBPS, "read_mbps": SIM_READ_MBPS},
            runtime_s=RUNTIME_S,
            span=SPAN,
            targets={k: v["target_path"] for k, v in targets.items()},
            hand_command="fio --output-format=json JOB (in an empty directory)",
            stack_command="fio --output-format=json+ --status-interval=1 JOB (the worker's)",
        )
        report.details = measured
    return finish(report, t0)


if __name__ == "__main__":
    python_entry(main)
