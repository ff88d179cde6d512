"""The one gate every stored conversation passes, on save and on load: strict JSON, no secrets, a bounded size,
then the shape (`notebook_chat.engine.conversation.validate_record`). A record that saved always loads.

The scans pydantic can't express live here, in one pass over the record (no copy, no JSON text): exact JSON types
(finite floats, text without lone surrogates, string keys, bounded depth), credential-looking keys anywhere and tokens
in header values, and the size of the record's compact JSON (counted while walking; numbers are counted at their
shortest). Only when that pass finds a problem do the slower path-tracking functions run, to name the field.

The check runs with the cyclic garbage collector paused: pydantic builds (and drops) a copy of the record as it
validates, the walk its stack, and those short-lived, acyclic objects would otherwise trigger collections — now and
then a full one, whose cost is the whole heap's, landing inside the check (that made checking 5,000 messages cost 7x
checking 1,000 instead of 5x). They are freed by reference counting as soon as the check returns.
"""

from __future__ import annotations

import gc
import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from notebook_chat.engine.conversation import (
    DUPLICATE_TURN_ID,
    MAX_MESSAGES,
    MAX_TURNS,
    ConversationRecord,
    PausedTurn,
    validate_message,
    validate_paused_turn,
    validate_record,
    validate_turn,
)
from notebook_chat.engine.errors import RecordError
from notebook_chat.persistence.errors import SerializationError
from notebook_chat.persistence.jsonsafe import MAX_DEPTH, to_json_value
from notebook_chat.persistence.secrets import BEARER, ID_MAPS, assert_no_secrets, is_secret_key, normalize_key

MAX_RECORD_BYTES = 20_000_000
MAX_CONTEXT_BYTES = 1_000_000

_KEY_KINDS: dict[str, int] = {}
_PLAIN, _SECRET, _HEADERS = 0, 1, 2


def check_record(data: Any) -> ConversationRecord:
    """`data` when it may be stored: else `SerializationError` / `SecretError` (with the path) or `RecordError`."""
    return check_record_sized(data)[0]


def check_record_sized(data: Any) -> tuple[ConversationRecord, int]:
    """`check_record`, and the size of the record's compact JSON it measured on the way."""
    with collector_paused():
        size = _scan(data)
        if size > MAX_RECORD_BYTES:
            raise RecordError(f"$: the record is about {size} bytes of JSON, at most {MAX_RECORD_BYTES} are allowed")
        record = validate_record(data)
    paused = record.get("paused_turn")
    if paused is not None:
        _check_context(paused, "$.paused_turn")
    return record, size


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection inside the block (reference counting still frees what it drops); the collector
    is switched back on only when it was on before (another thread, or the user, may have switched it off)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def check_message(message: Any, index: int) -> int:
    """The same checks as ``check_record`` runs on ``$.messages[index]``, for one message; returns its JSON size.

    With :func:`check_rest` this checks a record part by part: a record whose changed messages and (when they
    changed) other fields pass, and whose summed size is in bounds, passes ``check_record`` whole."""
    size = _scan(message, depth=2, path=f"$.messages[{index}]")
    validate_message(message, index)
    return size


def check_turn(turn: Any, index: int) -> int:
    """The same checks as ``check_record`` runs on ``$.turns[index]``, for one entry; returns its JSON size."""
    size = _scan(turn, depth=2, path=f"$.turns[{index}]")
    validate_turn(turn, index)
    return size


def check_turn_log(turns: list[Any]) -> None:
    """The turn log's own rules, for a log whose entries passed `check_turn`: its length, one entry per id."""
    if len(turns) > MAX_TURNS:
        raise RecordError(f"$.turns: holds {len(turns)} items, at most {MAX_TURNS} are allowed")
    if len({turn["id"] for turn in turns}) != len(turns):
        raise RecordError(f"$.turns: {DUPLICATE_TURN_ID}")


def check_rest(record: Any) -> int:
    """``check_record`` of everything but the messages; returns that part's JSON size."""
    if not isinstance(record, dict):
        raise TypeError(f"a store saves JSON objects, got {type(record).__name__}")
    return _scan(check_record({**record, "messages": []}))


def record_size(rest_size: int, message_sizes: int, count: int) -> int:
    """The size of a record from its parts (:func:`check_rest`, the sum of :func:`check_message`), checked."""
    if count > MAX_MESSAGES:
        raise RecordError(f"$.messages: holds {count} items, at most {MAX_MESSAGES} are allowed")
    size = rest_size + message_sizes + count
    if size > MAX_RECORD_BYTES:
        raise RecordError(f"$: the record is about {size} bytes of JSON, at most {MAX_RECORD_BYTES} are allowed")
    return size


