"""The price CSV: every row checked, bad rows listed by their line in the file."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest

from backend.prices import schemas
from backend.prices.service import InvalidCsv, parse_price_csv, write_price_csv

HEADER = "vendor,model,capacity_gb,retailer,price,currency,observed_on,source\n"


def test_rows_are_parsed_with_their_line_numbers() -> None:
    text = (
        HEADER
        + "Samsung,850 EVO,250,Newegg,100.00,USD,2015-07-06,https://example.com/a\n"
        + "\n"  # a blank line is skipped, not counted
        + 'Crucial, MX100 ,256,Amazon,109.99,USD,2014-06-02,"Review, p. 2 (""quoted"")"\n'
    )
    rows = parse_price_csv(text)
    assert [r.line for r in rows] == [2, 4]
    assert rows[0].capacity_bytes == 250 * 10**9
    assert rows[0].price == Decimal("100.00")
    assert rows[0].observed_on == date(2015, 7, 6)
    assert rows[1].model == "MX100"  # trimmed
    assert rows[1].source == 'Review, p. 2 ("quoted")'


def test_every_bad_row_is_listed_by_line_and_nothing_passes() -> None:
    text = (
        HEADER
        + "Samsung,850 EVO,250,Newegg,100.00,USD,2015-07-06,https://example.com/a\n"
        + "Samsung,850 EVO,500,Newegg,-5,usd,2015-07-06,https://example.com/a\n"
        + "Samsung,850 EVO,1000,Newegg,374.00,USD,06/07/2015,\n"
        + "Samsung,850 EVO,2000,Newegg,800.00,USD,2015-07-06,https://example.com/a\n"
    )
    with pytest.raises(InvalidCsv) as err:
        parse_price_csv(text)
    lines = {line: problems for line, problems in err.value.errors}
    assert sorted(lines) == [3, 4]
    assert any("price '-5' must be greater than 0" in p for p in lines[3])
    assert any("currency 'usd'" in p and "ISO 4217" in p for p in lines[3])
    assert any("YYYY-MM-DD" in p for p in lines[4])
    assert any(p.startswith("source is empty") for p in lines[4])
    message = err.value.message
    assert message.startswith("2 of 4 price rows are invalid, nothing was imported")
    assert "line 3: " in message and "line 4: " in message
    body = err.value.body()
    assert body["errors"][0]["line"] == 3 and err.value.status_code == 422


def test_a_row_is_numbered_by_the_line_it_starts_on() -> None:
    text = (
        HEADER
        + 'Samsung,850 EVO,250,Newegg,100.00,USD,2015-07-06,"two\nlines"\n'
        + "Samsung,850 EVO,500,Newegg,0,USD,2015-07-06,x\n"
    )
    with pytest.raises(InvalidCsv) as err:
        parse_price_csv(text)
    assert [line for line, _ in err.value.errors] == [4]


def test_header_problems_are_named() -> None:
    with pytest.raises(InvalidCsv) as err:
        parse_price_csv("vendor,model,capacity,retailer,price,currency,observed_on,source\n")
    ((line, problems),) = err.value.errors
    assert line == 1
    assert "the header lacks capacity_gb" in problems[0]
    assert "unknown column(s) capacity" in problems[1]
    with pytest.raises(InvalidCsv, match="the file is empty"):
        parse_price_csv("")
    with pytest.raises(InvalidCsv, match="no price rows"):
        parse_price_csv(HEADER)


def test_columns_in_any_order_and_a_short_row() -> None:
    text = (
        "source,observed_on,currency,price,retailer,capacity_gb,model,vendor\n"
        "x,2015-07-06,USD,1.50,Shop,120,SSD,Acme\n"
        "x,2015-07-06,USD,1.50,Shop,120,SSD\n"
    )
    with pytest.raises(InvalidCsv) as err:
        parse_price_csv(text)
    ((line, problems),) = err.value.errors
    assert line == 3 and "7 fields where the header has 8" in problems[0]
    row = parse_price_csv(text.rsplit("x,", 1)[0])[0]
    assert (row.vendor, row.model, row.price) == ("Acme", "SSD", Decimal("1.50"))


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("0", "must be greater than 0"),
        ("12.345", "more than 2 decimals"),
        ("$109.99", "without a currency sign"),
        ("1,099.00", "without a currency sign"),
        ("NaN", "not a number"),
        ("", "not a number"),
        ("1e30", "too large: at most 9999999999.99"),
        (1e30, "too large"),
        ("10000000000", "too large"),
    ],
)
def test_bad_prices(value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("$", r"\$")):
        schemas.check_price(value)


def test_good_values() -> None:
    assert schemas.check_price("109.9") == Decimal("109.90")
    assert schemas.check_price(109.99) == Decimal("109.99")
    assert schemas.check_currency(" EUR ") == "EUR"
    assert schemas.check_capacity_gb("2000.398934016") == 2000398934016
    assert schemas.check_source("  a   citation ") == "a citation"


@pytest.mark.parametrize("code", ["usd", "US", "USDX", "U$D", "", None])
def test_currency_must_be_three_upper_case_letters(code: object) -> None:
    with pytest.raises(ValueError, match="ISO 4217"):
        schemas.check_currency(code)


def test_dates() -> None:
    with pytest.raises(ValueError, match="not a real date"):
        schemas.check_observed_on("2015-02-30")
    with pytest.raises(ValueError, match="in the future"):
        schemas.check_observed_on((date.today() + timedelta(days=3)).isoformat())
    with pytest.raises(ValueError, match="YYYY-MM-DD"):
        schemas.check_observed_on("July 6, 2015")


@pytest.mark.parametrize(
    ("value", "message"),
    [("0.5", "between 1 and 1000000"), ("-250", "positive"), ("250.0000000001", "whole number")],
)
def test_bad_capacities(value: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        schemas.check_capacity_gb(value)


@pytest.mark.parametrize("n", [250 * 10**9, 2000398934016, 256060514304, 10**12])
def test_capacity_gb_is_exact_both_ways(n: int) -> None:
    assert schemas.check_capacity_gb(schemas.format_capacity_gb(n)) == n


def test_written_csv_reads_back_the_same() -> None:
    rows = [
        (
            "Samsung",
            "850 EVO",
            2000398934016,
            "Newegg",
            Decimal("800.00"),
            "USD",
            date(2015, 7, 6),
            'https://x, "title"',
        ),
        (
            "Crucial",
            "MX100",
            256 * 10**9,
            "Amazon",
            Decimal("109.99"),
            "EUR",
            date(2014, 6, 2),
            "line one\nline two",
        ),
    ]
    back = parse_price_csv(write_price_csv(rows))
    assert [
        (r.vendor, r.model, r.capacity_bytes, r.retailer, r.price, r.currency, r.observed_on)
        for r in back
    ] == [r[:7] for r in rows]
    assert back[0].source == rows[0][7]
    assert back[1].source == "line one line two"  # whitespace runs collapse to one space
