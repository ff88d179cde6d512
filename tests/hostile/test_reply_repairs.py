"""Replies that are legal on the wire but would corrupt the history are repaired where they enter: split UTF-16
surrogates, tool-call ids used twice, unknown tool names, arguments cut off at the token limit.

Both APIs, over the real openai client."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from notebook_chat import Chat
from notebook_chat.engine.stream_merge import StreamAccumulator
from notebook_chat.persistence import FileStore
from notebook_chat.plugins.tools import ARGUMENTS_INCOMPLETE
from notebook_chat.testing import (
    FakeOpenAIServer,
    RawEvent,
    Reply,
    ScriptedProvider,
    ScriptedReply,
    Text,
    ToolCallFragment,
    ToolCallSpec,
    raw_json,
)
from tests.plugins.tool_helpers import Ledger

from .chats import APIS, KEY, Api, assert_history_sound, assert_next_turn_completes, openai_chat

apis = pytest.mark.parametrize("api", APIS)
EMOJI = "\U0001f600"
HIGH, LOW = "\ud83d", "\ude00"


def chat_text(text: str) -> RawEvent:
    return raw_json({"id": "c", "object": "chat.completion.chunk",
                     "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]})


def responses_text(text: str) -> RawEvent:
    return raw_json({"type": "response.output_text.delta", "item_id": "msg_0", "output_index": 0,
                     "content_index": 0, "delta": text})


def split_emoji_reply(api: Api, pieces: list[str]) -> Reply:
    event = chat_text if api == "chat" else responses_text
    return Reply((Text("Look: "), *(event(piece) for piece in pieces)))


@apis
async def test_an_emoji_split_into_two_lone_surrogates_across_chunks_is_joined_and_saved(
        server: FakeOpenAIServer, tmp_path: Path, api: Api) -> None:
    path = tmp_path / "chats.json"
    chat = openai_chat(server, api, path, Ledger())
    server.enqueue(split_emoji_reply(api, [f"a {HIGH}", f"{LOW} b"]))

    await chat.send("smile")

    assert chat.state.request_state == "completed"
    assert chat.reply == f"Look: a {EMOJI} b"
    assert EMOJI in path.read_text(encoding="utf-8")
    assert_history_sound(chat, path)
    await assert_next_turn_completes(chat, server)


@apis
async def test_a_surrogate_that_never_gets_its_pair_becomes_a_replacement_character(
        server: FakeOpenAIServer, tmp_path: Path, api: Api) -> None:
    path = tmp_path / "chats.json"
    chat = openai_chat(server, api, path, Ledger())
    server.enqueue(split_emoji_reply(api, [f"x{LOW}y", f"z{HIGH}"]))

    await chat.send("smile")

    assert chat.reply == "Look: x\ufffdyz\ufffd"
    assert_history_sound(chat, path)
    await assert_next_turn_completes(chat, server)


def test_surrogates_in_tool_call_ids_names_and_arguments_are_repaired() -> None:
    message: dict[str, object] = {"role": "assistant", "content": ""}
    merger = StreamAccumulator(message)  # type: ignore[arg-type]
    fragment = {"index": 0, "id": f"call_{HIGH}", "function": {"name": f"look{LOW}", "arguments": '{"q": "' + HIGH}}
    merger.add_chunk({"choices": [{"index": 0, "delta": {"tool_calls": [fragment]}}]})
    merger.add_chunk({"choices": [{"index": 0, "delta": {"tool_calls": [
        {"index": 0, "function": {"arguments": LOW + '"}'}}]}, "finish_reason": "tool_calls"}]})

    call = merger.close()["tool_calls"][0]  # type: ignore[index]

    assert call["id"] == "call_\ufffd"
    assert call["function"]["name"] == "look\ufffd"
    assert json.loads(call["function"]["arguments"]) == {"q": EMOJI}


@apis
async def test_two_calls_sharing_an_id_in_one_reply_each_get_their_own_approval_and_run_once(
        server: FakeOpenAIServer, tmp_path: Path, api: Api) -> None:
    ledger = Ledger()
    path = tmp_path / "chats.json"
    chat = openai_chat(server, api, path, ledger)
    server.enqueue_tool_calls([ToolCallSpec("delete_file", {"path": "a"}, id="call_same"),
                               ToolCallSpec("delete_file", {"path": "b"}, id="call_same")], fragments=2)

    await chat.send("delete a and b")

    pending = chat.pending_approvals
    assert len({p["tool_call_id"] for p in pending}) == 2
    assert_history_sound(chat, path)
    server.enqueue_text("both deleted")
    for approval in pending:
        await chat.approve(approval["tool_call_id"])
    assert sorted(args["path"] for _, args in ledger.runs) == ["a", "b"]
    assert chat.state.request_state == "completed"
    assert_history_sound(chat, path)


@apis
async def test_a_tool_call_id_reused_in_a_later_round_gets_a_fresh_id_and_its_own_result(
        server: FakeOpenAIServer, tmp_path: Path, api: Api) -> None:
    ledger = Ledger()
    path = tmp_path / "chats.json"
    chat = openai_chat(server, api, path, ledger)
    server.enqueue_tool_calls([ToolCallSpec("lookup", {"city": "Paris"}, id="call_0")])
    server.enqueue_tool_calls([ToolCallSpec("lookup", {"city": "Rome"}, id="call_0")])
    server.enqueue_text("Paris and Rome are sunny")

    await chat.send("weather in Paris, then Rome")

    assert chat.state.request_state == "completed"
    assert ledger.runs == [("lookup", {"city": "Paris"}), ("lookup", {"city": "Rome"})]
    ids = [call["id"] for m in chat.messages for call in m.get("tool_calls") or ()]
    assert len(ids) == len(set(ids)) == 2
    assert_history_sound(chat, path)


@apis
async def test_a_call_to_an_unknown_tool_runs_nothing_and_tells_the_model_so(
        server: FakeOpenAIServer, tmp_path: Path, api: Api) -> None:
    ledger = Ledger()
    path = tmp_path / "chats.json"
    chat = openai_chat(server, api, path, ledger)
    server.enqueue_tool_calls([ToolCallSpec("format_disk", {"drive": "C"}, id="call_x")])
    server.enqueue_text("I can't do that")

    await chat.send("format the disk")

    assert ledger.runs == []
    results = [m["content"] for m in chat.messages if m.get("role") == "tool"]
    assert len(results) == 1
    assert "unknown tool 'format_disk'" in results[0]
    assert chat.state.request_state == "completed"
    assert_history_sound(chat, path)


@apis
async def test_arguments_cut_off_at_the_token_limit_are_not_run_and_get_an_arguments_incomplete_result(
        server: FakeOpenAIServer, tmp_path: Path, api: Api) -> None:
    ledger = Ledger()
    path = tmp_path / "chats.json"
    chat = openai_chat(server, api, path, ledger)
    server.enqueue(Reply((ToolCallFragment(0, '{"city": "Par', id="call_cut", name="lookup"),),
                         finish_reason="length"))

    await chat.send("weather?")

    assert ledger.runs == []
    assert len(server.requests) == 1  # not sent back to the model by itself
    result = next(m for m in chat.messages if m.get("role") == "tool")
    assert result["tool_call_id"] == "call_cut"
    assert result["content"] == ARGUMENTS_INCOMPLETE
    assert chat.messages[-2]["state"]["tool_calls"]["call_cut"]["status"] == "failed"
    assert chat.engine.turns[-1]["end_reason"] == "max-tokens"
    assert chat.view_state()["continue_offer"] is not None
    assert_history_sound(chat, path)
    await assert_next_turn_completes(chat, server)
    assert ledger.runs == []


async def test_a_completion_with_no_choices_ends_the_turn_in_error(tmp_path: Path) -> None:
    provider = ScriptedProvider(ScriptedReply(complete={"id": "x", "object": "chat.completion", "choices": []}))
    chat = Chat(provider, key=KEY, store=FileStore(tmp_path / "c.json"), restore_timeout=0)

    await chat.send("hi")

    assert chat.state.request_state == "error"
    assert "no choices" in (chat.state.error or "")
