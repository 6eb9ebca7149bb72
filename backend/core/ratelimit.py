"""Counting failures in Redis: after `limit` failures for a key within the window, attempts
are refused (429 with Retry-After) until the window that began with the first failure ends.

Fixed windows, counted with SET NX EX + INCR, so every api process shares the counts.
"""

from __future__ import annotations

import contextlib
import math

import redis

from backend.core.errors import DrivelabError, Unavailable


class TooManyAttempts(DrivelabError):
    status_code = 429

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.headers = {"Retry-After": str(retry_after)}


class FailureCounter:
    def __init__(self, client: redis.Redis, prefix: str, limit: int, window_s: int) -> None:
        self.client = client
        self.prefix = prefix
        self.limit = limit
        self.window_s = window_s

    def _key(self, kind: str, value: str) -> str:
        return f"{self.prefix}:{kind}:{value}"

    def blocked(self, keys: dict[str, str]) -> tuple[str, int] | None:
        """(kind, seconds left) of the first key over the limit, or None."""
        try:
            pipe = self.client.pipeline()
            for kind, value in keys.items():
                pipe.get(self._key(kind, value))
                pipe.pttl(self._key(kind, value))
            replies = pipe.execute()
        except redis.RedisError as exc:
            raise Unavailable(
                f"cannot check sign-in attempts: Redis is unreachable ({exc}); try again when "
                "GET /api/health reports the broker ok"
            ) from None
        for i, kind in enumerate(keys):
            count, ttl_ms = replies[2 * i], replies[2 * i + 1]
            if count is not None and int(count) >= self.limit:
                return kind, max(1, math.ceil(ttl_ms / 1000)) if ttl_ms > 0 else self.window_s
        return None

    def fail(self, keys: dict[str, str]) -> None:
        try:
            pipe = self.client.pipeline()
            for kind, value in keys.items():
                pipe.set(self._key(kind, value), 0, ex=self.window_s, nx=True)
                pipe.incr(self._key(kind, value))
            pipe.execute()
        except redis.RedisError:
            return  # the attempt is refused anyway; the next check reports Redis

    def reset(self, kind: str, value: str) -> None:
        with contextlib.suppress(redis.RedisError):
            self.client.delete(self._key(kind, value))
