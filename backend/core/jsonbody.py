"""JSON request bodies hold finite numbers only.

Python's JSON decoder (FastAPI's) and pydantic's both take `NaN`, `Infinity` and `-Infinity`,
and turn a number past the largest double (`1e400`) into infinity. Such a value is no number
JSON can carry: a float field took it as is (and stored it), and a 422 that echoed it could
not be written as JSON (a 500 in plain text). Every body is checked where it is decoded: by
`FiniteJSONRoute` (the route class of every router) for the bodies FastAPI decodes, and by
`check_finite` for the worker's large bodies, which their routes decode themselves. A
non-finite number is refused with a 422 that names each field holding one.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException

# The largest finite double: an integer beyond it becomes infinity in a float field.
MAX_DOUBLE = sys.float_info.max
NOT_FINITE = (
    "Input should be a finite number (JSON has no NaN or Infinity, and a number beyond "
    "±1.8e308, such as 1e400, does not fit a double)"
)
# What a body holding a non-finite number must contain somewhere (in a string, too), once
# its digits are all written 0, E as e and signs left out: a literal, an exponent of three
# digits or more, or 309 digits in a row. A body with none of them is not decoded a second
# time (a worker's batch of samples may be 64 MiB): the search reads the body once more,
# at a fraction of what validating it costs.
_DIGITS = bytes.maketrans(b"0123456789E", b"0000000000e")
_CANDIDATES = (b"NaN", b"Infinity", b"e000", b"0" * 309)


def _may_hold_non_finite(body: bytes) -> bool:
    plain = body.translate(_DIGITS, b"+-")
    return any(candidate in plain for candidate in _CANDIDATES)


def _not_finite(value: object) -> str | None:
    """How a non-finite number is shown in the error (never the number itself)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_DOUBLE:
        return f"{'-' if value < 0 else ''}an integer of {len(str(abs(value)))} digits"
    return None


def non_finite(value: object, path: tuple[str | int, ...] = ()) -> Iterator[dict[str, Any]]:
    """A validation error (as pydantic's) for each non-finite number in a decoded body."""
    stack: list[tuple[tuple[str | int, ...], object]] = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, dict):
            stack.extend((where + (k,), v) for k, v in reversed(list(item.items())))
        elif isinstance(item, list):
            stack.extend((where + (i,), v) for i, v in reversed(list(enumerate(item))))
        else:
            shown = _not_finite(item)
            if shown is not None:
                yield {
                    "type": "finite_number",
                    "loc": ("body", *where),
                    "msg": NOT_FINITE,
                    "input": shown,
                }


class NonFiniteNumbers(HTTPException):
    """A body holds NaN, Infinity or a number beyond a double's range: 422 naming each field
    (backend.main answers it as it answers a validation error). An HTTPException, because
    FastAPI passes those through when they are raised while it reads a body."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__(status_code=422, detail=NOT_FINITE)
        self.errors = errors


def check_finite(body: bytes) -> None:
    """Raise NonFiniteNumbers when the JSON `body` holds a non-finite number; a body that is
    not JSON is left to the validation that follows."""
    if not _may_hold_non_finite(body):
        return
    try:
        value = json.loads(body)
    except ValueError:
        return
    errors = list(non_finite(value))
    if errors:
        raise NonFiniteNumbers(errors)


class FiniteJSONRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            value = json.loads(await self.body())
            errors = list(non_finite(value))
            if errors:
                raise NonFiniteNumbers(errors)
            self._json = value
        return self._json


class FiniteJSONRoute(APIRoute):
    """The route class of every router: FastAPI decodes the body with FiniteJSONRequest."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def finite_handler(request: Request) -> Response:
            return await handler(FiniteJSONRequest(request.scope, request.receive))

        return finite_handler
