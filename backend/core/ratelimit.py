"""Counting attempts in Redis: after its kind's limit of failures for a key within the
window, attempts are refused (429 with Retry-After) until the window that began with the
first failure ends.

An attempt is counted *before* it is checked (`attempt`), atomically (SET NX EX + INCR in one
MULTI), so that however many arrive at once, at most `limit` of them are ever checked; an
attempt that turns out right gives its count back (`succeeded`). Fixed windows, in Redis, so
every api process shares the counts.
"""

from __future__ import annotations

import contextlib
import math

import redis

from backend.core.errors import DrivelabError, Unavailable

# DECR each key that still exists (one that expired meanwhile must not come back as -1,
# without an expiry).
_GIVE_BACK = """
for _, key in ipairs(KEYS) do
  if redis.call('EXISTS', key) == 1 then redis.call('DECR', key) end
end
return 0
"""


class TooManyAttempts(DrivelabError):
    status_code = 429

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.headers = {"Retry-After": str(retry_after)}


class FailureCounter:
    """`limits`: the failures allowed within the window for each kind of key."""

    def __init__(
        self, client: redis.Redis, prefix: str, limits: dict[str, int], window_s: int
    ) -> None:
        self.client = client
        self.prefix = prefix
        self.limits = limits
        self.window_s = window_s

    def _key(self, kind: str, value: str) -> str:
        return f"{self.prefix}:{kind}:{value}"

    def attempt(self, keys: dict[str, str]) -> tuple[str, int] | None:
        """Count one attempt against every key before checking it. (kind, seconds left) of
        the first key already at the limit: the attempt is refused and given back; None: it
        is counted (as a failure, unless `give_back` returns it) and may be checked."""
        try:
            pipe = self.client.pipeline(transaction=True)
            for kind, value in keys.items():
                pipe.set(self._key(kind, value), 0, ex=self.window_s, nx=True)
                pipe.incr(self._key(kind, value))
                pipe.pttl(self._key(kind, value))
            replies = pipe.execute()
        except redis.RedisError as exc:
            raise Unavailable(
                f"cannot check sign-in attempts: Redis is unreachable ({exc}); try again when "
                "GET /api/health reports the broker ok"
            ) from None
        for i, kind in enumerate(keys):
            count, ttl_ms = replies[3 * i + 1], replies[3 * i + 2]
            if int(count) > self.limits[kind]:
                self.give_back(keys)
                return kind, max(1, math.ceil(ttl_ms / 1000)) if ttl_ms > 0 else self.window_s
        return None

    def give_back(self, keys: dict[str, str]) -> None:
        """Undo one attempt's count (refused, or right after all)."""
        with contextlib.suppress(redis.RedisError):
            names = [self._key(kind, value) for kind, value in keys.items()]
            self.client.eval(_GIVE_BACK, len(names), *names)

    def reset(self, kind: str, value: str) -> None:
        with contextlib.suppress(redis.RedisError):
            self.client.delete(self._key(kind, value))
