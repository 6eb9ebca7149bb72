"""The demo's catalog: published prices, each with its source, that the import accepts."""

from __future__ import annotations

import csv

from backend.demo import CATALOG_CSV, MODELS_CSV
from backend.drives.catalog_service import name_key
from backend.prices.schemas import check_capacity_gb
from backend.prices.service import capacity_class, parse_price_csv


def test_every_demo_price_is_valid_and_cited() -> None:
    rows = parse_price_csv(CATALOG_CSV.read_text(encoding="utf-8"))
    assert 8 <= len(rows) <= 40
    for row in rows:
        assert row.source.startswith("http") and " | " in row.source, row
        assert str(row.observed_on.year) in row.source  # the date the page states
    classes = {capacity_class(r.capacity_bytes).label for r in rows}
    assert 2 <= len(classes) <= 4
    assert {r.currency for r in rows} == {"USD"}


def test_every_priced_model_has_its_specifications() -> None:
    with open(MODELS_CSV, newline="", encoding="utf-8") as f:
        models = {
            (*name_key(m["vendor"], m["model"]), check_capacity_gb(m["capacity_gb"])): m
            for m in csv.DictReader(f)
        }
    assert 8 <= len(models) <= 20
    assert all(m["source"].startswith("http") for m in models.values())
    rows = parse_price_csv(CATALOG_CSV.read_text(encoding="utf-8"))
    assert {(*name_key(r.vendor, r.model), r.capacity_bytes) for r in rows} == set(models)
    assert not any("simulated" in m["model"].lower() for m in models.values())
