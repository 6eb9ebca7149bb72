"""Names a person reads for a metric id, and what kind of figure it is.

A metric id (`four-corners:randwrite-4k-qd32-incompressible:write_iops`, with a variant
`consistency:consistency-4k-qd32@op25:iops_mean_last400`) stays the key in the api and CSV
files; pages, exports and reports show its plan, test and measure in words ("Four corners" /
"4K random write QD32, incompressible" / "IOPS"). Only performance figures are ranked better
or worse: a step's runtime or bytes moved say how it ran, not how good the drive is.
"""

from __future__ import annotations

import re
from functools import lru_cache

PLAN_NAMES = {
    "four-corners": "Four corners",
    "transfer-size": "Transfer size",
    "consistency": "Performance consistency",
    "torture": "Torture",
    "hdtach": "HD Tach passes",
    "performance-over-time": "Performance over time",
    "trim-validation": "TRIM validation",
    "trim-performance": "TRIM performance",
    "write-hitching": "Write hitching",
    "trace-replay": "Trace playback",
    "pts-steady-state": "SNIA PTS steady state",
    "qd-sweep": "Queue-depth sweep",
    "cdm-style": "CrystalDiskMark-style",
    "as-ssd-style": "AS-SSD-style",
    "thermal": "Thermal",
    "slc-cache": "SLC cache and its recovery",
    "qd1-bursts": "QD1 burst performance",
    "mixed": "Mixed random and sequential",
    "file-copy": "File copy after deletions",
    "full-drive": "Full-drive behaviour (empty vs full)",
}

