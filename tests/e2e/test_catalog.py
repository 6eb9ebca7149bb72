"""The catalog and prices through the running stack: models, price history, the CSV import
(all or nothing), the export that imports back, and the review price table."""

from __future__ import annotations

import csv
import io
import secrets
from pathlib import Path

import httpx
import pytest

from tests.conftest import Stack

pytestmark = pytest.mark.e2e

HEADER = "vendor,model,capacity_gb,retailer,price,currency,observed_on,source\n"
GB = 10**9


@pytest.fixture
def vendor() -> str:
    """A vendor name of this test's own, so tests sharing the stack do not collide."""
    return f"Testvendor {secrets.token_hex(3)}"


def add_model(c: httpx.Client, vendor: str, model: str, capacity: int, **specs: str) -> dict:
    r = c.post(
        "/api/models",
        json={"vendor": vendor, "model": model, "capacity_bytes": capacity, **specs},
    )
    assert r.status_code == 201, r.text
    return r.json()


def add_price(c: httpx.Client, model_id: int, **fields: object) -> httpx.Response:
    body = {
        "model_id": model_id,
        "retailer": "Newegg",
        "price": "100.00",
        "currency": "USD",
        "observed_on": "2015-07-06",
        "source": "https://example.com/review | Example review (July 6, 2015)",
        **fields,
    }
    return c.post("/api/prices", json=body)


def import_csv(c: httpx.Client, text: str) -> httpx.Response:
    return c.post("/api/prices/import", content=text, headers={"Content-Type": "text/csv"})


def counts(c: httpx.Client) -> tuple[int, int]:
    prices = c.get("/api/prices", params={"limit": 10000}).json()
    return len(prices), len(c.get("/api/models").json())


def test_models_are_created_edited_and_not_duplicated(stack: Stack, vendor: str) -> None:
    with stack.client() as c:
        m = add_model(c, vendor, "Fast 1", 1000204886016, interface="NVMe PCIe 4.0 x4")
        assert (m["vendor"], m["capacity_label"], m["simulated"]) == (vendor, "1 TB", False)
        assert m["controller"] is None

        r = c.patch(
            f"/api/models/{m['id']}",
            json={"controller": "Phison E18", "nand": "Micron 176L TLC", "dram": "1 GB"},
        )
        assert r.status_code == 200, r.text
        r = c.patch(f"/api/models/{m['id']}", json={"dram": None, "form_factor": "M.2 2280"})
        edited = r.json()
        assert (edited["controller"], edited["dram"], edited["form_factor"]) == (
            "Phison E18",
            None,
            "M.2 2280",
        )
        assert edited["interface"] == "NVMe PCIe 4.0 x4"  # untouched
        assert c.get(f"/api/models/{m['id']}").json() == edited

        # Same vendor and model, other case, the nominal capacity: the same product.
        r = c.post(
            "/api/models",
            json={"vendor": vendor.upper(), "model": "fast 1", "capacity_bytes": 1000 * GB},
        )
        assert r.status_code == 409
        assert r.json()["existing_id"] == m["id"]
        assert f"model {m['id']}" in r.json()["detail"]
        assert f"PATCH /api/models/{m['id']}" in r.json()["detail"]
        # An edit that would make another model the same product is refused too.
        other = add_model(c, vendor, "Fast 1", 2000 * GB)
        r = c.patch(f"/api/models/{other['id']}", json={"capacity_bytes": 1000204886016})
        assert r.status_code == 409 and r.json()["existing_id"] == m["id"]

        listed = c.get("/api/models", params={"simulated": "false"}).json()
        assert {m["id"], other["id"]} <= {x["id"] for x in listed}
        assert not any(x["simulated"] for x in listed)


def test_model_validation_says_what_to_fix(stack: Stack, sim_drive: dict, vendor: str) -> None:
    with stack.client() as c:
        r = c.post("/api/models", json={"vendor": vendor, "model": "X", "capacity_bytes": 500})
        assert r.status_code == 422
        assert "capacity_bytes" in r.json()["detail"] and "500000000000" in r.json()["detail"]
        r = c.post("/api/models", json={"vendor": " ", "model": "X", "capacity_bytes": GB})
        assert r.status_code == 422 and "vendor is empty" in r.json()["detail"]
        r = c.post("/api/models", json={"vendor": vendor, "capacity_bytes": GB})
        assert r.status_code == 422 and "model" in r.json()["detail"]
        m = add_model(c, vendor, "Slow 1", 250 * GB)
        r = c.patch(f"/api/models/{m['id']}", json={"vendor": None})
        assert r.status_code == 422 and "vendor cannot be null" in r.json()["detail"]
        r = c.patch(f"/api/models/{m['id']}", json={"simulated": True})
        assert r.status_code == 422 and "simulated" in r.json()["detail"]
        assert c.patch("/api/models/999999", json={"nand": "x"}).status_code == 404
        # A simulated drive's model is not a product: the catalog does not edit it.
        sim_model = sim_drive["model"]["id"]
        r = c.patch(f"/api/models/{sim_model}", json={"vendor": "Samsung"})
        assert r.status_code == 409 and "simulated" in r.json()["detail"]
        simulated = c.get("/api/models", params={"simulated": "true"}).json()
        assert sim_model in {x["id"] for x in simulated}
    with stack.client(token="") as anon:
        r = anon.post("/api/models", json={"vendor": vendor, "model": "Y", "capacity_bytes": GB})
        assert r.status_code == 401
        assert anon.get("/api/models").status_code == 401


