"""Live updates: the api publishes run events on Redis; SSE endpoints relay them."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import redis


def run_channel(run_id: int) -> str:
    return f"drivelab:run:{run_id}"


LAB_CHANNEL = "drivelab:lab"


def publish(client: redis.Redis, channel: str, event: str, data: Any) -> None:
    """Best effort: a live view may miss an event, the database never does."""
    with contextlib.suppress(redis.RedisError):
        client.publish(channel, json.dumps({"event": event, "data": data}, default=str))


def sse(event: str, data: Any) -> str:
    return f"event: {event}\ndata: {json.dumps(data, default=str)}\n\n"
