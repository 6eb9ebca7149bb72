"""Request body limits, enforced before a body is read.

Every request's body is limited (DRIVELAB_MAX_BODY_BYTES, a few hundred KiB: more than any
JSON body a person or the web app sends); a few routes that take files or batches have limits
of their own (BODY_LIMITS). A Content-Length over the limit is answered 413 at once, before
routing, authentication or reading anything; a body sent without one (chunked) is counted as
it arrives and refused as soon as it passes the limit, so an oversized body is never held in
memory whatever the client declares.

Nor is the rest of it read. The HTTP server reads (and throws away) whatever is left of a
request's body after the answer, to keep the connection for the next request: a 1 GiB body
answered 413 at once still cost the api seconds of reading it all. So any answer sent before
the whole body has arrived (a 413, a 401 on a route that checks the token before it reads
the body) says `Connection: close`, and the server closes the connection after it instead.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

KIB = 1024
MIB = 1024 * KIB


def describe(limit: int) -> str:
    return f"{limit // MIB} MiB" if limit >= MIB and limit % MIB == 0 else f"{limit // KIB} KiB"


@dataclass(frozen=True)
class RouteLimit:
    """The body limit of the requests whose method and path match."""

    method: str
    path: re.Pattern[str]
    limit: int
    what: str  # what the body is, for the message: "a trace", "a worker's report"

    def matches(self, method: str, path: str) -> bool:
        return method == self.method and self.path.fullmatch(path) is not None


CLOSE = (b"connection", b"close")


class BodyTooLarge(HTTPException):
    """Raised from `receive` when a streamed body passes its limit: FastAPI lets an
    HTTPException raised while reading a body through, and the app answers it as 413."""

    def __init__(self, message: str) -> None:
        super().__init__(status_code=413, detail=message, headers={"Connection": "close"})


def too_large_message(limit: int, what: str, declared: int | None = None) -> str:
    size = f" ({declared / MIB:.1f} MiB declared)" if declared is not None else ""
    return (
        f"the request body is too large{size}: {what} may be at most {describe(limit)} "
        f"({limit} bytes); send less"
    )


class BodyLimit:
    """ASGI middleware: 413 for a body over its route's limit (see the module's docstring)."""

    def __init__(self, app: ASGIApp, default: int, routes: tuple[RouteLimit, ...] = ()) -> None:
        self.app = app
        self.default = default
        self.routes = routes

    def limit_for(self, method: str, path: str) -> tuple[int, str]:
        for route in self.routes:
            if route.matches(method, path):
                return route.limit, route.what
        return self.default, "a request body"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit, what = self.limit_for(scope["method"], scope["path"])
        declared = content_length(scope)
        if declared is not None and declared > limit:
            await answer_413(send, too_large_message(limit, what, declared))
            return
        # Whether the request's body has all arrived: none was sent, or the last part of it
        # has been received.
        complete = declared == 0 or (declared is None and not chunked(scope))
        received = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal received, complete
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(too_large_message(limit, what))
                if not message.get("more_body", False):
                    complete = True
            return message

        async def watching_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = list(message.get("headers", ()))
                if not complete and CLOSE not in headers:
                    # Answered before the whole body arrived: close the connection rather
                    # than have the server read the rest (see the module's docstring).
                    message = {**message, "headers": [*headers, CLOSE]}
            await send(message)

        try:
            await self.app(scope, limited_receive, watching_send)
        except BodyTooLarge as exc:
            # Raised where nothing answered it (an endpoint reading the stream outside
            # FastAPI's handling): answer it here unless a response has begun.
            if started:
                raise
            await answer_413(send, str(exc.detail))


def chunked(scope: Scope) -> bool:
    return any(name == b"transfer-encoding" for name, _value in scope.get("headers", ()))


def content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def answer_413(send: Send, message: str) -> None:
    body = json.dumps({"detail": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                CLOSE,  # the rest of the body is not read: see the module's docstring
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


# --- validation errors echo a short excerpt of the input at most ---------------------------

EXCERPT_CHARS = 100


def excerpt(value: object, limit: int = EXCERPT_CHARS) -> object:
    """`value` as a validation error may echo it: short strings and numbers as they are,
    anything longer cut to its first `limit` characters with the size said."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    if isinstance(value, str):
        if len(value) <= limit:
            return value
        return f"{value[:limit]}... ({len(value)} characters)"
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # JSON has no NaN or infinity: "nan", "inf"
    if isinstance(value, (int, float, bool)) or value is None:
        return value
    try:
        text = json.dumps(value, default=str, allow_nan=False)
    except ValueError:  # holds a NaN or an infinity: said as text
        text = json.dumps(value, default=str)
        return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"
    return value if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


MESSAGE_CHARS = 300


def short_errors(errors: list[dict], shorten: Callable[[object], object] = excerpt) -> list[dict]:
    """Validation errors with `input`, `msg` (which may quote the input), the parts of `loc`
    (which may be a key sent) and values in `ctx` cut to a short excerpt."""
    out = []
    for err in errors:
        err = dict(err)
        if "input" in err:
            err["input"] = shorten(err["input"])
        if isinstance(err.get("msg"), str):
            err["msg"] = excerpt(err["msg"], MESSAGE_CHARS)
        if "loc" in err:
            err["loc"] = tuple(p if isinstance(p, int) else excerpt(p) for p in err["loc"])
        if isinstance(err.get("ctx"), dict):
            err["ctx"] = {k: shorten(v) for k, v in err["ctx"].items()}
        out.append(err)
    return out
