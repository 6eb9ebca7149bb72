"""Print the api's OpenAPI schema (for `make client`), without any server running."""

from __future__ import annotations

import json
import sys
from typing import Any

from backend.core.settings import Settings
from backend.main import create_app


def schema() -> dict[str, Any]:
    """The api's OpenAPI schema, as the running api serves it at /api/openapi.json."""
    # Building the app needs URLs but never connects to them.
    settings = Settings(
        database_url="postgresql://unused@127.0.0.1/unused", redis_url="redis://127.0.0.1:1/0"
    )
    return create_app(settings).openapi()


def main() -> None:
    json.dump(schema(), sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