# The measure of a metric name, without its direction (read_/write_) where it has one.
MEASURES = {
    "mbps": "MB/s",
    "iops": "IOPS",
    "lat_mean_us": "mean latency",
    "lat_p99_us": "99th percentile latency",
    "lat_p50_us": "median latency",
    "lat_p90_us": "90th percentile latency",
    "lat_p99_9_us": "99.9th percentile latency",
    "lat_p99_99_us": "99.99th percentile latency",
    "lat_p99_999_us": "99.999th percentile latency",
    "lat_max_us": "maximum latency",
    "peak_iops": "peak IOPS",
    "peak_qd": "QD of the peak IOPS",
    "qd_95pct_peak": "lowest QD reaching 95% of peak IOPS",
    "iops_p99_under_target": "highest IOPS with p99 under the latency target",
    "low_qd_iops": "low-QD score (mean IOPS of QD1, 2 and 4)",
    "bytes": "bytes moved",
    "runtime_s": "runtime",
    "iops_mean_last400": "mean IOPS, last 400 s",
    "iops_stddev_last400": "IOPS standard deviation, last 400 s",
    "iops_min_last400": "minimum IOPS, last 400 s",
    "iops_p1_last400": "1st percentile IOPS, last 400 s",
    "iops_p99_last400": "99th percentile IOPS, last 400 s",
    "iops_mean_over_stddev_last400": "mean over standard deviation, last 400 s",
    "dropoff_s": "time until the drop-off",
    "xsr_recovery_s": "recovery time after the transition",
    "xsr_settled_mbps": "settled MB/s",
    # Demand intensity (DIRTH, ECW): the sweep's maximum, middle and minimum IOPS points.
    **{
        f"{t}_{point}_{name}": text.format(point=point)
        for t in ("dirth", "ecw")
        for point in ("max", "mid", "min")
        for name, text in (
            ("iops", "IOPS at the {point} IOPS point"),
            ("art_us", "average response time at the {point} IOPS point"),
            ("toc", "total outstanding I/O at the {point} IOPS point"),
        )
    },
    "dirth_saturation_toc": "TOC where IOPS reach 95% of the highest",
    "ecw_saturation_toc": "TOC where IOPS reach 95% of the highest",
    "cbw_iops": "composite workload IOPS",
    "cbw_mbps": "composite workload MB/s",
    "cbw_lat_mean_us": "composite workload average response time",
    "cbw_lat_max_us": "composite workload maximum response time",
    "cbw_lat_p9999_us": "composite workload 99.99th percentile response time",
    "hdtach_coverage_pct": "span covered",
    # HD Tach passes name their direction: hdtach_write_first_step_down_pct (and, in runs
    # analysed before passes had their own names, hdtach_first_step_down_pct).
    **{
        f"hdtach{'_' + d if d else ''}{name}": text.format(d=f"{d} " if d else "")
        for d in ("read", "write", "")
        for name, text in (
            ("_avg_mbps", "average {d}MB/s"),
            ("_step_downs", "{d}step-downs"),
            ("_first_step_down_pct", "{d}position of the first step-down"),
            ("_first_step_down_gb", "{d}GB into the pass at the first step-down"),
            ("_before_step_down_mbps", "{d}MB/s before the first step-down"),
            ("_after_step_down_mbps", "{d}MB/s after the first step-down"),
        )
    },
    "fob_iops": "fresh-out-of-box IOPS",
    "stall_count": "stalls",
    "stall_longest_s": "longest stall",
    "stall_total_s": "total stall time",
    "stall_period_s": "time between stalls",
    "replay_mbps": "average MB/s",
    "replay_read_mbps": "average read MB/s",
    "replay_write_mbps": "average write MB/s",
    "replay_read_share_pct": "read share",
    "replay_busy_s": "disk busy time",
    "gbps": "TRIM rate",
    "slc_cache_gb": "SLC cache size (GB written before the first step-down)",
    "slc_cache_mbps": "MB/s in the cache",
    "slc_after_cache_mbps": "MB/s after the cache",
    "slc_avg_mbps": "average MB/s of the pass",
    "slc_recovered_gb": "cache recovered (GB)",
    "slc_idle_measured_s": "idle before the refill, measured",
    "slc_recovered_at_least": "recovered cache outlasted the refill (1: at least)",
    "passes": "passes measured",
    "state_drop_pct": "drop from empty to full",
    "thermal_write_mbps": "average write MB/s",
    "thermal_read_mbps": "average read MB/s",
    "thermal_throttles": "throttle step-downs",
    "thermal_first_throttle_s": "time to the first throttle",
    "thermal_first_throttle_c": "temperature at the first throttle",
    "thermal_throttled_mbps": "throttled MB/s",
    "thermal_peak_c": "peak temperature",
    "thermal_above_wctemp_s": "time above WCTEMP",
    "thermal_recover_s": "time to cool down",
    "iops_min": "slowest burst's IOPS",
    "iops_max": "fastest burst's IOPS",
    "mbps_min": "slowest burst's MB/s",
    "mbps_max": "fastest burst's MB/s",
    "burst_spread_pct": "spread of the bursts (standard deviation over the mean)",
    "bursts": "bursts measured",
    "burst_idle_min_s": "shortest idle before a burst, measured",
    "mixed_mbps": "MB/s, reads and writes",
    "mixed_iops": "IOPS, reads and writes",
    "mixed_avg_mbps": "average MB/s over the write shares",
    "mixed_avg_iops": "average IOPS over the write shares",
    "mixed_min_mbps": "lowest MB/s of the write shares",
    "mixed_min_write_pct": "write share of the lowest MB/s",
    "mixed_max_mbps": "highest MB/s of the write shares",
    "file_copy_first_mbps": "first copy, average MB/s",
    "file_copy_repeated_mbps": "repeated copy after the deletions, average MB/s",
    "file_copy_first_standstills": "first copy, standstills",
    "file_copy_repeated_standstills": "repeated copy, standstills",
    "file_copy_first_standstill_s": "first copy, time stood still",
    "file_copy_repeated_standstill_s": "repeated copy, time stood still",
    "file_copy_first_longest_standstill_s": "first copy, longest standstill",
    "file_copy_repeated_longest_standstill_s": "repeated copy, longest standstill",
    "file_copy_delete_seconds": "time to delete the files (with their TRIMs)",
    "file_copy_discarded_bytes": "bytes the deletions discarded",
    "asssd_score_read": "AS-SSD read score",
    "asssd_score_write": "AS-SSD write score",
    "asssd_score_total": "AS-SSD total score",
}
# How a run went, not how good the drive is: never coloured better or worse.
NOT_PERFORMANCE = frozenset(
    {"bytes", "runtime_s", "hdtach_coverage_pct", "passes", "replay_read_share_pct", "peak_qd",
     "slc_recovered_at_least", "slc_idle_measured_s",
     "bursts", "burst_idle_min_s",
     "file_copy_discarded_bytes",
     # where a pass steps down and how often: its levels say how fast the drive is
     *(f"hdtach{'_' + d if d else ''}{name}" for d in ("read", "write", "")
       for name in ("_step_downs", "_first_step_down_pct", "_first_step_down_gb")),
     # how often and at what temperature the firmware throttled: its policy, not a speed
     "thermal_throttles", "thermal_first_throttle_c",
     # where a mixed curve has its minimum: its shape, not a speed
     "mixed_min_write_pct"}
)  # fmt: skip
# Where a demand-intensity sweep's points fell (its TOC), not how fast the drive is.
NOT_PERFORMANCE = NOT_PERFORMANCE | {
    f"{t}_{name}"
    for t in ("dirth", "ecw")
    for name in ("max_toc", "mid_toc", "min_toc", "saturation_toc")
}
LOWER_IS_BETTER_UNITS = ("µs", "ms", "s")
LOWER_IS_BETTER_WORDS = (
    "lat_", "stall_", "stddev", "busy", "qd_95pct", "spread_pct", "standstill"
)  # fmt: skip

