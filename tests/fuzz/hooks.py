"""schemathesis hooks for drivelab's fuzzing (loaded through SCHEMATHESIS_HOOKS)."""

from __future__ import annotations

from typing import Any

import schemathesis


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
