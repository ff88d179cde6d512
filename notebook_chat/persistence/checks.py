"""Validators for untrusted data: each raises the caller's error type with a sentence naming the field."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any, NoReturn

from notebook_chat.persistence.errors import ValidationError

MAX_ID_CHARS = 200


def fail(error: type[ValidationError], path: str, problem: str) -> NoReturn:
    raise error(f"{path}: {problem}")


def describe(value: Any) -> str:
    """A short description of a bad value for an error message (never the whole value)."""
    text = repr(value)
    return f"{type(value).__name__} {text[:60]}{'...' if len(text) > 60 else ''}"


def require_dict(value: Any, path: str, error: type[ValidationError]) -> dict[str, Any]:
    if not isinstance(value, dict):
        fail(error, path, f"expected an object, got {describe(value)}")
    return value


def require_list(value: Any, path: str, error: type[ValidationError], *, max_items: int) -> list[Any]:
    if not isinstance(value, list):
        fail(error, path, f"expected a list, got {describe(value)}")
    if len(value) > max_items:
        fail(error, path, f"holds {len(value)} items, at most {max_items} are allowed")
    return value


def require_str(
    value: Any, path: str, error: type[ValidationError], *, max_chars: int, allow_empty: bool = True
) -> str:
    if not isinstance(value, str):
        fail(error, path, f"expected a string, got {describe(value)}")
    if len(value) > max_chars:
        fail(error, path, f"is {len(value)} characters long, at most {max_chars} are allowed")
    if not allow_empty and not value:
        fail(error, path, "must not be empty")
    return value


def require_id(value: Any, path: str, error: type[ValidationError]) -> str:
    return require_str(value, path, error, max_chars=MAX_ID_CHARS, allow_empty=False)


def require_int(value: Any, path: str, error: type[ValidationError], *, low: int, high: int) -> int:
    if type(value) is not int:
        fail(error, path, f"expected an integer, got {describe(value)}")
    if not low <= value <= high:
        fail(error, path, f"{value} is outside {low}..{high}")
    return value


def require_version(value: Any, path: str, error: type[ValidationError], *, what: str, supported: int) -> int:
    if type(value) is not int:
        fail(error, path, f"the {what} version must be an integer, got {describe(value)}")
    if value != supported:
        newer = "a newer" if value > supported else "an unknown"
        fail(
            error,
            path,
            f"the {what} has version {value}, written by {newer} notebook_chat; "
            f"this one reads version {supported}",
        )
    return value


def parse_utc(text: str) -> datetime:
    """Parse an ISO-8601 UTC timestamp (`...Z` or `...+00:00`); `ValueError` for anything else."""
    moment = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    if moment.utcoffset() != timedelta(0):
        raise ValueError(f"{text!r} is not in UTC")
    return moment


def require_utc(value: Any, path: str, error: type[ValidationError]) -> str:
    text = require_str(value, path, error, max_chars=64, allow_empty=False)
    try:
        parse_utc(text)
    except ValueError:
        fail(error, path, f"expected an ISO-8601 UTC timestamp such as 2024-05-01T12:00:00Z, got {text!r}")
    return text


def utc_now_iso() -> str:
    """Now, as the ISO-8601 UTC text every record uses (millisecond precision, `Z` suffix)."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
