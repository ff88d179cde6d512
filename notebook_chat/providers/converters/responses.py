"""OpenAI Responses API input items and tools, from a prepared Chat-shaped history."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from notebook_chat.engine.errors import HistoryError
from notebook_chat.engine.messages import content_text
from notebook_chat.providers.converters._common import function_spec

NO_OUTPUT = "No tool output found for function call {call_id}."
NO_CALL = "No tool call found for function call output with call_id {call_id}."


def to_responses_input(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Typed input items: `{"type": "message", role, content}` (system → developer), one `function_call` per tool
    call, one `function_call_output` per result. Every item names its type: OpenAI also takes untyped role
    messages, other servers (llama.cpp's `llama-server`) answer "Cannot determine type of 'item'". Reasoning is
    not replayed (Responses needs its own encrypted items)."""
    items: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        if role == "tool":
            items.append({"type": "function_call_output", "call_id": message["tool_call_id"],
                          "output": content_text(message.get("content"))})
            continue
        text = content_text(message.get("content"))
        if text or role != "assistant":
            items.append({"type": "message", "role": "developer" if role == "system" else role, "content": text})
        for call in message.get("tool_calls") or ():
            items.append({"type": "function_call", "call_id": call["id"], "name": call["function"]["name"],
                          "arguments": call["function"]["arguments"]})
    return items


def tools_to_responses(tools: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Chat tools (`{"type": "function", "function": {...}}`) → flat Responses function tools."""
    return [{"type": "function", **function_spec(tool, position)} for position, tool in enumerate(tools)]


def check_responses(items: Sequence[Mapping[str, Any]]) -> None:
    """Raise HistoryError with the Responses API's text when it would reject the call/output pairing."""
    calls: list[str] = []
    answered: set[str] = set()
    for index, item in enumerate(items):
        kind = item.get("type", "message")
        if kind == "function_call":
            if item["call_id"] in calls:
                raise HistoryError(f"input[{index}]: Duplicate function call with call_id {item['call_id']}.")
            calls.append(item["call_id"])
        elif kind == "function_call_output":
            if item["call_id"] not in calls or item["call_id"] in answered:
                raise HistoryError(f"input[{index}]: " + NO_CALL.format(call_id=item["call_id"]))
            answered.add(item["call_id"])
        elif item.get("role") not in ("developer", "system", "user", "assistant"):
            raise HistoryError(f"input[{index}]: Invalid value: {item.get('role')!r}.")
    missing = [call_id for call_id in calls if call_id not in answered]
    if missing:
        raise HistoryError(NO_OUTPUT.format(call_id=missing[0]))
