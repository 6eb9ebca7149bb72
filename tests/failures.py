"""Each failed or erroring test of a pytest junit XML file, a line each with its error's
message (the last lines `make test` prints: what failed and why, under any output tail).

    python -m tests.failures test-artifacts/junit.xml
"""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

WIDTH = 600
# A traceback entry's place as pytest writes it at a line's start: "tests/x.py:12: in f".
PLACE = re.compile(r"^(tests/[\w/.-]+\.py:\d+):", re.MULTILINE)


def place(traceback: str) -> str:
    """Where in the tests' own code it failed, which the message alone does not say: the
    test's line and, when the failure was in a helper it called, the helper's line."""
    places = PLACE.findall(traceback)
    if not places:
        return ""
    return f" at {places[0]}" + (f" > {places[-1]}" if places[-1] != places[0] else "")


def failures(path: Path) -> list[str]:
    out = []
    for case in ET.parse(path).getroot().iter("testcase"):
        for kind in ("failure", "error"):
            for bad in case.findall(kind):
                where = f"{case.get('classname', '')}::{case.get('name', '')}"
                message = " ".join((bad.get("message") or bad.text or "").split())
                at = place(bad.text or "")
                out.append(f"{kind.upper()} {where}{at}: {message}"[:WIDTH])
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m tests.failures JUNIT_XML", file=sys.stderr)
        return 2
    path = Path(argv[0])
    if not path.exists():
        print(f"no {path}: pytest wrote no report", file=sys.stderr)
        return 0
    for line in failures(path):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
