"""Messages are plain JSON dicts in OpenAI Chat shape plus engine-only fields that never reach a provider."""

from __future__ import annotations

import uuid
from typing import Any, Literal, TypedDict

Role = Literal["system", "user", "assistant", "tool"]

ENGINE_ONLY_FIELDS: tuple[str, ...] = ("id", "state", "metadata", "loading", "temp")
"""Fields the engine keeps on a message that no provider may see."""

PROVIDER_FIELDS: tuple[str, ...] = ("role", "content", "tool_calls", "tool_call_id", "name", "reasoning_content")

ToolCallStatus = Literal["running", "success", "failed", "cancelled", "awaiting-approval", "denied"]


class ToolCallFunction(TypedDict):
    name: str
    arguments: str


class ToolCall(TypedDict):
    id: str
    type: Literal["function"]
    function: ToolCallFunction


class Message(TypedDict, total=False):
    id: str
    role: Role
    content: str | None
    tool_calls: list[ToolCall]
    tool_call_id: str
    name: str
    reasoning_content: str
    state: dict[str, Any]
    metadata: dict[str, Any]
    loading: bool
    temp: bool


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


def strip_engine_fields(message: Message, exclude: tuple[str, ...] = ENGINE_ONLY_FIELDS) -> dict[str, Any]:
    return {key: value for key, value in message.items() if key not in exclude}
