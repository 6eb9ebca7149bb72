"""`python -m tests.bench.readme [--write]`: the README's "Performance" section from the last
`make bench` (tests/bench/results/summary.json): every figure with a target next to it, and
the machine it was measured on. With --write, the section in README.md is replaced.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.bench.common import RESULTS, ROOT, fmt

HEADING = "## Performance"
TITLES = {
    "fidelity": "Fidelity against bare fio",
    "ingest": "Ingest",
    "live": "Live latency",
    "reads": "Reads at scale",
    "browser": "Browser",
    "scaleout": "Scale-out (50 benches, simulated)",
}
INTRO = """\
`make bench` measures drivelab against the targets of DESIGN.md (about 15 minutes; `make bench
BENCH="ingest reads"` runs some of them). Each benchmark starts its own stack, prints a table
and writes JSON with every figure, its target and the conditions (machine, versions, load) to
tests/bench/results/. Synthetic data is loaded from real fio runs copied to drives labelled
"Synthetic drive N" (simulated). This section is written by `python -m tests.bench.readme
--write` from the last run. Other work on the machine moves every figure: the load average
before each benchmark is given, and the fidelity benchmark reports how much the same fio job
run by hand moves from run to run (its noise floor)."""


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
        for f in figures:
            if f.get("target") is None and not f.get("headline"):
                continue
            target = f"{f['op']} {fmt(f['target'], f['unit'])}" if f.get("op") else ""
            lines.append(
                f"| {TITLES.get(name, name)} | {f['name']} | {fmt(f['value'], f['unit'])} "
                f"| {target} | {verdict(f)} |"
            )
    loads = summary.get("load_avg_before") or {}
    if loads:
        listed = ", ".join(f"{name} {load[0]:.2f}" for name, load in loads.items() if load)
        lines += ["", f"1-minute load average before each benchmark: {listed}."]
    if summary.get("failed"):
        lines += ["", f"Did not finish: {', '.join(summary['failed'])}."]
    return "\n".join(lines) + "\n"


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
    if not path.exists():
        print(f"{path.relative_to(ROOT)} is missing: run `make bench` first")
        return 1
    text = section(json.loads(path.read_text()))
    if "--write" in argv:
        readme = ROOT / "README.md"
        readme.write_text(replace_section(readme.read_text(), text))
        print(f"wrote the {HEADING[3:]} section of {Path(readme).name}")
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
