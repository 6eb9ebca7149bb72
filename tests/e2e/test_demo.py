"""`drivelab demo` against the running stack, quick: the catalog with its cited prices, and
three simulated drives whose shortened runs all end done (the session's demo, which
test_compare_ui charts)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from backend.demo import CATALOG_CSV, MODELS_CSV, PLANS
from backend.drives.catalog_service import name_key
from backend.prices.schemas import check_capacity_gb
from backend.prices.service import parse_price_csv
from tests.conftest import Stack
from tests.e2e.conftest import Demo

pytestmark = pytest.mark.e2e


def test_demo_fills_the_catalog_and_runs_plans_on_simulated_drives(
    stack: Stack, quick_demo: Demo
) -> None:
    out = quick_demo.out
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
        assert [Path(d["target_path"]).name for d in drives] == [
            "demo-a-128m.img",
            "demo-b-128m.img",
            "demo-c-128m.img",
        ]
        for d in drives:
            assert d["simulated"] is True
            assert d["model"]["vendor"] == "drivelab"
            assert d["model"]["model"].startswith("Simulated drive ")
            assert "Simulated" in d["label"]
            assert d["model"]["id"] not in {m["id"] for m in products}
            runs = c.get("/api/runs", params={"drive_id": d["id"]}).json()
            assert sorted(r["plan"] for r in runs) == sorted(PLANS)
            assert all(r["status"] == "done" and r["simulated"] for r in runs), runs
        simulated = {m["id"] for m in c.get("/api/models", params={"simulated": "true"}).json()}
        assert {d["model"]["id"] for d in drives} <= simulated

    # Again: nothing in the catalog is added twice.
    again = stack.cli("demo", "--no-runs")
    assert "(0 added, 8 already there)" in again.stdout
    assert "(0 imported, 8 already stored)" in again.stdout


def test_demo_help_explains_itself(stack: Stack) -> None:
    text = stack.cli("demo", "--help").stdout
    for words in ("published", "source", "Simulated drive A", "--quick", "--drives", "sparse"):
        assert words in text, words
