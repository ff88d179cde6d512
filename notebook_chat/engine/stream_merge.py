"""Merges OpenAI-shaped chunks (or one complete completion) into an assistant message.

Text arrives in many small pieces; appending each piece to the message's string would copy the whole reply per chunk.
The accumulator keeps pieces in lists and writes the joined text into the message only when asked
(:meth:`materialize`), so the work per chunk stays constant however long the reply grows.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from .messages import Message, ToolCall, new_tool_call_id

Appended = Callable[[str, str], None]
"""Called with (field, appended_text); field is ``content``, ``reasoning_content`` or ``args:<tool_call_id>``."""


class _PendingCall:
    __slots__ = ("arguments", "id", "name")

    def __init__(self, call_id: str, name: str) -> None:
        self.id = call_id
        self.name = name
        self.arguments: list[str] = []


class StreamAccumulator:
    def __init__(self, message: Message, on_append: Appended | None = None) -> None:
        self.message = message
        self.finish_reason: str | None = None
        self.usage: dict[str, Any] | None = None
        self._content: list[str] = []
        self._reasoning: list[str] = []
        self._calls: list[_PendingCall] = []
        self._calls_by_index: dict[int, _PendingCall] = {}
        self._on_append = on_append
        self._dirty = False

    # -- chunks -------------------------------------------------------------------------------------------------
    def add_chunk(self, chunk: dict[str, Any]) -> None:
        usage = chunk.get("usage")
        if usage:
            self.usage = usage
        for choice in chunk.get("choices") or ():
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            self._add_delta(delta)
            reason = choice.get("finish_reason")
            if reason:
                self.finish_reason = reason

    def _add_delta(self, delta: dict[str, Any]) -> None:
        text = delta.get("content")
        if text:
            self._content.append(text)
            self._dirty = True
            if self._on_append:
                self._on_append("content", text)
        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
        if reasoning and isinstance(reasoning, str):
            self._reasoning.append(reasoning)
            self._dirty = True
            if self._on_append:
                self._on_append("reasoning_content", reasoning)
        for fragment in delta.get("tool_calls") or ():
            self._add_tool_call_fragment(fragment)

    def _add_tool_call_fragment(self, fragment: dict[str, Any]) -> None:
        function = fragment.get("function") or {}
        call = self._find_call(fragment)
        if call is None:
            call = _PendingCall(fragment.get("id") or new_tool_call_id(), function.get("name") or "")
            self._calls.append(call)
            index = fragment.get("index")
            if isinstance(index, int):
                self._calls_by_index[index] = call
        elif function.get("name") and not call.name:
            call.name = function["name"]
        piece = function.get("arguments")
        if piece:
            call.arguments.append(piece)
            if self._on_append:
                self._on_append(f"args:{call.id}", piece)
        self._dirty = True

    def _find_call(self, fragment: dict[str, Any]) -> _PendingCall | None:
        index = fragment.get("index")
        if isinstance(index, int):
            return self._calls_by_index.get(index)
        # Some OpenAI-compatible proxies omit the index: a fragment with a new id starts a call, one without an id
        # continues the latest call.
        call_id = fragment.get("id")
        if call_id:
            return next((c for c in reversed(self._calls) if c.id == call_id), None)
        return self._calls[-1] if self._calls else None

    # -- complete responses --------------------------------------------------------------------------------------
    def add_completion(self, completion: dict[str, Any]) -> None:
        if completion.get("usage"):
            self.usage = completion["usage"]
        choices = completion.get("choices") or []
        if not choices:
            return
        choice = choices[0]
        message = choice.get("message") or {}
        delta: dict[str, Any] = {
            "content": message.get("content"),
            "reasoning_content": message.get("reasoning_content"),
            "tool_calls": [
                {**call, "index": i} for i, call in enumerate(message.get("tool_calls") or [])
            ],
        }
        self._add_delta(delta)
        self.finish_reason = choice.get("finish_reason") or self.finish_reason

    # -- output -----------------------------------------------------------------------------------------------
    def materialize(self) -> Message:
        """Writes the text gathered so far into the message (O(reply length); call it rarely)."""
        if not self._dirty:
            return self.message
        message = self.message
        if self._content:
            joined = "".join(self._content)
            self._content[:] = [joined]
            message["content"] = joined
        if self._reasoning:
            joined = "".join(self._reasoning)
            self._reasoning[:] = [joined]
            message["reasoning_content"] = joined
        if self._calls:
            message["tool_calls"] = [self._tool_call(call) for call in self._calls]
        self._dirty = False
        return message

    @staticmethod
    def _tool_call(call: _PendingCall) -> ToolCall:
        joined = "".join(call.arguments)
        call.arguments[:] = [joined] if joined else []
        return {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": joined}}


def parse_arguments(arguments: str) -> dict[str, Any] | None:
    """The arguments of a tool call as a dict, or None when they are not a JSON object."""
    try:
        value = json.loads(arguments or "{}")
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
