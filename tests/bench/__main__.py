"""`make bench` = `python -m tests.bench [NAME...]`: run the benchmarks (all but the archive
by default), print each one's table as it finishes and a summary of every figure next to its
target, and write tests/bench/results/NAME.json and summary.json.

A missed target is reported, not an error; the exit status is 1 only when a benchmark could
not run to its end.
"""

from __future__ import annotations

import importlib
import json
import sys
import time
import traceback

from tests.bench.common import (
    RESULTS,
    Report,
    machine,
    measured_text,
    now_iso,
    stop_on_sigterm,
    target_text,
)

ORDER = ("fidelity", "ingest", "live", "reads", "browser", "chart_pack", "scaleout", "archive")
# Run only when named (`make bench BENCH=archive`): it takes 20+ minutes at 1M and 10M samples.
DEFAULT = ORDER[:-1]


def main(argv: list[str]) -> int:
    names = argv or list(DEFAULT)
    unknown = [n for n in names if n not in ORDER]
    if unknown:
        print(f"unknown benchmark {', '.join(unknown)}: choose from {', '.join(ORDER)}")
        return 2
    stop_on_sigterm()
    t0 = time.monotonic()
    reports: list[Report] = []
    failed: list[str] = []
    for name in names:
        print(f"\n### {name}", flush=True)
        try:
            module = importlib.import_module(f"tests.bench.bench_{name}")
            reports.append(module.main())
        except Exception:  # noqa: BLE001 - report it and go on with the others
            traceback.print_exc()
            failed.append(name)
    total = time.monotonic() - t0
    print(f"\n### summary ({total / 60:.1f} min)")
    rows = [("benchmark", "figure", "measured", "target", "")]
    for r in reports:
        for f in r.figures:
            d = f.as_dict()
            rows.append(
                (
                    r.benchmark,
                    f.name,
                    measured_text(d),
                    target_text(d) or "-",
                    {True: "ok", False: "MISSED", None: ""}[f.met],
                )
            )
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    for row in rows:
        print(
            f"  {row[0]:<{widths[0]}}  {row[1]:<{widths[1]}}  {row[2]:>{widths[2]}}  "
            f"{row[3]:>{widths[3]}}  {row[4]}".rstrip()
        )
    for name in failed:
        print(f"  {name}: did not finish (see the traceback above)")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "summary.json").write_text(
        json.dumps(
            {
                "date": now_iso(),
                "minutes": round(total / 60, 1),
                "machine": machine(),
                "benchmarks": {r.benchmark: [f.as_dict() for f in r.figures] for r in reports},
                "load_avg_before": {
                    r.benchmark: r.conditions.get("load", {}).get("load_avg_before")
                    for r in reports
                },
                "failed": failed,
            },
            indent=2,
            default=str,
        )
        + "\n"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
