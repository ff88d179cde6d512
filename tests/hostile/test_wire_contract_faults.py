"""A server that breaks the wire contract ends the turn in `error` with a clear message; `chat.send` does not raise; the
live and saved histories stay valid; no tool runs; the next turn completes at once.

The matrix is generated: every fault kind x where it strikes (first event, after some text, in the middle of a tool
call's arguments) x Chat Completions / Responses, over the real openai client and FakeOpenAIServer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from notebook_chat.testing import FakeOpenAIServer, RawEvent, Reply, StreamEnds, Text, ToolCallFragment, raw_json
from tests.plugins.tool_helpers import Ledger

from .chats import APIS, Api, assert_history_sound, assert_next_turn_completes, openai_chat


def chat_delta(delta: dict[str, Any]) -> dict[str, Any]:
    return {"id": "chatcmpl-x", "object": "chat.completion.chunk", "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}


def chat_call(**call: Any) -> dict[str, Any]:
    return chat_delta({"tool_calls": [{"index": 5, "type": "function", **call}]})


def added_call(**item: Any) -> dict[str, Any]:
    return {"type": "response.output_item.added", "output_index": 5,
            "item": {"type": "function_call", "id": "fc_x", "status": "in_progress", **item}}


def text_delta(delta: Any) -> dict[str, Any]:
    return {"type": "response.output_text.delta", "item_id": "msg_x", "output_index": 0, "content_index": 0,
            "delta": delta}


LONG_ID = "call_" + "x" * 500


@dataclass(frozen=True)
class Kind:
    chat: RawEvent
    responses: RawEvent
    words: str
    """Words the turn's error must contain."""

    def event(self, api: Api) -> RawEvent:
        return self.chat if api == "chat" else self.responses


def both(event: RawEvent, words: str) -> Kind:
    return Kind(event, event, words)


WIRE = "wire format"
UNREADABLE = "not a JSON object"

KINDS: dict[str, Kind] = {
    "text that is a number": Kind(raw_json(chat_delta({"content": 5})), raw_json(text_delta(5)), WIRE),
    "text that is an object": Kind(raw_json(chat_delta({"content": {"text": "hi"}})),
                                   raw_json(text_delta({"text": "hi"})), WIRE),
    "text that is a list": Kind(raw_json(chat_delta({"content": ["hi"]})), raw_json(text_delta(["hi"])), WIRE),
    "text that is true": Kind(raw_json(chat_delta({"content": True})), raw_json(text_delta(True)), WIRE),
    "reasoning that is a number": Kind(
        raw_json(chat_delta({"reasoning_content": 3})),
        raw_json({"type": "response.reasoning_summary_text.delta", "item_id": "rs", "output_index": 0,
                  "summary_index": 0, "delta": 3}), WIRE),
    "arguments that are a number": Kind(
        raw_json(chat_call(id="call_n", function={"name": "lookup", "arguments": 7})),
        raw_json(added_call(call_id="call_n", name="lookup", arguments=7)), WIRE),
    "arguments that are an object": Kind(
        raw_json(chat_call(id="call_o", function={"name": "lookup", "arguments": {"city": "Paris"}})),
        raw_json(added_call(call_id="call_o", name="lookup", arguments={"city": "Paris"})), WIRE),
    "a tool-call id that is a number": Kind(
        raw_json(chat_call(id=42, function={"name": "lookup", "arguments": "{}"})),
        raw_json(added_call(call_id=42, name="lookup", arguments="{}")), WIRE),
    "a tool-call id that is an object": Kind(
        raw_json(chat_call(id={"a": 1}, function={"name": "lookup", "arguments": "{}"})),
        raw_json(added_call(call_id={"a": 1}, name="lookup", arguments="{}")), WIRE),
    "a tool-call id too long to store": Kind(
        raw_json(chat_call(id=LONG_ID, function={"name": "lookup", "arguments": "{}"})),
        raw_json(added_call(call_id=LONG_ID, name="lookup", arguments="{}")), WIRE),
    "a tool name that is a number": Kind(
        raw_json(chat_call(id="call_m", function={"name": 9, "arguments": "{}"})),
        raw_json(added_call(call_id="call_m", name=9, arguments="{}")), WIRE),
    "a tool name too long to store": Kind(
        raw_json(chat_call(id="call_l", function={"name": "n" * 500, "arguments": "{}"})),
        raw_json(added_call(call_id="call_l", name="n" * 500, arguments="{}")), WIRE),
    "a tool call that is not a function": Kind(
        raw_json(chat_call(id="call_t", type="code", function={"name": "lookup", "arguments": "{}"})),
        raw_json({"type": "response.output_item.added", "output_index": 5, "item": "function_call"}), WIRE),
    "tool calls that are not a list": Kind(
        raw_json(chat_delta({"tool_calls": {"index": 0, "id": "call_d"}})),
        raw_json({"type": "response.function_call_arguments.delta", "item_id": {"x": 1}, "delta": "{"}), WIRE),
    "a tool-call fragment that is not an object": Kind(
        raw_json(chat_delta({"tool_calls": ["call"]})),
        raw_json({"type": "response.output_item.added", "output_index": 5, "item": ["function_call"]}), WIRE),
    "a tool-call index that is a list": Kind(
        raw_json(chat_delta({"tool_calls": [{"index": [0], "id": "call_i", "function": {"name": "lookup"}}]})),
        raw_json({"type": "response.completed", "response": "done"}), WIRE),
    "choices that are not a list": Kind(
        raw_json({"id": "c", "object": "chat.completion.chunk", "choices": {"index": 0, "delta": {}}}),
        raw_json({"type": 5}), WIRE),
    "a choice that is not an object": Kind(
        raw_json({"id": "c", "object": "chat.completion.chunk", "choices": [7]}),
        raw_json({"type": "response.created", "response": [1]}), WIRE),
    "a delta that is not an object": Kind(
        raw_json({"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": "hi"}]}),
        raw_json({"type": "response.incomplete", "response": {"incomplete_details": "long"}}), WIRE),
    "a finish reason that is a number": Kind(
        raw_json({"id": "c", "object": "chat.completion.chunk",
                  "choices": [{"index": 0, "delta": {}, "finish_reason": 1}]}),
        raw_json({"type": "response.in_progress", "response": {"id": 5}}), WIRE),
    "an event line that is not JSON": both(RawEvent("{not json"), UNREADABLE),
    "an event that is a JSON list": both(RawEvent("[1,2,3]"), UNREADABLE),
    "an event that is a JSON number": both(RawEvent("3"), UNREADABLE),
    "an event that is a JSON string": both(RawEvent('"hello"'), UNREADABLE),
    "an event that is JSON null": both(RawEvent("null"), UNREADABLE),
}

