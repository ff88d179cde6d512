"""Whole turns through MessageEngine + ToolPlugin over the real openai client, for Chat Completions and Responses."""

from __future__ import annotations

import asyncio
import json

import pytest

from notebook_chat.testing import FakeOpenAIServer

from .harness import (
    APIS,
    Api,
    Ledger,
    abort_after_first_text,
    assert_request_is_valid_everywhere,
    last_turn,
    make_engine,
    results_sent,
    statuses,
)

pytestmark = pytest.mark.parametrize("api", APIS)


async def test_a_plain_streaming_turn_completes_with_the_whole_text(server: FakeOpenAIServer, api: Api) -> None:
    server.enqueue_text("Hello from the model.", chunks=5)
    engine = make_engine(server, Ledger(), api)

    await engine.send_message("hi")

    assert engine.state.request_state == "completed"
    assert [(m["role"], m["content"]) for m in engine.messages] == [
        ("user", "hi"), ("assistant", "Hello from the model.")]
    assert last_turn(engine)["end_reason"] == "completed"
    assert engine.messages[-1]["metadata"]["usage"]["completion_tokens"] == 5


async def test_parallel_tool_calls_in_fragments_run_both_tools_and_the_follow_up_carries_both_results(
    server: FakeOpenAIServer, api: Api
) -> None:
    ledger = Ledger()
    server.enqueue_tool_calls([
        {"name": "lookup", "arguments": {"city": "Oslo"}, "id": "call_a"},
        {"name": "add", "arguments": {"a": 2, "b": 3}, "id": "call_b"},
    ], fragments=4, interleave=True)
    server.enqueue_text("Oslo is sunny and 2 + 3 = 5.")
    engine = make_engine(server, ledger, api)

    await engine.send_message("weather in Oslo, and 2 + 3?")

    assert sorted(ledger.runs) == [("add", {"a": 2, "b": 3}), ("lookup", {"city": "Oslo"})]
    assert statuses(engine) == {"call_a": "success", "call_b": "success"}
    follow_up = server.requests[1]
    assert results_sent(follow_up.body) == {"call_a": "sunny in Oslo", "call_b": "5"}
    assert_request_is_valid_everywhere(follow_up, engine)
    assert engine.messages[-1]["content"] == "Oslo is sunny and 2 + 3 = 5."
    assert engine.state.request_state == "completed"


async def test_reasoning_lands_in_the_message_and_thinking_is_off_at_the_end(
    server: FakeOpenAIServer, api: Api
) -> None:
    server.enqueue_reasoning("Let me think about greetings.", "Hello!", chunks=3)
    engine = make_engine(server, Ledger(), api)

    await engine.send_message("hi")

    reply = engine.messages[-1]
    assert reply["reasoning_content"] == "Let me think about greetings."
    assert reply["content"] == "Hello!"
    assert reply["state"]["thinking"] is False
    assert engine.state.request_state == "completed"


async def test_the_closing_request_after_max_tool_rounds_sends_neither_tools_nor_tool_choice(
    server: FakeOpenAIServer, api: Api
) -> None:
    ledger = Ledger()
    server.enqueue_tool_calls([{"name": "lookup", "arguments": {"city": "Rome"}, "id": "round_1"}])
    server.enqueue_tool_calls([{"name": "lookup", "arguments": {"city": "Pisa"}, "id": "round_2"}])
    server.enqueue_text("Rome is sunny; I stopped there.")
    engine = make_engine(server, ledger, api, max_tool_rounds=1)

    await engine.send_message("weather in Rome, then Pisa")

    first, _, closing = server.requests
    assert "tools" in first.body
    assert "tools" not in closing.body
    assert "tool_choice" not in closing.body
    assert ledger.runs == [("lookup", {"city": "Rome"})]
    assert statuses(engine) == {"round_1": "success", "round_2": "cancelled"}
    assert_request_is_valid_everywhere(closing, engine)
    assert engine.state.request_state == "completed"


async def test_stop_mid_stream_aborts_keeps_the_partial_text_and_closes_the_connection(
    server: FakeOpenAIServer, api: Api
) -> None:
    server.enqueue_text("one two six ", chunks=3, delay=0.2)
    engine = make_engine(server, Ledger(), api)

    await abort_after_first_text(engine, "count")

    assert engine.state.request_state == "aborted"
    assert (last_turn(engine)["end_reason"], last_turn(engine)["detail"]) == ("aborted", "user")
    assert engine.messages[-1]["content"] == "one "
    assert await asyncio.to_thread(server.wait_for_disconnect, 5.0)
    assert server.requests[0].pieces_sent == 1


async def test_after_a_stop_the_next_request_is_valid_for_every_provider(server: FakeOpenAIServer, api: Api) -> None:
    server.enqueue_text("one two six ", chunks=3, delay=0.2)
    engine = make_engine(server, Ledger(), api)
    await abort_after_first_text(engine, "count")
    server.enqueue_text("Seven.")

    await engine.send_message("go on")

    assert engine.state.request_state == "completed"
    assert_request_is_valid_everywhere(server.requests[-1], engine)
    assert json.dumps(server.requests[-1].body).count("one ") == 1