def test_prices_keep_their_history(stack: Stack, sim_drive: dict, vendor: str) -> None:
    with stack.client() as c:
        m = add_model(c, vendor, "Value 1", 500107862016)
        first = add_price(c, m["id"], price="129.99", observed_on="2015-01-10")
        assert first.status_code == 201, first.text
        assert first.json()["capacity_bytes"] == 500107862016  # the model's by default
        assert first.json()["price"] == 129.99
        second = add_price(c, m["id"], price="119.99", observed_on="2015-03-01")
        third = add_price(
            c,
            m["id"],
            retailer="Amazon",
            price="124.50",
            observed_on="2015-02-01",
            capacity_bytes=500 * GB,  # the nominal capacity of the same model is accepted
        )
        assert second.status_code == third.status_code == 201
        history = c.get("/api/prices", params={"model_id": m["id"]}).json()
        assert [p["id"] for p in history] == [
            second.json()["id"],
            third.json()["id"],
            first.json()["id"],
        ]  # newest first, nothing overwritten
        assert history[0]["source"].startswith("https://example.com")

        bad = {
            "price": ("0", "price"),
            "currency": ("usd", "ISO 4217"),
            "observed_on": ("06/07/2015", "YYYY-MM-DD"),
            "source": ("", "source is empty"),
        }
        for name, (value, words) in bad.items():
            r = add_price(c, m["id"], **{name: value})
            assert r.status_code == 422 and words in r.json()["detail"], (name, r.text)
        r = add_price(c, m["id"], capacity_bytes=1000 * GB)
        assert r.status_code == 422 and r.json()["field"] == "capacity_bytes"
        r = add_price(c, sim_drive["model"]["id"])
        assert r.status_code == 422 and r.json()["field"] == "model_id"
        assert "simulated" in r.json()["detail"]
        assert add_price(c, 999999).status_code == 404
        assert len(c.get("/api/prices", params={"model_id": m["id"]}).json()) == 3
        # Its prices are for 500 GB: the model cannot become another capacity point...
        r = c.patch(f"/api/models/{m['id']}", json={"capacity_bytes": 512 * GB})
        assert r.status_code == 409 and "3 prices for 500 GB" in r.json()["detail"]
        # ...but the capacity may be corrected to the exact bytes.
        r = c.patch(f"/api/models/{m['id']}", json={"capacity_bytes": 500 * GB})
        assert r.status_code == 200 and r.json()["capacity_bytes"] == 500 * GB


def test_a_price_is_corrected_or_removed_and_the_audit_log_keeps_what_it_said(
    stack: Stack, vendor: str
) -> None:
    with stack.client() as c:
        m = add_model(c, vendor, "Typo 1", 1000 * GB)
        typo = add_price(c, m["id"], price="1299.00", observed_on="2015-05-01").json()
        other = add_price(c, m["id"], retailer="Amazon", price="135.00").json()
        r = c.patch(f"/api/prices/{typo['id']}", json={"price": "129.90", "retailer": "B&H"})
        assert r.status_code == 200, r.text
        fixed = r.json()
        assert (fixed["price"], fixed["retailer"], fixed["observed_on"]) == (
            129.90,
            "B&H",
            "2015-05-01",  # unchanged: only the fields sent change
        )
        # The price table uses the corrected figure.
        table = c.get("/api/prices/table").json()
        rows = [r for cls in table["classes"] for r in cls["models"] if r["model_id"] == m["id"]]
        assert rows and rows[0]["lowest"]["price"] == 129.90, rows
        # Bad corrections say what to fix and change nothing.
        for body, field in (
            ({"price": "-1"}, "price"),
            ({"source": None}, "source"),
            ({"model_id": 1}, "model_id"),
        ):
            r = c.patch(f"/api/prices/{typo['id']}", json=body)
            assert r.status_code == 422 and field in r.text, (body, r.text)
        assert c.get("/api/prices", params={"model_id": m["id"]}).json()[1]["price"] == 129.90
        assert c.patch("/api/prices/2147483000", json={"price": "1"}).status_code == 404

        assert c.delete(f"/api/prices/{other['id']}").status_code == 204
        left = c.get("/api/prices", params={"model_id": m["id"]}).json()
        assert [p["id"] for p in left] == [typo["id"]]
        audit = c.get("/api/audit", params={"limit": 50}).json()
        events = {e["action"]: e for e in audit if m["model"] in (e.get("subject") or "")}
        corrected = events["price.corrected"]["details"]
        assert corrected["price"] == {"from": "1299.00", "to": "129.90"}
        assert corrected["retailer"] == {"from": "Newegg", "to": "B&H"}
        assert events["price.deleted"]["details"]["price"] == "135.00"


