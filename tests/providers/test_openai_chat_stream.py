"""OpenAIChat against a real openai.AsyncOpenAI and the loopback FakeOpenAIServer: what a good stream delivers."""

from __future__ import annotations

import json

from notebook_chat.engine.messages import Message
from notebook_chat.engine.stream_merge import StreamAccumulator
from notebook_chat.providers import OpenAIChat
from notebook_chat.testing import FakeOpenAIServer, collect

from .conftest import user

TOOLS = [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]
CALLS = [
    {"name": "lookup", "arguments": {"city": "Paris", "units": "metric"}, "id": "call_a"},
    {"name": "convert", "arguments": {"amount": 12.5, "to": "EUR"}, "id": "call_b"},
]


async def test_streams_text_as_content_deltas_in_order(server: FakeOpenAIServer, chat: OpenAIChat) -> None:
    server.enqueue_text("Hello there, notebook!", chunks=5)

    result = await collect(chat, {"messages": [user("hi")]})

    assert result.error is None
    assert [c["choices"][0]["delta"].get("content") for c in result.chunks[:5]] == [
        "Hello",
        " ther",
        "e, n",
        "oteb",
        "ook!",
    ]
    assert result.text == "Hello there, notebook!"
    assert result.finish_reasons == ["stop"]


async def test_parallel_tool_calls_arrive_as_indexed_fragments(server: FakeOpenAIServer, chat: OpenAIChat) -> None:
    server.enqueue_tool_calls(CALLS, fragments=3)

    result = await collect(chat, {"messages": [user("weather?")], "tools": TOOLS})

    fragments = result.tool_call_fragments()
    assert [f["index"] for f in fragments] == [0, 0, 0, 1, 1, 1]
    starts = [(f["index"], f["id"], f["function"]["name"]) for f in fragments if "id" in f]
    assert starts == [(0, "call_a", "lookup"), (1, "call_b", "convert")]
    arguments = {0: "", 1: ""}
    for fragment in fragments:
        arguments[fragment["index"]] += fragment["function"]["arguments"]
    assert json.loads(arguments[0]) == CALLS[0]["arguments"]
    assert json.loads(arguments[1]) == CALLS[1]["arguments"]
    assert result.finish_reasons == ["tool_calls"]


async def test_fragments_without_index_pass_through_and_still_merge(server: FakeOpenAIServer, chat: OpenAIChat) -> None:
    server.enqueue_tool_calls(CALLS, fragments=3, with_index=False)

    result = await collect(chat, {"messages": [user("weather?")], "tools": TOOLS})

    assert all("index" not in fragment for fragment in result.tool_call_fragments())
    message: Message = {"role": "assistant", "content": None}
    merger = StreamAccumulator(message)
    for chunk in result.chunks:
        merger.add_chunk(chunk)
    calls = merger.materialize()["tool_calls"]
    assert [(c["id"], c["function"]["name"]) for c in calls] == [("call_a", "lookup"), ("call_b", "convert")]
    assert [json.loads(c["function"]["arguments"]) for c in calls] == [c["arguments"] for c in CALLS]


async def test_reasoning_content_is_kept_in_the_delta(server: FakeOpenAIServer, chat: OpenAIChat) -> None:
    server.enqueue_reasoning("First, recall the capital.", "Paris.", chunks=3)

    result = await collect(chat, {"messages": [user("capital of France?")]})

    reasoning_chunks = [c for c in result.chunks if c["choices"] and "reasoning_content" in c["choices"][0]["delta"]]
    assert len(reasoning_chunks) == 3
    assert result.reasoning == "First, recall the capital."
    assert result.text == "Paris."


async def test_usage_arrives_with_the_stream(server: FakeOpenAIServer, chat: OpenAIChat) -> None:
    server.enqueue_text("ok", usage={"prompt_tokens": 7, "completion_tokens": 1, "total_tokens": 8})

    result = await collect(chat, {"messages": [user("hi")]})

    assert result.usage == {"prompt_tokens": 7, "completion_tokens": 1, "total_tokens": 8}


async def test_truncated_reply_finishes_with_length_not_an_error(server: FakeOpenAIServer, chat: OpenAIChat) -> None:
    server.enqueue_truncated("The answer is cut", chunks=3)

    result = await collect(chat, {"messages": [user("long essay")]})

    assert result.error is None
    assert result.text == "The answer is cut"
    assert result.finish_reasons == ["length"]
