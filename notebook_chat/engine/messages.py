"""Builders of new messages (the shapes themselves are defined in ``conversation``)."""

from __future__ import annotations

import uuid
from typing import Any

from .conversation import Message


def new_id(prefix: str = "msg") -> str:
    return f"{prefix}_{uuid.uuid4().hex[:16]}"


def new_tool_call_id() -> str:
    return f"call_{uuid.uuid4().hex[:24]}"


def user_message(text: str, **metadata: Any) -> Message:
    message: Message = {"id": new_id(), "role": "user", "content": text}
    if metadata:
        message["metadata"] = dict(metadata)
    return message


def tool_result_message(tool_call_id: str, content: str, *, tool_name: str | None = None) -> Message:
    """A tool result; the tool's name is kept in metadata (Gemini needs it on the result)."""
    message: Message = {"id": new_id(), "role": "tool", "tool_call_id": tool_call_id, "content": content}
    if tool_name:
        message["metadata"] = {"tool_name": tool_name}
    return message
