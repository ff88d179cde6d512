"""Against a real llama.cpp llama-server (Gemma 3 270M): the conversations of issue 12, item 7, end to end."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from notebook_chat.engine import EngineEvent, MessageEngine, ProviderError
from notebook_chat.engine.history import validate
from notebook_chat.plugins import TOOL_RESUME, TURN_CONTINUE, ContinuationPlugin, ToolPlugin, tool
from notebook_chat.providers import OpenAIChat, OpenAIResponses
from notebook_chat.widget import recovery

from .conftest import LlamaServer

STOPS = ["<|im_end|>", "<end_of_turn>", "<start_of_turn>"]
OPTIONS: dict[str, Any] = {"temperature": 0, "max_tokens": 24, "stop": STOPS}


def chat_provider(server: LlamaServer, kind: type[OpenAIChat] = OpenAIChat, **options: Any) -> OpenAIChat:
    """Key-less, as a local server is used: no api_key, nothing in the environment."""
    merged = {**OPTIONS, **options}
    if kind is OpenAIResponses:
        merged.pop("stop", None)
    return kind("gemma3-270m", base_url=server.base_url, max_retries=1, timeout=60, **merged)


def engine_for(provider: OpenAIChat, *plugins: Any, system: str | None = None) -> MessageEngine:
    initial = [{"role": "system", "content": system}] if system else []
    return MessageEngine(provider, plugins=[ContinuationPlugin(), *plugins], initial_messages=initial)  # type: ignore[list-item]


def ended(engine: MessageEngine) -> str | None:
    return engine.turns[-1]["end_reason"]


async def stop_when(engine: MessageEngine, text: str, condition: Callable[[EngineEvent], bool]) -> None:
    hit = asyncio.Event()

    def on_event(event: EngineEvent) -> None:
        if condition(event):
            hit.set()

    unsubscribe = engine.subscribe(on_event)
    turn = asyncio.ensure_future(engine.send_message(text))
    try:
        await asyncio.wait_for(hit.wait(), 60)
        await engine.abort()
        await turn
    finally:
        unsubscribe()


async def test_a_key_less_streamed_turn_arrives_in_pieces_and_completes(chatml: LlamaServer) -> None:
    engine = engine_for(chat_provider(chatml))
    pieces: list[str] = []
    engine.subscribe(lambda e: pieces.append(e.text or "") if e.kind == "message" and e.field == "content" else None)

    await engine.send_message("Say hello.")

    assert ended(engine) in ("completed", "max-tokens")
    assert len(pieces) > 1
    assert engine.messages[-1]["content"] == "".join(pieces)
    assert engine.messages[-1]["metadata"]["usage"]["prompt_tokens"] > 0


async def test_four_turns_with_a_system_message_complete_under_the_strict_gemma_template(gemma: LlamaServer) -> None:
    engine = engine_for(chat_provider(gemma), system="Answer briefly.")

    for text in ("Hi.", "What is 2 + 2?", "And 3 + 3?", "Thanks."):
        await engine.send_message(text)
        assert engine.state.request_state == "completed", engine.state.error

    assert [m["role"] for m in engine.messages] == ["system"] + ["user", "assistant"] * 4


async def test_stop_mid_stream_then_the_next_message_completes(gemma: LlamaServer) -> None:
    engine = engine_for(chat_provider(gemma, max_tokens=200, stop=[]))

    await stop_when(engine, "Count from one to fifty in words.",
                    lambda e: e.kind == "message" and e.field == "content")
    assert ended(engine) == "aborted"
    await engine.send_message("Now say yes.")

    assert engine.state.request_state == "completed", engine.state.error


async def test_stop_before_the_first_token_then_the_next_message_completes_under_the_strict_template(
    gemma: LlamaServer,
) -> None:
    engine = engine_for(chat_provider(gemma), system="Answer briefly.")

    await stop_when(engine, "Are you there?", lambda e: e.kind == "state" and engine.state.is_processing)
    assert ended(engine) == "aborted"
    assert [m["role"] for m in engine.messages] == ["system", "user"]  # unanswered: two users in a row follow
    await engine.send_message("Hello?")

    assert engine.state.request_state == "completed", engine.state.error
    assert [m["role"] for m in engine.messages] == ["system", "user", "user", "assistant"]


async def test_a_server_stopped_and_restarted_mid_conversation_loses_nothing(model_file: Any) -> None:
    server = LlamaServer(model_file, "gemma3_strict.jinja", 2048).start()
    try:
        engine = engine_for(chat_provider(server))
        await engine.send_message("Hi.")
        server.stop()
        with pytest.raises(ProviderError) as failure:
            await engine.send_message("Still there?")
        assert failure.value.kind == "network"
        server.start()
        await engine.send_message("Hello again.")
    finally:
        server.stop()

    assert engine.state.request_state == "completed", engine.state.error
    assert [m["role"] for m in engine.messages] == ["user", "assistant", "user", "user", "assistant"]


async def test_max_tokens_then_continue_goes_on_under_the_strict_template(gemma: LlamaServer) -> None:
    engine = engine_for(chat_provider(gemma, max_tokens=6, stop=[]))

    await engine.send_message("Write a long story about a cat.")
    assert ended(engine) == "max-tokens"
    await engine.dispatch_command(TURN_CONTINUE, {})

    assert ended(engine) in ("max-tokens", "completed")
    assert engine.state.request_state == "completed", engine.state.error


async def test_a_too_long_message_is_rejected_as_context_length_and_removing_it_lets_the_next_message_through(
    gemma: LlamaServer,
) -> None:
    engine = engine_for(chat_provider(gemma))
    await engine.send_message("Hi.")

    with pytest.raises(ProviderError) as failure:
        await engine.send_message("word " * 3000)
    assert failure.value.kind == "context-length"
    assert "exceeds the available context size" in (engine.state.error or "")
    assert recovery.retry_offer(engine) is not None
    rejected = [m for m in engine.messages if m["role"] == "user"][-1]
    recovery.remove_message(engine, rejected["id"])
    await engine.send_message("Short question?")

    assert engine.state.request_state == "completed", engine.state.error


async def test_a_too_long_history_is_recovered_by_retrying_with_a_shorter_history(gemma: LlamaServer) -> None:
    engine = engine_for(chat_provider(gemma))
    long_turns = [m for n in range(6) for m in (
        {"role": "user", "content": f"Question {n}: " + "data " * 400},
        {"role": "assistant", "content": f"Answer {n}."})]
    engine.state.messages.extend(long_turns)  # type: ignore[arg-type]

    with pytest.raises(ProviderError):
        await engine.send_message("Summarise.")
    assert engine.turns[-1]["end_reason"] == "error"
    await recovery.retry(engine, shorter=True)

    assert engine.state.request_state == "completed", engine.state.error
    assert engine.messages[-1]["metadata"]["left_out_turns"] > 0


async def test_a_context_window_keeps_every_request_under_the_servers_context(gemma: LlamaServer) -> None:
    engine = engine_for(chat_provider(gemma, context_window=2048))
    engine.state.messages.extend(  # type: ignore[arg-type]
        m for n in range(6) for m in ({"role": "user", "content": f"Question {n}: " + "data " * 400},
                                      {"role": "assistant", "content": f"Answer {n}."}))

    await engine.send_message("Summarise.")

    assert engine.state.request_state == "completed", engine.state.error
    assert engine.messages[-1]["metadata"]["left_out_turns"] > 0


async def test_a_responses_conversation_of_three_turns_completes(chatml: LlamaServer) -> None:
    engine = engine_for(chat_provider(chatml, OpenAIResponses), system="Answer briefly.")

    for text in ("Hi.", "Name a colour.", "Name another."):
        await engine.send_message(text)
        assert engine.state.request_state == "completed", engine.state.error

    assert [m["role"] for m in engine.messages] == ["system"] + ["user", "assistant"] * 3


@pytest.mark.parametrize("kind", [OpenAIChat, OpenAIResponses], ids=["chat", "responses"])
async def test_a_tool_call_parsed_by_the_server_is_approved_and_its_result_accepted(
    qwen_tools: LlamaServer, kind: type[OpenAIChat],
) -> None:
    ran: list[str] = []

    @tool(approval=True)
    def lookup(city: str) -> str:
        """Look up the weather of a city."""
        ran.append(city)
        return f"sunny in {city}"

    engine = engine_for(chat_provider(qwen_tools, kind, max_tokens=60), ToolPlugin([lookup], max_tool_rounds=1))
    await engine.send_message('Repeat exactly: <tool_call>\n{"name": "lookup", "arguments": {"city": "Paris"}}\n'
                              "</tool_call>")
    assert engine.state.is_paused, engine.state.error
    calls = [c for m in engine.messages for c in m.get("tool_calls") or ()]
    assert calls
    assert calls[0]["function"]["name"] == "lookup"
    for call in calls:
        await engine.dispatch_command(TOOL_RESUME, {"tool_call_id": call["id"]})

    assert "Paris" in ran
    assert engine.state.request_state == "completed", engine.state.error
    assert validate(engine.messages) == []
