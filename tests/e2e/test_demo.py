"""`drivelab demo` against the running stack, quick: the catalog with its cited prices, and
three simulated drives whose shortened runs all end done (the session's demo, which
test_compare_ui charts)."""

from __future__ import annotations

import csv
from typing import Any

import httpx
import pytest

from backend.analysis.stalls import MIN_STALL_S
from backend.demo import CATALOG_CSV, MODELS_CSV, PLANS
from backend.drives.catalog_service import name_key
from backend.prices.schemas import check_capacity_gb
from backend.prices.service import parse_price_csv
from tests.conftest import Stack
from tests.e2e.conftest import Demo
from worker.sim.controller import requirements
from worker.sim.profile import DEMO_PROFILES

# The quick demo takes minutes on a busy machine; this module may be the first to wait for it.
pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]


def test_demo_fills_the_catalog_and_runs_plans_on_simulated_drives(
    stack: Stack, quick_demo: Demo
) -> None:
    """As root with cgroups the demo's drives are simulated drives (worker.sim) whose charts
    show step-downs, a drop-off and stalls; elsewhere sparse files, and the demo says so."""
    missing = requirements()
    out = quick_demo.out
    if missing:
        assert "no simulated drives here" in out.stdout
    else:
        assert "a loop device shaped by the kernel's block throttle" in out.stdout
        assert "the simulated drives run as long as this command" in out.stdout
    assert "catalog: 8 drive models" in out.stdout
    assert "8 published prices" in out.stdout

    with open(MODELS_CSV, newline="", encoding="utf-8") as f:
        wanted = {
            (*name_key(m["vendor"], m["model"]), check_capacity_gb(m["capacity_gb"])): m
            for m in csv.DictReader(f)
        }
    published = parse_price_csv(CATALOG_CSV.read_text(encoding="utf-8"))
    with stack.client() as c:
        products = c.get("/api/models", params={"simulated": "false"}).json()
        by_key = {(*name_key(m["vendor"], m["model"]), m["capacity_bytes"]): m for m in products}
        assert set(wanted) <= set(by_key)
        evo_2tb = by_key[("samsung", "850 evo", 2000 * 10**9)]
        assert (evo_2tb["controller"], evo_2tb["dram"]) == ("Samsung MHX", "2 GB LPDDR3")

        prices = c.get("/api/prices", params={"limit": 10000}).json()
        assert all(p["source"] and p["source"].strip() for p in prices)
        stored = {
            (p["model_id"], p["retailer"], p["price"], p["currency"], p["observed_on"], p["source"])
            for p in prices
        }
        for row in published:
            model = by_key[(*name_key(row.vendor, row.model), row.capacity_bytes)]
            key = (
                model["id"],
                row.retailer,
                float(row.price),
                row.currency,
                row.observed_on.isoformat(),
                row.source,
            )
            assert key in stored, row

        table = c.get("/api/prices/table", params={"currency": "USD"}).json()
        in_table = {r["model_id"] for k in table["classes"] for r in k["models"]}
        assert {by_key[k]["id"] for k in wanted} <= in_table

        drives = quick_demo.drives
        assert len(drives) == 3
        unseen: list[str] = []
        if missing:
            assert all(d["target_path"].endswith("-256m.img") for d in drives)
        else:
            assert all(d["target_path"].startswith("/dev/") for d in drives)
        for d in drives:
            assert d["simulated"] is True
            assert d["model"]["vendor"] == "drivelab"
            assert d["model"]["model"].startswith("Simulated drive ")
            assert "Simulated" in d["label"]
            assert d["model"]["id"] not in {m["id"] for m in products}
            runs = c.get("/api/runs", params={"drive_id": d["id"]}).json()
            assert sorted(r["plan"] for r in runs) == sorted(PLANS)
            assert all(r["status"] == "done" and r["simulated"] for r in runs), runs
            if not missing:
                found, seen = _findings(c, runs)
                profile = DEMO_PROFILES[f"demo-{d['model']['model'].split()[-1].lower()}"]
                # Drive C makes no periodic stalls (only for 2 s after a whole-span TRIM, which
                # may end before the write-hitching write begins).
                wanted_findings = ["hdtach", "dropoff", *(["stalls"] if profile.stalls else [])]
                unseen += [f"{d['label']}: no {what}; found {seen}" for what in wanted_findings
                           if not found[what]]  # fmt: skip
        simulated = {m["id"] for m in c.get("/api/models", params={"simulated": "true"}).json()}
        assert {d["model"]["id"] for d in drives} <= simulated

    # Again: nothing in the catalog is added twice.
    again = stack.cli("demo", "--no-runs")
    assert "(0 added, 8 already there)" in again.stdout
    assert "(0 imported, 8 already stored)" in again.stdout
    if unseen and quick_demo.host_worst_s > MIN_STALL_S:
        # As the self-test (tests/e2e/test_simulated_drives.py): fio held up longer than the
        # shortest stall the analysis reports is a real stall of the writes, and no fio output
        # tells it from the drive's. What each step found is in the reason.
        pytest.skip(
            f"the host held processes up for {quick_demo.host_worst_s:.2f} s during the demo "
            f"(more than {MIN_STALL_S} s): {unseen}"
        )
    assert not unseen, unseen


def _findings(c: httpx.Client, runs: list[dict]) -> tuple[dict[str, bool], dict[str, Any]]:
    """Whether the drive's runs found step-downs, a drop-off and stalls; and what each step's
    analysis said (HD Tach levels, drop-off, stalls), for the message when one is missing."""
    out = {"hdtach": False, "dropoff": False, "stalls": False}
    seen: dict[str, Any] = {}
    for summary in runs:
        run = c.get(f"/api/runs/{summary['id']}").json()
        for step in run["steps"]:
            f = step.get("findings") or {}
            where = f"run {run['id']} {step['name']}"
            if run["plan"] == "hdtach" and f.get("hdtach"):
                out["hdtach"] |= bool(f["hdtach"].get("step_downs"))
                seen[where] = [(round(v["from_pct"], 1), round(v["mbps"], 1))
                               for v in f["hdtach"].get("levels", [])]  # fmt: skip
            if run["plan"] == "consistency" and f.get("dropoff"):
                out["dropoff"] |= bool(f["dropoff"].get("dropoff_s"))
                seen[where] = f["dropoff"].get("dropoff_s")
            if run["plan"] == "write-hitching" and f.get("stalls"):
                out["stalls"] |= bool(f["stalls"].get("count"))
                seen[where] = [(s["start_s"], s["duration_s"])
                               for s in f["stalls"].get("stalls", [])]  # fmt: skip
    return out, seen


def test_demo_help_explains_itself(stack: Stack) -> None:
    text = stack.cli("demo", "--help").stdout
    for words in ("published", "source", "Simulated drive A", "--quick", "--drives", "sparse"):
        assert words in text, words
