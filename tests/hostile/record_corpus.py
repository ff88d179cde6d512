"""A systematic corpus of malformed stored records, generated from one valid record with a paused turn.

Classes: every field at every depth x wrong values (each JSON type, NaN, ±Infinity, a lone surrogate, oversize text,
deep nesting), every field removed, duplicate ids (messages, tool calls, turns), impossible turn logs and paused turns
that don't match the messages. Each input is a (name, record) pair; the record may hold values JSON can't (NaN).
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Iterator
from typing import Any

from notebook_chat.persistence.restore import call_hash

TURN = "turn_paused"
BASE: dict[str, Any] = {
    "version": 1,
    "messages": [
        {"id": "m_sys", "role": "system", "content": "be brief"},
        {"id": "m_u1", "role": "user", "content": "hi"},
        {"id": "m_a1", "role": "assistant", "content": "hello", "state": {"turn_id": "turn_done"}},
        {"id": "m_u2", "role": "user", "content": "drop the table", "state": {"turn_id": TURN}},
        {"id": "m_a2", "role": "assistant", "content": "",
         "state": {"turn_id": TURN, "tool_calls": {"call_drop": {"status": "awaiting-approval"},
                                                   "call_look": {"status": "success"}}},
         "tool_calls": [
             {"id": "call_drop", "type": "function", "function": {"name": "drop_table", "arguments": '{"name": "t"}'}},
             {"id": "call_look", "type": "function", "function": {"name": "lookup", "arguments": '{"city": "P"}'}},
         ]},
        {"id": "m_t1", "role": "tool", "tool_call_id": "call_look", "content": "sunny",
         "metadata": {"tool_name": "lookup"}},
    ],
    "turns": [
        {"id": "turn_done", "started_at": "2026-01-01T00:00:00.000Z", "ended_at": "2026-01-01T00:00:01.000Z",
         "end_reason": "completed", "detail": None},
        {"id": TURN, "started_at": "2026-01-01T00:01:00.000Z", "ended_at": None, "end_reason": None, "detail": None},
    ],
    "paused_turn": {"version": 1, "turn_id": TURN, "tool_call_ids": ["call_drop"], "custom_context": {},
                    "tool_round_count": 1, "call_hashes": {"call_drop": call_hash("drop_table", '{"name": "t"}')}},
    "updated_at": "2026-01-01T00:01:01.000Z",
}


def deep(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = [value]
    return value


WRONG_VALUES: dict[str, Any] = {
    "null": None, "true": True, "zero": 0, "negative": -7, "float": 1.5, "empty text": "", "text": "x",
    "empty list": [], "list": [1, "a"], "empty object": {}, "object": {"a": 1},
    "NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf, "lone surrogate": "\ud800 text",
}
OVERSIZE = "y" * 10_000_001
DEEP = deep(5_000)
DEEP_JSON = "[" * 5_000 + '"bottom"' + "]" * 5_000
"""``DEEP`` as JSON text (Python's encoder refuses to write it; a hostile file or browser need not)."""


def to_json_text(value: Any) -> str:
    """``value`` as JSON text, NaN and lone surrogates included, ``DEEP`` written out in full."""
    return json.dumps(_mark_deep(value), ensure_ascii=True).replace('"__deep__"', DEEP_JSON)


def _mark_deep(value: Any) -> Any:
    if value is DEEP:
        return "__deep__"
    if isinstance(value, dict):
        return {key: _mark_deep(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_mark_deep(item) for item in value]
    return value


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every key and index below ``value``, depth first."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*prefix, key)
            yield from paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield (*prefix, index)
            yield from paths(item, (*prefix, index))


def _parent(record: Any, path: tuple[Any, ...]) -> Any:
    for step in path[:-1]:
        record = record[step]
    return record


def replaced(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    record = copy.deepcopy(BASE)
    _parent(record, path)[path[-1]] = value
    return record


def removed(path: tuple[Any, ...]) -> dict[str, Any]:
    record = copy.deepcopy(BASE)
    parent = _parent(record, path)
    del parent[path[-1]]
    return record


def label(path: tuple[Any, ...]) -> str:
    return "$" + "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in path)


def _edit(**changes: Any) -> dict[str, Any]:
    record = copy.deepcopy(BASE)
    for dotted, value in changes.items():
        steps = [int(s) if s.isdigit() else s for s in dotted.split("__")]
        _parent(record, tuple(steps))[steps[-1]] = value
    return record


def special_cases() -> Iterator[tuple[str, dict[str, Any]]]:
    messages = BASE["messages"]
    yield "two messages share an id", _edit(messages__2__id="m_u1")
    yield "two tool calls share an id", _edit(messages__4__tool_calls__1__id="call_drop")
    yield "two turns share an id", _edit(turns__1__id="turn_done")
    yield "a turn ends before it starts", _edit(turns__0__ended_at="2025-01-01T00:00:00.000Z")
    yield "an unknown end reason", _edit(turns__0__end_reason="exploded")
    yield "an end reason without an end time", _edit(turns__0__ended_at=None)
    yield "a timestamp that is not UTC", _edit(turns__0__started_at="2026-01-01T00:00:00+02:00")
    yield "a timestamp that is not a date", _edit(updated_at="yesterday")
    yield "two open turns", _edit(turns__0__ended_at=None, turns__0__end_reason=None)
    yield "the paused turn is not in the turn log", _edit(paused_turn__turn_id="turn_ghost")
    yield "the paused turn names a call that is not awaiting", _edit(paused_turn__tool_call_ids=["call_look"])
    yield "the paused turn names no call", _edit(paused_turn__tool_call_ids=[])
    yield "the paused turn names a call twice", _edit(paused_turn__tool_call_ids=["call_drop", "call_drop"])
    yield "the paused turn's version is newer", _edit(paused_turn__version=2)
    yield "the record's version is newer", _edit(version=2)
    yield "a negative round count", _edit(paused_turn__tool_round_count=-1)
    yield "an unknown role", _edit(messages__1__role="wizard")
    yield "an unknown tool-call status", _edit(messages__4__state__tool_calls__call_drop__status="exploded")
    yield "a tool result before its call", {**copy.deepcopy(BASE), "messages": [
        *copy.deepcopy(messages[:4]), copy.deepcopy(messages[5]), copy.deepcopy(messages[4])]}
    yield "an orphan tool result", {**copy.deepcopy(BASE), "messages": [
        *copy.deepcopy(messages[:2]), {"id": "m_orphan", "role": "tool", "tool_call_id": "call_x", "content": "?"},
        *copy.deepcopy(messages[2:])]}
    yield "a sibling call marked running without a result", _edit(
        messages__4__state__tool_calls__call_look__status="running")
    yield "the awaiting call already has a result", {**copy.deepcopy(BASE), "messages": [
        *copy.deepcopy(messages), {"id": "m_t2", "role": "tool", "tool_call_id": "call_drop", "content": "done"}]}
    yield "an unanswered call in an earlier turn", {**copy.deepcopy(BASE), "messages": [
        *copy.deepcopy(messages[:2]),
        {"id": "m_old", "role": "assistant", "content": "", "state": {"turn_id": "turn_done"},
         "tool_calls": [{"id": "call_old", "type": "function", "function": {"name": "drop_table",
                                                                            "arguments": "{}"}}]},
        *copy.deepcopy(messages[2:])]}
    yield "tool calls that are a string", _edit(messages__4__tool_calls="drop")
    yield "tool-call states that are a list", _edit(messages__4__state__tool_calls=["call_drop"])
    yield "a tool-call state entry that is text", _edit(messages__4__state__tool_calls__call_drop="awaiting")
    yield "arguments that are an object", _edit(messages__4__tool_calls__0__function__arguments={"name": "t"})
    yield "10,001 messages", {**copy.deepcopy(BASE), "messages": [
        *copy.deepcopy(messages), *({"id": f"m_{n}", "role": "user", "content": "x"} for n in range(10_001))]}
    yield "the record is a list", [copy.deepcopy(BASE)]  # type: ignore[misc]
    yield "the record is text", "record"  # type: ignore[misc]
    yield "a secret in a message's metadata", _edit(messages__1__metadata={"api_key": "sk-live-1234567890abcdef"})


def corpus() -> list[tuple[str, Any]]:
    cases: list[tuple[str, Any]] = []
    for path in paths(BASE):
        where = label(path)
        for name, value in WRONG_VALUES.items():
            current = _parent(BASE, path)[path[-1]]
            if value == current and type(value) is type(current):
                continue
            cases.append((f"{where} = {name}", replaced(path, value)))
        cases.append((f"{where} removed", removed(path)))
    for where in ("$.messages[1].content", "$.messages[4].tool_calls[0].function.arguments"):
        path = tuple(int(s) if s.isdigit() else s for s in where[2:].replace("[", ".").replace("]", "").split("."))
        cases.append((f"{where} = 10,000,001 characters", replaced(path, OVERSIZE)))
        cases.append((f"{where} = nested 5,000 deep", replaced(path, DEEP)))
    cases.append(("$.messages[1].metadata = nested 5,000 deep", replaced(("messages", 1, "metadata"), {"d": DEEP})))
    cases.extend(special_cases())
    return cases
