"""Print the api's OpenAPI schema (for `make client`), without any server running."""

from __future__ import annotations

import json
import sys

from backend.core.settings import Settings
from backend.main import create_app


def main() -> None:
    # Building the app needs URLs but never connects to them.
    settings = Settings(
        database_url="postgresql://unused@127.0.0.1/unused", redis_url="redis://127.0.0.1:1/0"
    )
    json.dump(create_app(settings).openapi(), sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
