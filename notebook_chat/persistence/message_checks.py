"""Validation of stored messages (untrusted): known fields are type-checked, unknown fields are kept."""

from __future__ import annotations

from typing import Any

from notebook_chat.persistence.checks import (
    MAX_ID_CHARS,
    fail,
    require_dict,
    require_id,
    require_list,
    require_str,
)
from notebook_chat.persistence.errors import RecordError

ROLES = ("system", "user", "assistant", "tool")
MAX_TEXT_CHARS = 10_000_000
MAX_TOOL_CALLS = 256
MAX_CONTENT_PARTS = 1_000


def validate_message(message: Any, path: str) -> dict[str, Any]:
    """Check one message's known fields; return it unchanged (the caller already made it a JSON copy)."""
    message = require_dict(message, path, RecordError)
    role = message.get("role")
    if role not in ROLES:
        fail(RecordError, f"{path}.role", f"expected one of {', '.join(ROLES)}, got {role!r}")
    for key in ("id", "tool_call_id"):
        if key in message:
            require_id(message[key], f"{path}.{key}", RecordError)
    if "name" in message:
        require_str(message["name"], f"{path}.name", RecordError, max_chars=MAX_ID_CHARS)
    if "reasoning_content" in message:
        require_str(
            message["reasoning_content"], f"{path}.reasoning_content", RecordError, max_chars=MAX_TEXT_CHARS
        )
    _validate_content(message.get("content"), f"{path}.content")
    for key in ("state", "metadata"):
        if key in message:
            require_dict(message[key], f"{path}.{key}", RecordError)
    for key in ("loading", "temp"):
        if key in message and type(message[key]) is not bool:
            fail(RecordError, f"{path}.{key}", f"expected true or false, got {message[key]!r}")
    if "tool_calls" in message:
        _validate_tool_calls(message["tool_calls"], f"{path}.tool_calls")
    if role == "tool" and "tool_call_id" not in message:
        fail(RecordError, path, "a tool message needs a tool_call_id")
    checked: dict[str, Any] = message
    return checked


def _validate_content(content: Any, path: str) -> None:
    if content is None:
        return
    if isinstance(content, str):
        require_str(content, path, RecordError, max_chars=MAX_TEXT_CHARS)
        return
    if isinstance(content, list):
        parts = require_list(content, path, RecordError, max_items=MAX_CONTENT_PARTS)
        for index, part in enumerate(parts):
            require_dict(part, f"{path}[{index}]", RecordError)
        return
    fail(RecordError, path, f"expected text, a list of content parts or null, got {type(content).__name__}")


def _validate_tool_calls(value: Any, path: str) -> None:
    calls = require_list(value, path, RecordError, max_items=MAX_TOOL_CALLS)
    for index, call in enumerate(calls):
        where = f"{path}[{index}]"
        call = require_dict(call, where, RecordError)
        require_id(call.get("id"), f"{where}.id", RecordError)
        if call.get("type", "function") != "function":
            fail(RecordError, f"{where}.type", f"expected 'function', got {call.get('type')!r}")
        function = require_dict(call.get("function"), f"{where}.function", RecordError)
        require_str(function.get("name"), f"{where}.function.name", RecordError, max_chars=MAX_ID_CHARS)
        require_str(
            function.get("arguments"), f"{where}.function.arguments", RecordError, max_chars=MAX_TEXT_CHARS
        )
