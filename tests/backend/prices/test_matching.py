"""Which catalog entry a (vendor, model, capacity) is: the CSV import and POST /api/models
duplicates use the same rule."""

from __future__ import annotations

import pytest

from backend.drives import catalog_service as cs
from backend.drives.models import DriveModel


def model(id: int, vendor: str, name: str, capacity: int, simulated: bool = False) -> DriveModel:
    return DriveModel(
        id=id, vendor=vendor, model=name, capacity_bytes=capacity, simulated=simulated
    )


CATALOG = [
    model(1, "Samsung", "850 EVO", 250059350016),
    model(2, "Samsung", "850 EVO", 500107862016),
    model(3, "Samsung", "850  PRO", 256060514304),
    model(4, "Crucial", "MX100", 256060514304),
]


@pytest.mark.parametrize(
    ("vendor", "name", "capacity", "expected"),
    [
        ("Samsung", "850 EVO", 250 * 10**9, 1),  # nominal GB finds the exact bytes
        ("samsung", "850 evo", 500 * 10**9, 2),  # case does not matter
        ("Samsung", "850 PRO", 256 * 10**9, 3),  # nor runs of spaces
        ("Samsung", "850 EVO", 256 * 10**9, None),  # 2.4% off: another capacity point
        ("Samsung", "850 EVO", 1000 * 10**9, None),
        ("Crucial", "MX100", 256 * 10**9, 4),
        ("Crucial", "MX200", 256 * 10**9, None),
    ],
)
def test_match(vendor: str, name: str, capacity: int, expected: int | None) -> None:
    found = cs.match_model(CATALOG, vendor, name, capacity)
    assert (found.id if found else None) == expected


def test_exclude_self_when_editing() -> None:
    assert cs.match_model(CATALOG, "Samsung", "850 EVO", 250 * 10**9, exclude_id=1) is None


def test_text_checks_say_what_to_fix() -> None:
    assert cs.clean_text("  Western   Digital ", "vendor") == "Western Digital"
    assert cs.clean_text("", "controller", required=False) is None
    with pytest.raises(ValueError, match="vendor is empty"):
        cs.clean_text("   ", "vendor")
    with pytest.raises(ValueError, match="shorten it to 80"):
        cs.clean_text("x" * 81, "vendor")
    with pytest.raises(ValueError, match="500000000000 for 500 GB"):
        cs.check_capacity_bytes(500)
    with pytest.raises(ValueError, match="whole number of bytes"):
        cs.check_capacity_bytes(5e11)
