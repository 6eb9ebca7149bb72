"""schemathesis hooks for drivelab's fuzzing (loaded through SCHEMATHESIS_HOOKS)."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from typing import Any

import requests
import schemathesis

from backend.core.limits import excerpt

# Numbers JSON has no room for, which Python's and pydantic's decoders take all the same.
NON_FINITE = ("NaN", "Infinity", "-Infinity", "1e400", "-1e400")
# The statuses a body with one may get: 422 naming it, or a refusal that comes before the body
# is read (401/403: the worker routes that check the token first).
BEFORE_THE_BODY = (401, 403)
_MARK = "drivelab-non-finite-mark"


@schemathesis.check
def says_what_to_fix(ctx: Any, response: Any, case: Any) -> bool | None:
    """A 4xx carries a JSON body with a non-empty `detail` sentence the user can act on."""
    if 400 <= response.status_code < 500:
        try:
            detail = response.json().get("detail")
        except (ValueError, AttributeError) as exc:
            raise AssertionError(f"{response.status_code} without a JSON body") from exc
        if not (isinstance(detail, str) and detail.strip()):
            raise AssertionError(
                f"{response.status_code} with no `detail` to act on: {response.text[:200]}"
            )
    return None


def _places(value: object, path: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    """Every place in a body a value sits (the body itself included)."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _places(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _places(item, (*path, i))


def _put(body: Any, path: tuple[str | int, ...], value: object) -> Any:
    if not path:
        return value
    body = copy.deepcopy(body)
    inner = body
    for key in path[:-1]:
        inner = inner[key]
    inner[path[-1]] = value
    return body


@schemathesis.check
def refuses_non_finite_numbers(ctx: Any, response: Any, case: Any) -> bool | None:
    """The fuzzed request again, with one value of its JSON body (chosen from the case, all
    of it included) replaced by NaN, Infinity, -Infinity, 1e400 or -1e400: the api answers
    422 naming that place, or refuses before reading the body; never a 5xx or a 2xx."""
    if "json" not in (case.media_type or "") or response.request.body is None:
        return None
    if "json" not in response.request.headers.get("Content-Type", "").lower():
        # A negative case sent under another media type (text/plain): the api does not read
        # it as JSON at all, so no number in it is one (it answers 422 for the body as such).
        return None
    try:
        body = json.loads(response.request.body)
    except ValueError:
        return None  # not JSON (negative tests send other bodies): nothing to replace
    seed = f"{case.method} {case.path} {response.request.body!r}"
    rng = random.Random(seed)
    path = rng.choice(list(_places(body)))
    literal = rng.choice(NON_FINITE)
    text = json.dumps(_put(body, path, _MARK)).replace(json.dumps(_MARK), literal)
    headers = {k: v for k, v in response.request.headers.items() if k.lower() != "content-length"}
    sent = f"{case.method} {case.path} with {text[:300]}"
    answer = requests.request(
        case.method, response.request.url, data=text.encode(), headers=headers, timeout=30
    )
    if answer.status_code in BEFORE_THE_BODY:
        return None
    if answer.status_code in (404, 405) and answer.status_code == response.status_code:
        return None  # no route took the request (a path parameter with a slash...): unread
    if answer.status_code == response.status_code == 422 and answer.text == response.text:
        # The same refusal, word for word, as the body with finite numbers got (a path
        # parameter that is no id): had the api read the body, it would name the number too.
        return None
    if answer.status_code != 422:
        raise AssertionError(
            f"{sent}: {answer.status_code}, not 422 naming {list(path)}: {answer.text[:300]}"
        )
    try:
        errors = answer.json()["errors"]
    except (ValueError, KeyError) as exc:
        raise AssertionError(f"{sent}: a 422 without JSON errors: {answer.text[:300]}") from exc
    named = [e["loc"] for e in errors if e.get("type") == "finite_number"]
    # A key the api echoes in `loc` is cut to an excerpt, as every echo of the input is.
    want = ["body", *(p if isinstance(p, int) else excerpt(p) for p in path)]
    if want not in named:
        raise AssertionError(f"{sent}: the 422 names {named}, not {want}")
    return None
