"""The error answers every operation can give, declared in the OpenAPI document as the api
gives them: `{"detail": "..."}` (and `field` naming the input at fault), 422s with their
`errors` list (backend.main's handler, not FastAPI's default shape).
"""

from __future__ import annotations

from typing import Any

METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")

ERROR = {
    "type": "object",
    "required": ["detail"],
    "properties": {
        "detail": {"type": "string", "description": "What went wrong, and what to do about it."},
        "field": {"type": "string", "description": "The input at fault, when one is."},
    },
    "title": "Error",
}

VALIDATION_ERROR = {
    "type": "object",
    "required": ["detail"],
    "properties": {
        "detail": {"type": "string", "description": "Every problem, each with its place."},
        "field": {"type": "string", "description": "The input at fault, when one is."},
        "errors": {
            "type": "array",
            "items": {"type": "object"},
            "description": "The problems one by one (inputs quoted as short excerpts only).",
        },
    },
    "title": "HTTPValidationError",
}

# Operations that count attempts (sign-in): 429 with Retry-After once used up.
RATE_LIMITED = {("post", "/api/auth/login"), ("post", "/api/auth/once")}
# Answered whatever the caller: no authentication to fail.
OPEN = {("get", "/api/health")}
# Reads that answer 409 while something is not ready (a bench whose worker has not reported).
CONFLICT_READS = {("get", "/api/benches/{name}/devices")}

DESCRIPTIONS = {
    "400": "The body is not what its Content-Type says (JSON that does not parse).",
    "401": "Not signed in, or the token is unknown or revoked.",
    "403": "Signed in, but not allowed (role, bench, CSRF token).",
    "404": "Something the request names does not exist (or is not visible to you).",
    "409": "Conflicts with what is stored, or with the state of a run or drive.",
    "413": "The body is larger than this operation accepts (the limit is in `detail`).",
    "422": "Invalid input: `detail` says what to fix.",
    "429": "Too many failed attempts: try again after Retry-After seconds.",
    "503": "The database or the broker is unavailable: retry after Retry-After seconds.",
}


def _response(code: str) -> dict[str, Any]:
    ref = "HTTPValidationError" if code == "422" else "Error"
    return {
        "description": DESCRIPTIONS[code],
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{ref}"}}},
    }


# Ids are PostgreSQL integers: 1 to 2^31 - 1 (a larger one is refused with 422, one that does
# not exist with 404).
MAX_ID = 2**31 - 1
ID_NAMES = {"a", "b", "under_review"}
# ?drives=1,2,3: a comma-separated list of ids.
DRIVE_IDS = {"type": "string", "pattern": r"^[0-9]{1,9}(,[0-9]{1,9})*$"}


def _is_id(name: str) -> bool:
    return name == "id" or name.endswith("_id") or name in ID_NAMES


def _bound(sub: dict[str, Any], *, lowest: int = 1) -> None:
    """An integer id's range, in a schema that may be a union with null."""
    for branch in [sub, *sub.get("anyOf", [])]:
        if branch.get("type") == "integer":
            branch.setdefault("minimum", lowest)
            branch.setdefault("maximum", MAX_ID)


def bound_ids(schema: dict[str, Any]) -> None:
    """Say the range of every id the api takes (parameters, and body fields named *_id)."""
    for operations in schema.get("paths", {}).values():
        for method, op in operations.items():
            if method not in METHODS:
                continue
            for param in op.get("parameters", []):
                sub = param.get("schema", {})
                if _is_id(param["name"]):
                    # A filter (?drive_id=0) that matches nothing is an empty list, not an
                    # error: only the database's range holds for those.
                    _bound(sub, lowest=1 if param.get("in") == "path" else -MAX_ID - 1)
                elif param["name"] == "drives" and sub.get("type") == "string":
                    sub.update(DRIVE_IDS)
                else:  # any other whole number the database compares with (?op_percent=)
                    _bound(sub, lowest=-MAX_ID - 1)
    for component in schema.get("components", {}).get("schemas", {}).values():
        for name, prop in component.get("properties", {}).items():
            if _is_id(name):
                _bound(prop)
            elif name in ("drives", "drive_ids") and isinstance(prop.get("items"), dict):
                _bound(prop["items"])


def declare_errors(schema: dict[str, Any]) -> dict[str, Any]:
    """Add the error answers each operation can give (keeping any it declares itself), and
    the range of ids."""
    bound_ids(schema)
    schemas = schema.setdefault("components", {}).setdefault("schemas", {})
    schemas["Error"] = ERROR
    schemas["HTTPValidationError"] = VALIDATION_ERROR
    for path, operations in schema.get("paths", {}).items():
        for method, op in operations.items():
            if method not in METHODS:
                continue
            codes = []
            if (method, path) not in OPEN:
                codes += ["401", "403", "503"]
            if op.get("parameters") or "requestBody" in op:
                codes += ["404", "422"]
            if "requestBody" in op:
                codes += ["400", "413"]
            if method in ("post", "put", "patch", "delete") or (method, path) in CONFLICT_READS:
                codes += ["409"]
            if (method, path) in RATE_LIMITED:
                codes += ["429"]
            responses = op.setdefault("responses", {})
            for code in codes:
                existing = responses.get(code)
                if existing is None:
                    responses[code] = _response(code)
                elif "content" not in existing:
                    existing["content"] = _response(code)["content"]
    return schema
