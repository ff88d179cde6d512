"""Strict JSON: the only values that may be persisted, and one canonical byte form for them."""

from __future__ import annotations

import json
import math
from typing import Any

from notebook_chat.engine.conversation import json_path
from notebook_chat.persistence.errors import SerializationError

MAX_DEPTH = 200
"""Deeper nesting is refused (it is never legitimate here, and it would exhaust the recursion limit)."""


def field_path(parent: str, key: str | int) -> str:
    """`$.a`, `$.a[3]`, or `$["odd key"]` when the key is not a plain identifier."""
    return json_path([key], parent)


def is_unicode(text: str) -> bool:
    """False when ``text`` holds a lone UTF-16 surrogate (it can't be written as UTF-8)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def to_json_value(value: Any, path: str = "$") -> Any:
    """Return a fresh copy of `value` made only of dict[str, ...], list, str, int, finite float, bool, None.

    Tuples become lists. Anything else — text with a lone surrogate, functions, NaN/inf, cycles, bytes, sets,
    subclasses of the JSON types, arbitrary objects — raises `SerializationError` naming the field path and the type.
    """
    return _convert(value, path, set(), 0)


def _convert(value: Any, path: str, active: set[int], depth: int) -> Any:
    kind = type(value)
    if kind is str:
        if not value.isascii() and not is_unicode(value):
            raise SerializationError(path, "text holds a lone UTF-16 surrogate (not valid Unicode, can't be UTF-8)")
        return value
    if value is None or kind is bool or kind is int:
        return value
    if kind is float:
        if not math.isfinite(value):
            raise SerializationError(path, f"float {value!r} is not finite (JSON has no NaN or infinity)")
        return value
    if kind is dict or kind is list or kind is tuple:
        if depth >= MAX_DEPTH:
            raise SerializationError(path, f"nested deeper than {MAX_DEPTH} levels")
        if id(value) in active:
            raise SerializationError(path, f"{kind.__name__} contains itself (a cycle)")
        active.add(id(value))
        try:
            if kind is dict:
                return _convert_dict(value, path, active, depth)
            return [_convert(item, field_path(path, i), active, depth + 1) for i, item in enumerate(value)]
        finally:
            active.discard(id(value))
    raise SerializationError(path, f"{_type_name(value)} is not JSON-serializable")


def _convert_dict(value: dict[Any, Any], path: str, active: set[int], depth: int) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, item in value.items():
        if type(key) is not str:
            raise SerializationError(
                path, f"key {key!r} ({_type_name(key)}) is not a string; JSON object keys must be strings"
            )
        result[key] = _convert(item, field_path(path, key), active, depth + 1)
    return result


def _type_name(value: Any) -> str:
    kind = type(value)
    if kind.__module__ == "builtins":
        return kind.__qualname__
    return f"{kind.__module__}.{kind.__qualname__}"


def dumps_canonical(value: Any) -> str:
    """The canonical text of a strict JSON value: sorted keys, no spaces, UTF-8 kept as is.

    Loading the text with `loads_strict` and dumping it again gives the identical string.
    """
    return json.dumps(
        to_json_value(value), sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
    )


def loads_strict(text: str | bytes) -> Any:
    """Parse JSON refusing NaN/Infinity and duplicate object keys (`ValueError` with the reason)."""
    return json.loads(text, parse_constant=_refuse_constant, object_pairs_hook=_refuse_duplicates)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _refuse_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, item in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r} in a JSON object")
        result[key] = item
    return result
