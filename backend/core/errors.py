"""Errors that carry their HTTP status and a message a person can act on.

Mapped to JSON responses once, in backend.main.
"""

from __future__ import annotations


class DrivelabError(Exception):
    status_code = 400
    # Extra response headers (Retry-After...).
    headers: dict[str, str] | None = None

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field

    def body(self) -> dict[str, object]:
        body: dict[str, object] = {"detail": self.message}
        if self.field:
            body["field"] = self.field
        return body


class NotFound(DrivelabError):
    status_code = 404


class InvalidParams(DrivelabError):
    status_code = 422


class Conflict(DrivelabError):
    status_code = 409


class Unauthorized(DrivelabError):
    status_code = 401


class Forbidden(DrivelabError):
    status_code = 403


class Unavailable(DrivelabError):
    status_code = 503
