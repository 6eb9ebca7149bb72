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


def publish(client: redis.Redis, channel: str, event: str, data: Any) -> None:
    """Best effort: a live view may miss an event, the database never does."""
    with contextlib.suppress(redis.RedisError):
        client.publish(channel, json.dumps({"event": event, "data": data}, default=str))


def sse(event: str, data: Any) -> str:
    return f"event: {event}\ndata: {json.dumps(data, default=str)}\n\n"
