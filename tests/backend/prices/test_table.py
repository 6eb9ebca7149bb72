"""The review price table: capacity classes, current prices, the lowest and $/GB."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from backend.prices.service import (
    Observation,
    build_table,
    capacity_class,
    current_prices,
    price_per_gb,
)

GB = 10**9


@pytest.mark.parametrize(
    ("gb", "label"),
    [
        (120, "120/128 GB"),
        (128, "120/128 GB"),
        (180, "240/250/256 GB"),
        (240, "240/250/256 GB"),
        (256.06, "240/250/256 GB"),
        (480, "480/500/512 GB"),
        (512, "480/500/512 GB"),
        (750, "960/1000/1024 GB"),  # 25% under 1000, 46% over 512
        (960, "960/1000/1024 GB"),
        (1000.2, "960/1000/1024 GB"),
        (1024, "960/1000/1024 GB"),
        (1920, "1920/2000/2048 GB"),
        (2048, "1920/2000/2048 GB"),
        (3840, "4000/4096 GB"),
        (4096, "4000/4096 GB"),
    ],
)
def test_a_model_goes_to_the_nearest_capacity_class(gb: float, label: str) -> None:
    assert capacity_class(int(gb * GB)).label == label


def test_price_per_decimal_gigabyte() -> None:
    assert price_per_gb(Decimal("109.99"), 256 * GB) == Decimal("0.4296")
    assert price_per_gb(Decimal("800.00"), 2000 * GB) == Decimal("0.4000")
    # Decimal GB of the exact capacity, not GiB and not the nominal size.
    assert price_per_gb(Decimal("100.00"), 2000398934016) == Decimal("0.0500")
    assert price_per_gb(Decimal("1.00"), 3 * GB) == Decimal("0.3333")


def obs(
    id: int,
    model_id: int,
    gb: int,
    retailer: str,
    price: str,
    day: date,
    currency: str = "USD",
) -> Observation:
    return Observation(
        id=id,
        model_id=model_id,
        vendor="Acme",
        model=f"M{model_id}",
        capacity_bytes=gb * GB,
        retailer=retailer,
        price=Decimal(price),
        currency=currency,
        observed_on=day,
        source=f"src {id}",
    )


def test_only_the_latest_observation_per_retailer_is_current() -> None:
    history = [
        obs(1, 1, 500, "Newegg", "150.00", date(2015, 1, 1)),
        obs(2, 1, 500, "Newegg", "170.00", date(2015, 3, 1)),  # newer, though dearer
        obs(3, 1, 500, "Newegg", "120.00", date(2015, 2, 1)),
        obs(4, 1, 500, "Amazon", "160.00", date(2015, 1, 1)),
        obs(5, 1, 500, "Amazon", "140.00", date(2015, 1, 1)),  # same day: the later entry
    ]
    current = {o.retailer: o.id for o in current_prices(history)}
    assert current == {"Newegg": 2, "Amazon": 5}


def test_table_classes_lowest_price_and_price_per_gb() -> None:
    day = date(2015, 7, 6)
    history = [
        obs(1, 1, 500, "Newegg", "165.00", day),
        obs(2, 1, 500, "Amazon", "159.99", day),
        obs(3, 2, 512, "Newegg", "210.00", day),
        obs(4, 3, 250, "Newegg", "100.00", day),
        obs(5, 4, 1000, "Newegg", "374.00", day),
        obs(6, 4, 1000, "Newegg", "999.00", date(2014, 1, 1)),  # history, not current
        obs(7, 5, 1000, "Newegg", "300.00", day, currency="EUR"),  # another currency
    ]
    table = build_table(history, "USD", ["EUR", "USD"])
    assert table.currency == "USD" and table.currencies == ["EUR", "USD"]
    assert [c.label for c in table.classes] == [
        "240/250/256 GB",
        "480/500/512 GB",
        "960/1000/1024 GB",
    ]
    mid = table.classes[1]
    assert [r.model_id for r in mid.models] == [1, 2]  # cheapest per GB first
    first = mid.models[0]
    assert [p.retailer for p in first.prices] == ["Amazon", "Newegg"]
    assert first.lowest.retailer == "Amazon" and first.lowest.price == Decimal("159.99")
    assert first.price_per_gb == Decimal("0.3200")
    assert mid.models[1].price_per_gb == Decimal("0.4102")
    big = table.classes[2].models
    assert [(r.model_id, r.lowest.price) for r in big] == [(4, Decimal("374.00"))]
    assert big[0].capacity_label == "1 TB"
    dumped = table.model_dump(mode="json")
    assert dumped["classes"][1]["models"][0]["price_per_gb"] == 0.32  # a JSON number


def test_no_prices_no_classes() -> None:
    assert build_table([], "USD", []).classes == []