def test_csv_import_adds_models_and_prices(stack: Stack, vendor: str) -> None:
    with stack.client() as c:
        known = add_model(c, vendor, "Known", 1000204886016)
        text = (
            HEADER
            + f"{vendor},Known,1000,Newegg,374.00,USD,2015-07-06,https://a.example/1\n"
            + f'{vendor},New,250,Newegg,100.00,USD,2015-07-06,"Review, p. 3"\n'
            + f"{vendor},New,250,Amazon,99.00,USD,2015-07-07,https://a.example/2\n"
        )
        r = import_csv(c, text)
        assert r.status_code == 200, r.text
        out = r.json()
        assert (out["rows"], out["imported"], out["duplicates"]) == (3, 3, 0)
        assert [(m["model"], m["capacity_bytes"]) for m in out["created_models"]] == [
            ("New", 250 * GB)
        ]
        prices = c.get("/api/prices", params={"model_id": known["id"]}).json()
        assert [(p["price"], p["capacity_bytes"]) for p in prices] == [(374.0, 1000 * GB)]
        new_id = out["created_models"][0]["id"]
        assert len(c.get("/api/prices", params={"model_id": new_id}).json()) == 2
        # The same file again stores nothing twice.
        again = import_csv(c, text).json()
        assert (again["imported"], again["duplicates"], again["created_models"]) == (0, 3, [])


def test_csv_import_with_bad_rows_imports_nothing(stack: Stack, vendor: str) -> None:
    with stack.client() as c:
        before = counts(c)
        text = (
            HEADER
            + f"{vendor},Half,500,Newegg,165.00,USD,2015-07-06,https://a.example/1\n"
            + f"{vendor},Half,500,Newegg,-3,USD,2015-07-06,https://a.example/1\n"
            + f"{vendor},Half,1000,Newegg,374.00,USD,2015-07-06,https://a.example/1\n"
            + f"{vendor},Half,2000,Newegg,800.00,dollars,2015-13-01,https://a.example/1\n"
        )
        r = import_csv(c, text)
        assert r.status_code == 422
        body = r.json()
        assert [e["line"] for e in body["errors"]] == [3, 5]
        assert "line 3: price '-3' must be greater than 0" in body["detail"]
        assert "line 5: " in body["detail"] and "ISO 4217" in body["detail"]
        assert "2 of 4 price rows are invalid, nothing was imported" in body["detail"]
        assert counts(c) == before  # no price, and no model from the good rows
        models = c.get("/api/models").json()
        assert not any(m["vendor"] == vendor for m in models)

        r = import_csv(c, "vendor,model,price\nA,B,1\n")
        assert r.status_code == 422 and "the header lacks capacity_gb" in r.json()["detail"]
        assert counts(c) == before


def test_export_imports_back_unchanged(stack: Stack, vendor: str, tmp_path: Path) -> None:
    with stack.client() as c:
        m = add_model(c, vendor, "Round trip", 2000398934016)
        assert add_price(c, m["id"], source='Quote "x", comma').status_code == 201
        assert add_price(c, m["id"], price="750.50", currency="EUR").status_code == 201
        r = c.get("/api/prices.csv")
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
        rows = list(csv.DictReader(io.StringIO(r.text)))
        mine = [row for row in rows if row["vendor"] == vendor]
        assert sorted((row["price"], row["currency"]) for row in mine) == [
            ("100.00", "USD"),
            ("750.50", "EUR"),
        ]
        assert {row["capacity_gb"] for row in mine} == {"2000.398934016"}
        assert 'Quote "x", comma' in {row["source"] for row in mine}
        assert all(row["source"] for row in rows)

        before = counts(c)
        back = import_csv(c, r.text).json()
        assert (back["imported"], back["duplicates"]) == (0, len(rows))
        assert back["created_models"] == [] and counts(c) == before

    # The same through the CLI.
    out = tmp_path / "prices.csv"
    stack.cli("prices", "export", "-o", str(out))
    assert out.read_text() == r.text
    done = stack.cli("prices", "import", str(out))
    assert f"{len(rows)} rows: 0 imported, {len(rows)} already stored" in done.stdout
    bad = tmp_path / "bad.csv"
    bad.write_text(HEADER + f"{vendor},Round trip,2000,Shop,0,USD,2015-07-06,x\n")
    failed = stack.cli("prices", "import", str(bad), check=False)
    assert failed.returncode == 2 and "line 2: price '0' must be greater than 0" in failed.stderr


