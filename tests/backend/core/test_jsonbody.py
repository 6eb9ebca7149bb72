"""Non-finite numbers in JSON bodies: found wherever they sit, named by their place."""

from __future__ import annotations

import json

import pytest

from backend.core.jsonbody import NonFiniteNumbers, check_finite, non_finite
from backend.core.limits import excerpt


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("NaN", "NaN"),
        ("Infinity", "Infinity"),
        ("-Infinity", "-Infinity"),
        ("1e400", "Infinity"),
        ("-1e400", "-Infinity"),
        ("1E+400", "Infinity"),
        ("0.5e0400", "Infinity"),
        ("1" + "0" * 400 + ".5", "Infinity"),  # no exponent, still past a double
        ("1" + "0" * 400, "an integer of 401 digits"),  # a float field makes it infinity
    ],
)
def test_each_kind_is_found_and_named_by_its_place(text: str, shown: str) -> None:
    body = f'{{"a": 1, "b": [{{"c": 2}}, {{"d": {text}}}], "e": "NaN in a string"}}'
    errors = list(non_finite(json.loads(body)))
    assert [e["loc"] for e in errors] == [("body", "b", 1, "d")]
    assert errors[0]["input"] == shown and errors[0]["type"] == "finite_number"
    with pytest.raises(NonFiniteNumbers) as raised:
        check_finite(body.encode())
    assert raised.value.status_code == 422 and raised.value.errors == errors
    json.dumps(raised.value.errors, allow_nan=False)  # the answer can be written as JSON


def test_finite_bodies_pass_whatever_they_hold() -> None:
    for body in (
        b'{"a": 1.7976931348623157e308, "b": -1e-400, "c": 1e300, "d": "Infinity"}',
        b'[{"x": "NaN"}, 12345678901234567890]',
        b"not json at all",  # left to the validation that follows
        b"",
    ):
        check_finite(body)
    assert list(non_finite({"x": [1, 2.5, None, True, "s"]})) == []


def test_every_place_is_listed_in_document_order() -> None:
    body = json.loads('{"z": NaN, "a": [Infinity, 1, -Infinity], "m": {"n": 1e999}}')
    assert [e["loc"] for e in non_finite(body)] == [
        ("body", "z"),
        ("body", "a", 0),
        ("body", "a", 2),
        ("body", "m", "n"),
    ]
    assert [e["loc"] for e in non_finite(float("nan"))] == [("body",)]


def test_an_echoed_input_is_never_a_non_finite_number() -> None:
    """A validation error that echoes its input (a query parameter `nan` read as a float)
    stays writable as JSON."""
    for value in (float("nan"), float("inf"), [float("-inf")], {"a": float("nan")}):
        json.dumps(excerpt(value), allow_nan=False)
    assert excerpt(float("inf")) == "inf" and excerpt(2.5) == 2.5


def test_every_route_of_the_api_decodes_its_body_through_the_check() -> None:
    """A router made without route_class=FiniteJSONRoute would take NaN again."""
    from fastapi.routing import APIRoute

    from backend.core.jsonbody import FiniteJSONRoute
    from backend.core.settings import Settings
    from backend.main import create_app

    app = create_app(
        Settings(database_url="postgresql://unused@127.0.0.1/unused", redis_url="redis://x:1/0")
    )
    routes, todo = [], list(app.routes)
    while todo:  # an included router is kept whole, its routes inside it
        route = todo.pop()
        included = getattr(route, "original_router", None)
        if included is not None:
            todo.extend(included.routes)
        elif isinstance(route, APIRoute):
            routes.append(route)
    assert len(routes) > 50
    plain = [f"{sorted(r.methods)} {r.path}" for r in routes if not isinstance(r, FiniteJSONRoute)]
    assert not plain, plain
