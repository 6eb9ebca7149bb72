"""`python -m tests.bench.readme [--write]`: the README's "Performance" section from the last
`make bench` (tests/bench/results/summary.json): every figure with a target next to it, and
the machine it was measured on. With --write, the section in README.md is replaced.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.bench.common import RESULTS, ROOT, fmt, measured_text, target_text

HEADING = "## Performance"
TITLES = {
    "fidelity": "Fidelity against bare fio",
    "ingest": "Ingest",
    "live": "Live latency",
    "reads": "Reads at scale",
    "browser": "Browser",
    "chart_pack": "Chart pack (5 drives)",
    "scaleout": "Scale-out (50 benches, simulated)",
    "archive": "Archive",
}
ARCHIVE_START = "<!-- archive benchmark: written by python -m tests.bench.readme -->"
ARCHIVE_END = "<!-- /archive benchmark -->"
INTRO = """\
`make bench` measures drivelab against the targets of DESIGN.md (about 15 minutes; `make bench
BENCH="ingest reads"` runs some of them). Each benchmark starts its own stack, prints a table
and writes JSON with every figure, its target and the conditions (machine, versions, load) to
tests/bench/results/. Synthetic data is loaded from real fio runs copied to drives labelled
"Synthetic drive N" (simulated). This section is written by `python -m tests.bench.readme
--write` from the last run. Other work on the machine moves every figure: the load average
before each benchmark is given, and the fidelity benchmark reports how much the same fio job
run by hand moves from run to run (its noise floor). Fidelity is measured in pairs, the same
fio job by hand and through the stack on the same target, the side going first alternating;
pairs are added until the 95% interval of the median ratio (from order statistics) is within
+-1% or the time for that job is spent, and the interval is shown after the median."""


def verdict(f: dict[str, Any]) -> str:
    return {True: "met", False: "**missed**", None: ""}[f.get("met")]


def section(summary: dict[str, Any]) -> str:
    m = summary["machine"]
    lines = [
        HEADING,
        "",
        INTRO,
        "",
        f"Measured {summary['date'][:10]} at commit {m['git']} on {m['cores']} cores "
        f"({m['cpu']}), "
        f"{m['memory_gib']} GiB, {m['os']}, Python {m['python']}, {m['fio']}; "
        f"{summary['minutes']} minutes.",
        "",
        "| benchmark | figure | measured | target | |",
        "|---|---|---:|---:|---|",
    ]
    for name, figures in summary["benchmarks"].items():
        if name == "archive":
            continue  # its own table, with the growth between sizes (archive_block)
        for f in figures:
            if f.get("target") is None and not f.get("headline"):
                continue
            lines.append(
                f"| {TITLES.get(name, name)} | {f['name']} | {measured_text(f)} "
                f"| {target_text(f)} | {verdict(f)} |"
            )
    loads = summary.get("load_avg_before") or {}
    if loads:
        listed = ", ".join(f"{name} {load[0]:.2f}" for name, load in loads.items() if load)
        lines += ["", f"1-minute load average before each benchmark: {listed}."]
    if summary.get("failed"):
        lines += ["", f"Did not finish: {', '.join(summary['failed'])}."]
    archive = archive_block()
    if archive:
        lines += ["", archive.rstrip("\n")]
    return "\n".join(lines) + "\n"


def archive_block() -> str | None:
    """The archive benchmark's table (tests/bench/results/archive.json): each figure at each
    size, its growth from the smallest size to the largest and the target at 100M samples."""
    path = RESULTS / "archive.json"
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    sizes = [f"{n / 1e6:g}M" for n in data["details"]["sizes"]]
    m = data["conditions"].get("machine", {})
    load = data["conditions"].get("load", {})
    by_name = {f["name"]: f for f in data["figures"]}
    lines = [
        ARCHIVE_START,
        f"**Archive** (`make bench BENCH=archive`): one archive grown to {', '.join(sizes)} "
        f"samples of synthetic drives, measured at each size. Measured {data['started_at'][:10]}"
        f" at commit {m.get('git')}, {data['seconds'] / 60:.0f} minutes; "
        f"{data['conditions'].get('drives')} drives, {data['conditions'].get('runs'):,} runs "
        f"at the largest size; {load.get('busy_pct_during', 0):.0f}% of the machine's CPUs busy "
        "meanwhile. Targets are for an archive of 100M samples (five years of a busy lab).",
        "",
        "| figure | " + " | ".join(sizes) + " | growth | target at 100M | |",
        "|---|" + "---:|" * len(sizes) + "---:|---:|---|",
    ]
    for row in data["details"]["growth"]:
        values = [fmt(row["values"].get(s), row["unit"]) for s in sizes]
        growth = "" if row["growth"] is None else f"x{row['growth']:.2f}"
        last = by_name.get(f"{sizes[-1]}: {row['figure']}", {})
        lines.append(
            f"| {row['figure']} | " + " | ".join(values) + f" | {growth} | "
            f"{row['target'] or ''} | {verdict(last) if row['target'] else ''} |"
        )
    notes = [f"- {f['name']}: {f['note']}" for f in data["figures"] if f.get("note")]
    lines += ["", *notes, ARCHIVE_END]
    return "\n".join(lines) + "\n"


def replace_archive_block(readme: str, block: str) -> str:
    """README with the archive table replaced (or put at the end of the generated part of the
    Performance section), the rest of the section as it is."""
    start, end = readme.find(ARCHIVE_START), readme.find(ARCHIVE_END)
    if start >= 0 and end > start:
        return readme[:start] + block.rstrip("\n") + readme[end + len(ARCHIVE_END) :]
    at = readme.find(f"\n{HEADING}\n")
    if at < 0:
        return readme.rstrip("\n") + "\n\n" + HEADING + "\n\n" + block
    ends = [readme.find(mark, at + len(HEADING) + 2) for mark in ("\n## ", "\n### ")]
    end = min((e for e in ends if e >= 0), default=len(readme))
    return readme[:end].rstrip("\n") + "\n\n" + block + readme[end:]


def replace_section(readme: str, new: str) -> str:
    """README with its Performance section replaced by `new`, or `new` put before the
    Layout section when it has none. Subsections (`### ...`) of the section are written by
    hand (what changed, what is still missed) and kept."""
    start = readme.find(f"\n{HEADING}\n")
    if start >= 0:
        ends = [readme.find(mark, start + len(HEADING) + 2) for mark in ("\n## ", "\n### ")]
        end = min((e for e in ends if e >= 0), default=len(readme))
        return readme[: start + 1] + new + readme[end:]
    layout = readme.find("\n## Layout\n")
    if layout < 0:
        return readme.rstrip("\n") + "\n\n" + new
    return readme[: layout + 1] + new + "\n" + readme[layout + 1 :]


def main(argv: list[str]) -> int:
    path = RESULTS / "summary.json"
    summary = json.loads(path.read_text()) if path.exists() else None
    if summary is not None and set(summary["benchmarks"]) <= {"archive"}:
        summary = None  # `make bench BENCH=archive` alone: only its table is replaced
    if summary is None:
        block = archive_block()
        if block is None:
            print(f"{path.relative_to(ROOT)} is missing: run `make bench` first")
            return 1
        if "--write" in argv:
            readme = ROOT / "README.md"
            readme.write_text(replace_archive_block(readme.read_text(), block))
            print(f"wrote the archive table of the {HEADING[3:]} section of README.md")
        else:
            print(block, end="")
        return 0
    text = section(summary)
    if "--write" in argv:
        readme = ROOT / "README.md"
        readme.write_text(replace_section(readme.read_text(), text))
        print(f"wrote the {HEADING[3:]} section of {Path(readme).name}")
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
