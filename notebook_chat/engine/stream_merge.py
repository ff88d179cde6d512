"""Merges OpenAI-shaped chunks (or one complete completion) into an assistant message.

Text arrives in many small pieces; appending each piece to the message's string would copy the whole reply per chunk.
The accumulator keeps pieces in lists and writes the joined text into the message only when asked
(:meth:`materialize`), so the work per chunk stays constant however long the reply grows.

Provider output is untrusted (:mod:`.wire`): a chunk that breaks the wire contract raises :class:`ProviderError`
(kind ``bad-response``) before the bad value reaches the message, so the history stays one every provider and every
store accepts. Lone UTF-16 surrogates are repaired (a pair split across two chunks is joined), and a tool-call id
that is already used in this reply or earlier in the conversation gets a fresh unique one.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from .conversation import MAX_ID_CHARS, MAX_TEXT_CHARS, MAX_TOOL_CALLS, Message, ToolCall
from .messages import new_tool_call_id
from .wire import (
    SurrogateJoiner,
    check_limit,
    optional_dict,
    optional_int,
    optional_list,
    optional_str,
    repair_surrogates,
    token_counts,
    wire_error,
)

Appended = Callable[[str, str], None]
"""Called with (field, appended_text); field is ``content``, ``reasoning_content`` or ``args:<tool_call_id>``."""


class _ChoicePaths:
    """The error paths of one choice position, built once (an f-string per chunk would cost more than the chunk)."""

    __slots__ = ("content", "delta", "finish_reason", "fragments", "index", "reasoning", "tool_calls", "where")

    def __init__(self, position: int) -> None:
        where = f"choices[{position}]"
        self.where = where
        self.index = f"{where}.index"
        self.delta = f"{where}.delta"
        self.finish_reason = f"{where}.finish_reason"
        self.content = f"{where}.delta.content"
        self.reasoning = f"{where}.delta.reasoning_content"
        self.tool_calls = f"{where}.delta.tool_calls"
        self.fragments: list[str] = []

    def fragment(self, position: int) -> str:
        while len(self.fragments) <= position:
            self.fragments.append(f"{self.tool_calls}[{len(self.fragments)}]")
        return self.fragments[position]


_PATHS: list[_ChoicePaths] = [_ChoicePaths(0)]
_MESSAGE_PATHS = _ChoicePaths(0)
"""A complete completion's message: its fields are named under ``choices[0].message``."""
_MESSAGE_PATHS.content, _MESSAGE_PATHS.reasoning = "choices[0].message.content", "choices[0].message.reasoning_content"
_MESSAGE_PATHS.tool_calls = "choices[0].message.tool_calls"


def _paths(position: int) -> _ChoicePaths:
    while len(_PATHS) <= position and len(_PATHS) < 64:
        _PATHS.append(_ChoicePaths(len(_PATHS)))
    return _PATHS[position] if position < len(_PATHS) else _ChoicePaths(position)


class _PendingCall:
    __slots__ = ("arguments", "chars", "id", "name")

    def __init__(self, call_id: str, name: str) -> None:
        self.id = call_id
        self.name = name
        self.arguments: list[str] = []
        self.chars = 0


