"""Live updates: the api publishes run events on Redis; SSE endpoints relay them."""

from __future__ import annotations

import contextlib
import hashlib
import json
from typing import Any

import redis


def namespace(database_url: str) -> str:
    """Channels are named per installation: Redis pub/sub ignores the database number, so two
    drivelab installations sharing a Redis server would otherwise see each other's runs."""
    return hashlib.sha256(database_url.encode()).hexdigest()[:12]


def run_channel(ns: str, run_id: int) -> str:
    return f"drivelab:{ns}:run:{run_id}"


def lab_channel(ns: str) -> str:
    return f"drivelab:{ns}:lab"


def visibility_key(ns: str) -> str:
    """A counter raised whenever what viewers may see changes (an embargo set or lifted, a
    drive given another model): open event streams re-read visibility when it moves."""
    return f"drivelab:{ns}:visibility"


def visibility_changed(client: redis.Redis, ns: str) -> None:
    with contextlib.suppress(redis.RedisError):
        client.incr(visibility_key(ns))


def publish(client: redis.Redis, channel: str, event: str, data: Any) -> None:
    """Best effort: a live view may miss an event, the database never does."""
    with contextlib.suppress(redis.RedisError):
        # Published as the SSE frame itself: every api process relays it to its viewers as
        # is, without parsing and encoding it again per viewer.
        client.publish(channel, sse(event, data))


def has_listeners(client: redis.Redis, channel: str) -> bool:
    """Whether anyone, in any api process, is subscribed to `channel` now, so an event nobody
    would receive is not even built. True when Redis cannot tell (publishing then fails
    quietly anyway). A viewer that subscribes just after a False loses nothing: it reads the
    committed state after subscribing (the run's snapshot, the stored samples)."""
    try:
        return bool(client.pubsub_numsub(channel)[0][1])
    except (redis.RedisError, IndexError):
        return True


def sse(event: str, data: Any) -> str:
    return f"event: {event}\ndata: {json.dumps(data, default=str)}\n\n"