_VERBS = {"randread": "random read", "randwrite": "random write", "seqread": "sequential read",
          "seqwrite": "sequential write", "read": "sequential read",
          "write": "sequential write"}  # fmt: skip
_IO = re.compile(
    r"^(?P<verb>randread|randwrite|seqread|seqwrite|read|write|mix\d{1,2})-(?P<bs>\d+[kmKM]?)"
    r"(?:-qd(?P<qd>\d+))?(?:-(?P<jobs>\d+)jobs)?(?:-(?P<pattern>incompressible|compressible))?"
    r"(?P<sweep>-sweep)?$"
)
_HDTACH = re.compile(r"^hdtach-(?P<dir>read|write)(?:-after-(?P<after>[a-z]+))?$")
# The CrystalDiskMark-style preset's tests, as readers know them: seq1m-q8t1-read(-pass2).
_CDM = re.compile(
    r"^(?P<kind>seq|rnd)(?P<bs>\d+[km])-q(?P<qd>\d+)t(?P<t>\d+)-(?P<dir>read|write)"
    r"(?:-pass(?P<n>\d+))?$"
)
# The QD1 burst plan's tests: rnd4k-q1-read, its bursts (-burst03) and idles (-idle03).
_BURST = re.compile(
    r"^(?P<kind>rnd|seq)(?P<bs>\d+k)-q1-(?P<dir>read|write)(?:-burst(?P<n>\d+)|-idle(?P<i>\d+))?$"
)
# The AS-SSD-style preset's tests, as its window names them: asssd-4k-64thrd-read.
_ASSSD = re.compile(r"^asssd-(?P<test>seq|4k|4k-64thrd|acc)-(?P<dir>read|write)$")
_ASSSD_LABELS = {"seq": "Seq", "4k": "4K", "4k-64thrd": "4K-64Thrd", "acc": "Acc.time"}
_SLC_REFILL = re.compile(r"^slc-refill-after-(?P<idle>\d+)s$")
_HITCH = re.compile(r"^hitch-(?P<kind>seq|rand)-(?P<bs>\d+[km])-qd(?P<qd>\d+)$")
_THERMAL = re.compile(r"^(?P<kind>heat|cool)-(?P<n>\d+)$")
# The mixed plan's steps: mixed-random-4k-qd4-w30 (30% writes), its part's summary without -w.
_MIXED = re.compile(
    r"^mixed-(?P<kind>random|sequential)-(?P<bs>\d+[km])-qd(?P<qd>\d+)(?:-w(?P<w>\d+))?"
    r"(?P<idle>-idle)?$"
)
# Plan full-drive's states: `empty-randwrite-4k-qd3`, `full80-randwrite-4k-qd3`.
_STATE = re.compile(r"^(?P<state>empty|full(?P<pct>\d{1,3}))-(?P<test>.+)$")
_WORDS = {
    "consistency-4k-qd32": "4K random write QD32",
    "torture": "torture, 4K random write QD32",
    "fill": "fill",
    "prewrite": "pre-write",
    "precondition": "preconditioning",
    "measurement": "measurement",
    "steady-state-rounds": "rounds to steady state",
    "write-after-trim": "sequential write right after the TRIM",
    "trim-all": "TRIM of the whole span",
    "slc-fill": "SLC cache fill, 128K QD32",
    "mixed-prewrite": "pre-write of the span, 128K QD32",
    "file-copy": "file copy through ext4, repeated after deletions",
}


def _verb(verb: str) -> str:
    """`mix70` -> "random 70/30 read/write" (a qd-sweep's mix, named by its read share)."""
    if verb.startswith("mix"):
        reads = int(verb[3:])
        return f"random {reads}/{100 - reads} read/write"
    return _VERBS[verb]


def _bs(text: str) -> str:
    text = text.upper()
    return text if text[-1] in "KM" else f"{text} B"


def measure_name(name: str) -> str:
    """`write_lat_p99_us` -> "write 99th percentile latency"."""
    if name in MEASURES:
        return MEASURES[name]
    direction, _, bare = name.partition("_")
    if direction in ("read", "write") and bare in MEASURES:
        return f"{direction} {MEASURES[bare]}"
    return name.replace("_", " ")