def check_paused_turn(data: Any) -> PausedTurn:
    """A paused-turn snapshot on its own (paths start at the snapshot): the same checks as inside a record."""
    _scan(data)
    paused = validate_paused_turn(data)
    _check_context(paused, "$")
    return paused


def _check_context(paused: PausedTurn, path: str) -> None:
    size = _scan(paused["custom_context"])
    if size > MAX_CONTEXT_BYTES:
        raise RecordError(f"{path}.custom_context: is about {size} bytes of JSON, at most {MAX_CONTEXT_BYTES} "
                          "are allowed")


def _scan(value: Any, depth: int = 0, path: str = "$") -> int:
    """The size of `value`'s compact JSON in bytes; raises naming the path when it is not strict, secret-free JSON.

    `depth` and `path` place a part of a record (a message) where it sits in the whole."""
    size = _walk(value, depth)
    if size < 0:
        to_json_value(value, path)  # raises SerializationError with the path
        assert_no_secrets(value, path)  # raises SecretError with the path
        raise SerializationError("$", "is not strict JSON")  # not reached: both scans agree with the walk
    return size


def _key_kind(key: str) -> int:
    kind = _KEY_KINDS.get(key)
    if kind is None:
        kind = _SECRET if is_secret_key(key) else _HEADERS if normalize_key(key).endswith("headers") else _PLAIN
        if len(_KEY_KINDS) > 10_000:
            _KEY_KINDS.clear()
        _KEY_KINDS[key] = kind
    return kind


def _walk(value: Any, depth: int = 0) -> int:
    """One pass, no recursion: the size, or -1 at the first problem.

    Leaves (most of a record: texts, numbers) are measured where their container is read; only containers go on
    the stack."""
    size = _leaf(value, False)
    if size != _CONTAINER:
        return size
    size = 0
    stack: list[tuple[Any, int, bool, bool]] = [(value, depth, False, False)]
    pop, push, kinds = stack.pop, stack.append, _KEY_KINDS
    while stack:
        item, depth, in_headers, keys_are_ids = pop()
        if depth >= MAX_DEPTH:
            return -1
        if type(item) is dict:
            size += 1 + 2 * len(item)
            for key, child in item.items():
                if type(key) is not str:
                    return -1
                key_kind = kinds.get(key)
                if key_kind is None:
                    key_kind = _key_kind(key)
                if key_kind:
                    if key_kind == _SECRET and not keys_are_ids:
                        return -1
                    child_in_headers = in_headers or key_kind == _HEADERS
                else:
                    child_in_headers = in_headers
                size += (len(key) if key.isascii() else len(key.encode("utf-8"))) + 2
                kind = type(child)
                if kind is str and not child_in_headers and child.isascii():
                    size += len(child) + 2
                    continue
                leaf = _leaf(child, child_in_headers)
                if leaf == _CONTAINER:
                    push((child, depth + 1, child_in_headers, key in ID_MAPS and kind is dict))
                elif leaf < 0:
                    return -1
                else:
                    size += leaf
        else:
            size += 1 + max(len(item), 1)
            for child in item:
                if type(child) is str and not in_headers and child.isascii():
                    size += len(child) + 2
                    continue
                leaf = _leaf(child, in_headers)
                if leaf == _CONTAINER:
                    push((child, depth + 1, in_headers, False))
                elif leaf < 0:
                    return -1
                else:
                    size += leaf
    return size


_CONTAINER = -2


def _leaf(item: Any, in_headers: bool) -> int:
    """The JSON size of a value that is not a container, ``_CONTAINER`` for a dict, list or tuple, -1 when it is
    not strict JSON (or a header value carries a token)."""
    kind = type(item)
    if kind is str:
        if item.isascii():
            size = len(item) + 2
        else:
            try:
                size = len(item.encode("utf-8")) + 2
            except UnicodeEncodeError:  # a lone surrogate
                return -1
        if in_headers and BEARER.match(item):
            return -1
        return size
    if kind is dict or kind is list or kind is tuple:
        return _CONTAINER
    if item is None or kind is bool:
        return 4
    if kind is int:
        return 1
    if kind is float:
        return 1 if math.isfinite(item) else -1
    return -1