POSITIONS: dict[str, tuple[Any, ...]] = {
    "first": (),
    "after some text": (Text("Hello, "),),
    "inside a tool call's arguments": (ToolCallFragment(0, '{"city": "Pa', id="call_live", name="lookup"),),
}

MATRIX = [(kind, position, api) for kind in KINDS for position in POSITIONS for api in APIS]


def faulty_reply(kind: str, position: str, api: Api) -> Reply:
    before = POSITIONS[position]
    after = (Text("never shown"),) if not before or isinstance(before[0], Text) else (
        ToolCallFragment(0, 'ris"}'),)
    return Reply((*before, KINDS[kind].event(api), *after))


@pytest.mark.parametrize(("kind", "position", "api"), MATRIX, ids=[f"{k} | {p} | {a}" for k, p, a in MATRIX])
async def test_a_reply_that_breaks_the_wire_contract_ends_the_turn_in_error_and_loses_nothing(
    server: FakeOpenAIServer, tmp_path: Path, kind: str, position: str, api: Api
) -> None:
    ledger = Ledger()
    path = tmp_path / "chats.json"
    chat = openai_chat(server, api, path, ledger)
    server.enqueue(faulty_reply(kind, position, api))

    await chat.send("hi")  # never raises for a provider failure

    assert chat.state.request_state == "error"
    assert KINDS[kind].words in (chat.state.error or ""), chat.state.error
    assert "never shown" not in json.dumps(chat.messages)
    assert ledger.runs == []
    assert_history_sound(chat, path)
    await assert_next_turn_completes(chat, server)
    assert ledger.runs == []
    assert_history_sound(chat, path)


def test_the_matrix_covers_every_kind_at_every_position_for_both_apis() -> None:
    assert len(MATRIX) == len(KINDS) * len(POSITIONS) * len(APIS) >= 150


@pytest.mark.parametrize("api", APIS)
async def test_a_stream_of_only_empty_choices_is_an_incomplete_reply_not_a_success(
    server: FakeOpenAIServer, tmp_path: Path, api: Api
) -> None:
    empty = raw_json({"id": "c", "object": "chat.completion.chunk", "choices": []}) if api == "chat" else raw_json(
        {"type": "response.in_progress", "response": {"id": "r"}})
    chat = openai_chat(server, api, tmp_path / "chats.json", Ledger())
    server.enqueue(Reply((empty, empty), fault=StreamEnds()))

    await chat.send("hi")

    assert chat.state.request_state == "error"
    assert "ended before the reply was complete" in (chat.state.error or "")
    await assert_next_turn_completes(chat, server)
