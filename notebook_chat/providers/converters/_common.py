"""Helpers the payload converters share: message text and function-tool specs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

CONTINUATION_PLACEHOLDER = "(continuing the conversation)"
"""User text put first when a provider needs a user message first and the history starts otherwise."""


def function_spec(tool: Mapping[str, Any], position: int) -> dict[str, Any]:
    """`{name, description?, parameters?, strict?}` of a Chat-shaped
    (`{"type": "function", "function": {...}}`) or flat (Responses-shaped) function tool; anything else is
    refused with a clear error."""
    spec = tool.get("function") if "function" in tool else tool
    if tool.get("type", "function") != "function" or not isinstance(spec, Mapping):
        raise ValueError(f"tools[{position}] is not a function tool (type {tool.get('type')!r})")
    name = spec.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError(f"tools[{position}] has no function name")
    return {key: spec[key] for key in ("name", "description", "parameters", "strict") if key in spec}


def call_names(messages: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Tool-call id → function name for every call in the history."""
    names: dict[str, str] = {}
    for message in messages:
        for call in message.get("tool_calls") or ():
            names[call["id"]] = call["function"]["name"]
    return names