def test_price_table(stack: Stack, vendor: str) -> None:
    currency = "SEK"  # no other test prices in it: the table is this test's alone
    with stack.client() as c:
        a = add_model(c, vendor, "A", 250 * GB)
        b = add_model(c, vendor, "B", 256060514304)
        d = add_model(c, vendor, "D", 512 * GB)
        e = add_model(c, vendor, "E", 750 * GB)
        text = HEADER + "".join(
            f"{vendor},{model},{gb},{shop},{price},{currency},{day},https://t.example/{i}\n"
            for i, (model, gb, shop, price, day) in enumerate(
                [
                    ("A", 250, "Shop 1", "1000.00", "2015-01-01"),
                    ("A", 250, "Shop 1", "900.00", "2015-02-01"),  # latest at Shop 1
                    ("A", 250, "Shop 2", "950.00", "2015-01-15"),
                    ("B", 256.060514304, "Shop 1", "1100.00", "2015-01-01"),
                    ("D", 512, "Shop 2", "1500.00", "2015-01-01"),
                    ("E", 750, "Shop 1", "2000.00", "2015-01-01"),
                ]
            )
        )
        assert import_csv(c, text).json()["imported"] == 6
        r = c.get("/api/prices/table", params={"currency": currency})
        assert r.status_code == 200, r.text
        table = r.json()
        assert table["currency"] == currency and currency in table["currencies"]
        classes = {k["label"]: k["models"] for k in table["classes"]}
        assert list(classes) == ["240/250/256 GB", "480/500/512 GB", "960/1000/1024 GB"]
        small = classes["240/250/256 GB"]
        assert [row["model_id"] for row in small] == [a["id"], b["id"]]  # cheapest per GB
        row_a = small[0]
        assert [(p["retailer"], p["price"]) for p in row_a["prices"]] == [
            ("Shop 1", 900.0),
            ("Shop 2", 950.0),
        ]
        assert row_a["lowest"]["retailer"] == "Shop 1" and row_a["price_per_gb"] == 3.6
        assert small[1]["price_per_gb"] == round(1100 / 256.060514304, 4)
        assert [row["model_id"] for row in classes["480/500/512 GB"]] == [d["id"]]
        assert classes["480/500/512 GB"][0]["price_per_gb"] == 2.9297
        assert [row["model_id"] for row in classes["960/1000/1024 GB"]] == [e["id"]]
        r = c.get("/api/prices/table", params={"currency": "usd"})
        assert r.status_code == 422 and r.json()["field"] == "currency"


def test_prices_too_large_for_the_column_are_refused_everywhere(stack: Stack, vendor: str) -> None:
    """1e30 as a JSON number or as text, in a new price, a correction and a CSV row: 422 saying
    it is too large (it was a 500: rounded to cents it has more digits than Decimal holds)."""
    with stack.client() as c:
        m = add_model(c, vendor, "Huge 1", 1000 * GB)
        before = counts(c)
        for value in (1e30, "1e30", 10**30, "10000000000.00"):
            r = add_price(c, m["id"], price=value)
            assert r.status_code == 422, (value, r.text)
            assert "is too large: at most 9999999999.99" in r.json()["detail"], r.text
        kept = add_price(c, m["id"], price="9999999999.99")
        assert kept.status_code == 201, kept.text
        for value in (1e30, "1e30"):
            r = c.patch(f"/api/prices/{kept.json()['id']}", json={"price": value})
            assert r.status_code == 422 and "is too large" in r.json()["detail"], r.text
        row = f"{vendor},Huge 1,1000,Newegg,1e30,USD,2015-07-06,https://a.example/1\n"
        r = import_csv(c, HEADER + row)
        assert r.status_code == 422, r.text
        assert "line 2: price '1e30' is too large" in r.json()["detail"]
        assert counts(c) == (before[0] + 1, before[1])
        prices = c.get("/api/prices", params={"model_id": m["id"]}).json()
        assert [p["price"] for p in prices] == [9999999999.99]