def step_words(step: str) -> str:
    """A step's name in words: `randwrite-4k-qd32-compressible` -> "4K random write QD32,
    compressible"; `hdtach-write-after-trim` -> "full-span write pass after TRIM"."""
    base, _, variant = step.partition("@")
    if m := _STATE.match(base):
        state = "empty" if m["state"] == "empty" else f"{m['pct']}% full"
        return f"{step_words(m['test'])}, {state}" + variant_words(variant)
    text = _WORDS.get(base)
    if text is None and (m := _IO.match(base)):
        text = f"{_bs(m['bs'])} {_verb(m['verb'])}"
        if m["qd"]:
            text += f" QD{m['qd']}"
        if m["jobs"]:
            text += f" x {m['jobs']} jobs"
        if m["sweep"]:
            text += " QD sweep"
        if m["pattern"]:
            text += f", {m['pattern']}"
    if text is None and (m := _HDTACH.match(base)):
        text = f"full-span {m['dir']} pass"
        if m["after"]:
            text += f" after {'TRIM' if m['after'] == 'trim' else m['after']}"
    if text is None and (m := _CDM.match(base)):
        text = f"{m['kind'].upper()}{m['bs'].upper()} Q{m['qd']}T{m['t']} {m['dir']}"
        if m["n"]:
            text += f", pass {m['n']}"
    if text is None and (m := _ASSSD.match(base)):
        text = f"AS-SSD {_ASSSD_LABELS[m['test']]} {m['dir']}"
    if text is None and base == "asssd-score":
        text = "AS-SSD score"
    if text is None and (m := _HITCH.match(base)):
        kind = "sequential" if m["kind"] == "seq" else "random"
        text = f"sustained {_bs(m['bs'])} {kind} write QD{m['qd']}"
    if text is None and (m := _THERMAL.match(base)):
        text = f"{'heat' if m['kind'] == 'heat' else 'cool'} phase {m['n']}"
    if text is None and (m := _BURST.match(base)):
        kind = "sequential" if m["kind"] == "seq" else "random"
        text = f"{_bs(m['bs'])} {kind} {m['dir']} QD1 bursts"
        if m["n"]:
            text += f", burst {int(m['n'])}"
        if m["i"]:
            text += f", idle after burst {int(m['i'])}"
    if text is None and (m := _MIXED.match(base)):
        text = f"{_bs(m['bs'])} {m['kind']} mixed QD{m['qd']}"
        if m["w"] is not None:
            w = int(m["w"])
            text += f", {100 - w}/{w} read/write"
            if m["idle"]:
                text += ", idle after it"
        else:
            text += ", all write shares"
    if text is None and (m := _SLC_REFILL.match(base)):
        text = f"cache refill after {m['idle']} s idle"
    if text is None and base.startswith("trim-"):
        text = f"TRIM of {base.removeprefix('trim-').upper()}"
    if text is None and base.startswith("profile-"):
        text = f"{base.removeprefix('profile-')} desktop profile"
    if text is None and base.startswith("trace-"):
        text = f"trace {base.removeprefix('trace-')}"
    if text is None:
        text = base.replace("-", " ")
    return text + variant_words(variant)


def variant_words(variant: str) -> str:
    """ "op25@compressible" -> ", 25% OP, compressible data"."""
    words = []
    for part in filter(None, variant.split("@")):
        if part.startswith("op") and part[2:].isdigit():
            words.append(f"{part[2:]}% OP")
        else:
            words.append(f"{part} data")
    return "".join(f", {w}" for w in words)


@lru_cache(maxsize=8192)
def names(metric: str) -> dict[str, str]:
    """The words of a metric id: plan, test, measure and a title unique within a comparison
    ("4K random write QD32, compressible: IOPS")."""
    plan, _, rest = metric.partition(":")
    step, _, name = rest.partition(":")
    test = step_words(step)
    measure = measure_name(name)
    # "4K random write QD32: IOPS", not "...: write IOPS"; a mixed test keeps the direction.
    direction, _, rest = measure.partition(" ")
    other = {"read": "write", "write": "read"}.get(direction)
    if other and rest and direction in test and other not in test:
        measure = rest
    return {
        "plan": PLAN_NAMES.get(plan, plan),
        "test": test,
        "measure": measure,
        "title": f"{test}: {measure}" if test else measure,
    }


def lower_is_better(metric: str, unit: str) -> bool:
    name = metric.rsplit(":", 1)[-1]
    if name == "dropoff_s":
        return False  # later is better: the drive holds its fresh level longer
    if name == "stall_period_s":
        return False  # longer is better: the drive stalls less often
    if name == "thermal_first_throttle_s":
        return False  # later is better: the drive holds its speed longer
    if name == "state_drop_pct":
        return True  # a smaller drop from empty to full is better
    if unit == "°C":
        return True  # a cooler drive (the peak temperature)
    return unit in LOWER_IS_BETTER_UNITS or any(w in name for w in LOWER_IS_BETTER_WORDS)


def is_performance(metric: str) -> bool:
    """Whether the metric says how good the drive is (and may be coloured better or worse)."""
    name = metric.rsplit(":", 1)[-1]
    bare = name.partition("_")[2] if name.startswith(("read_", "write_")) else name
    return name not in NOT_PERFORMANCE and bare not in NOT_PERFORMANCE