class StreamAccumulator:
    def __init__(self, message: Message, on_append: Appended | None = None, *,
                 taken_ids: Collection[str] = ()) -> None:
        self.message = message
        self.finish_reason: str | None = None
        self.usage: dict[str, Any] | None = None
        self._content: list[str] = []
        self._reasoning: list[str] = []
        self._chars = {"content": 0, "reasoning_content": 0}
        self._calls: list[_PendingCall] = []
        self._calls_by_index: dict[int, _PendingCall] = {}
        self._calls_by_given_id: dict[str, _PendingCall] = {}
        self._taken_before = taken_ids
        """Ids the conversation already uses (the engine's set, read only: not copied per request)."""
        self._taken: set[str] = set()
        self._joiner = SurrogateJoiner()
        self._on_append = on_append
        self._dirty = False

    # -- chunks -------------------------------------------------------------------------------------------------
    def add_chunk(self, chunk: Any) -> None:
        if not self._add_text_chunk(chunk):
            self._add_any_chunk(chunk)

    def _add_text_chunk(self, chunk: Any) -> bool:
        """Add the most common chunk, one choice whose delta holds only text, without the general path's walk;
        False (nothing added) for any other chunk. What it accepts, the general path accepts alike."""
        if type(chunk) is not dict or chunk.get("usage") is not None:
            return False
        choices = chunk.get("choices")
        if type(choices) is not list or len(choices) != 1:
            return False
        choice = choices[0]
        if type(choice) is not dict:
            return False
        index = choice.get("index")
        delta = choice.get("delta")
        reason = choice.get("finish_reason")
        if (index is not None and (type(index) is not int or index != 0)) or type(delta) is not dict or (
                reason is not None and type(reason) is not str):
            return False
        text = delta.get("content")
        if type(text) is not str or delta.get("reasoning_content") is not None or delta.get(
                "reasoning") is not None or delta.get("tool_calls") is not None:
            return False
        if text:
            self._add_text("content", self._content, text)
        if reason:
            self.finish_reason = reason
        return True

    def _add_any_chunk(self, chunk: Any) -> None:
        chunk = optional_dict(chunk, "chunk") or {}
        usage = token_counts(chunk.get("usage"))
        if usage:
            self.usage = usage
        for position, choice in enumerate(optional_list(chunk.get("choices"), "chunk.choices") or ()):
            paths = _paths(position)
            choice = optional_dict(choice, paths.where) or {}
            if optional_int(choice.get("index"), paths.index) not in (None, 0):
                continue
            self._add_delta(optional_dict(choice.get("delta"), paths.delta) or {}, paths)
            reason = optional_str(choice.get("finish_reason"), paths.finish_reason)
            if reason:
                self.finish_reason = reason

    def _add_delta(self, delta: dict[str, Any], paths: _ChoicePaths) -> None:
        text = optional_str(delta.get("content"), paths.content)
        if text:
            self._add_text("content", self._content, text)
        reasoning = delta.get("reasoning_content")
        if reasoning is None:
            reasoning = delta.get("reasoning")
        reasoning = optional_str(reasoning, paths.reasoning)
        if reasoning:
            self._add_text("reasoning_content", self._reasoning, reasoning)
        for position, fragment in enumerate(optional_list(delta.get("tool_calls"), paths.tool_calls) or ()):
            where = paths.fragment(position)
            self._add_tool_call_fragment(optional_dict(fragment, where) or {}, where)

    def _add_text(self, field: str, pieces: list[str], text: str) -> None:
        text = self._joiner.join(field, text)
        if not text:
            return
        self._chars[field] += len(text)
        check_limit(self._chars[field], MAX_TEXT_CHARS, f"the reply's {field}")
        pieces.append(text)
        self._dirty = True
        if self._on_append:
            self._on_append(field, text)

    def _add_tool_call_fragment(self, fragment: dict[str, Any], where: str) -> None:
        function = optional_dict(fragment.get("function"), f"{where}.function") or {}
        name = optional_str(function.get("name"), f"{where}.function.name")
        piece = optional_str(function.get("arguments"), f"{where}.function.arguments")
        kind = optional_str(fragment.get("type"), f"{where}.type")
        if kind not in (None, "function"):
            raise wire_error(f"{where}.type is {kind!r}; only function calls are supported")
        call = self._find_call(fragment, where)
        if call is None:
            call = self._new_call(fragment, where, name or "")
        elif name and not call.name:
            call.name = self._name(name)
        if piece:
            key = f"args:{call.id}"
            piece = self._joiner.join(key, piece)
            call.chars += len(piece)
            check_limit(call.chars, MAX_TEXT_CHARS, f"the arguments of tool call {call.id!r}")
            if piece:
                call.arguments.append(piece)
                if self._on_append:
                    self._on_append(key, piece)
        self._dirty = True

    def _new_call(self, fragment: dict[str, Any], where: str, name: str) -> _PendingCall:
        if len(self._calls) >= MAX_TOOL_CALLS:
            raise wire_error(f"the reply holds more than {MAX_TOOL_CALLS} tool calls")
        given = optional_str(fragment.get("id"), f"{where}.id")
        call = _PendingCall(self._unique_id(repair_surrogates(given) if given else new_tool_call_id()),
                            self._name(name))
        self._calls.append(call)
        if given:
            self._calls_by_given_id[given] = call
        index = fragment.get("index")
        if isinstance(index, int):
            self._calls_by_index[index] = call
        return call

    @staticmethod
    def _name(name: str) -> str:
        check_limit(len(name), MAX_ID_CHARS, "a tool call's name")
        return repair_surrogates(name)

    def _unique_id(self, call_id: str) -> str:
        """The provider's id, unless this reply or the conversation already uses it (some servers number calls
        per reply: ``call_0`` every round); then ``<id>_<n>``, so every call keeps its own result and decision."""
        check_limit(len(call_id), MAX_ID_CHARS, "a tool call id")
        unique, number = call_id, 1
        while unique in self._taken or unique in self._taken_before:
            number += 1
            unique = f"{call_id[:MAX_ID_CHARS - 8]}_{number}"
        self._taken.add(unique)
        return unique

    def _find_call(self, fragment: dict[str, Any], where: str) -> _PendingCall | None:
        index = optional_int(fragment.get("index"), f"{where}.index")
        if index is not None:
            return self._calls_by_index.get(index)
        # Some OpenAI-compatible proxies omit the index: a fragment with a new id starts a call, one without an id
        # continues the latest call.
        call_id = optional_str(fragment.get("id"), f"{where}.id")
        if call_id:
            return self._calls_by_given_id.get(call_id)
        return self._calls[-1] if self._calls else None

    # -- complete responses --------------------------------------------------------------------------------------
    def add_completion(self, completion: Any) -> None:
        completion = optional_dict(completion, "completion") or {}
        usage = token_counts(completion.get("usage"))
        if usage:
            self.usage = usage
        choices = optional_list(completion.get("choices"), "completion.choices") or []
        if not choices:
            raise wire_error("the completion holds no choices (no message, no finish reason)")
        choice = optional_dict(choices[0], "choices[0]") or {}
        message = optional_dict(choice.get("message"), "choices[0].message") or {}
        calls = optional_list(message.get("tool_calls"), "choices[0].message.tool_calls") or []
        delta: dict[str, Any] = {
            "content": message.get("content"),
            "reasoning_content": message.get("reasoning_content"),
            "tool_calls": [
                {**(optional_dict(call, f"choices[0].message.tool_calls[{i}]") or {}), "index": i}
                for i, call in enumerate(calls)
            ],
        }
        self._add_delta(delta, _MESSAGE_PATHS)
        self.finish_reason = optional_str(choice.get("finish_reason"), "choices[0].finish_reason") or \
            self.finish_reason

    # -- output -----------------------------------------------------------------------------------------------
    def close(self) -> Message:
        """The reply is over: a surrogate still waiting for its pair becomes U+FFFD; the text is written out."""
        for field, rest in self._joiner.flush():
            self._dirty = True
            if field == "content":
                self._content.append(rest)
            elif field == "reasoning_content":
                self._reasoning.append(rest)
            else:
                call = next((c for c in self._calls if f"args:{c.id}" == field), None)
                if call is not None:
                    call.arguments.append(rest)
        return self.materialize()

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

