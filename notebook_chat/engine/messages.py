"""Builders of new messages (the shapes themselves are defined in ``conversation``)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from .conversation import Message

TEXT_PART_TYPES = frozenset({"text", "input_text", "output_text"})
"""The content-part types that carry a message's text (Chat Completions, Responses input and output)."""


def content_text(content: Any, separator: str = "") -> str:
    """The text of a message's content: the string itself, or its text parts (a type of TEXT_PART_TYPES, or no
    type) joined by `separator`; anything else (None, an image part alone) is "". The one reading every layer
    uses: the providers' converters and the history repair join parts as they were (""), the demo model reads
    words (" "), the transcript shows lines ("\n") and the Markdown export paragraphs ("\n\n")."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return separator.join(part["text"] for part in content
                          if isinstance(part, Mapping) and isinstance(part.get("text"), str)
                          and part.get("type", "text") in TEXT_PART_TYPES)


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
