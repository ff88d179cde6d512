"""OpenAIResponses: our Chat-shaped history goes out as Responses input; the events come back as Chat chunks."""

from __future__ import annotations

import json
from typing import Any

from notebook_chat.engine.messages import Message
from notebook_chat.engine.provider import CancelHandle
from notebook_chat.engine.stream_merge import StreamAccumulator
from notebook_chat.providers import OpenAIResponses
from notebook_chat.testing import FakeOpenAIServer, StreamEnds, StreamError, collect

from .conftest import MODEL, user

BODY = {"messages": [user("hi")]}
CALLS = [
    {"name": "lookup", "arguments": {"city": "Paris"}, "id": "call_a"},
    {"name": "convert", "arguments": {"amount": 12.5, "to": "EUR"}, "id": "call_b"},
]


def merged(chunks: list[dict[str, Any]]) -> Message:
    message: Message = {"role": "assistant", "content": None}
    merger = StreamAccumulator(message)
    for chunk in chunks:
        merger.add_chunk(chunk)
    return merger.materialize()


async def test_text_deltas_become_content_and_completed_becomes_stop(
    server: FakeOpenAIServer, responses: OpenAIResponses
) -> None:
    server.enqueue_text("Hello from Responses", chunks=4)

    result = await collect(responses, BODY)

    assert result.error is None
    assert result.text == "Hello from Responses"
    assert len([c for c in result.chunks if c["choices"][0]["delta"].get("content")]) == 4
    assert result.finish_reasons == ["stop"]
    assert result.usage == {"prompt_tokens": 12, "completion_tokens": 4, "total_tokens": 16}


async def test_function_call_items_become_tool_calls_with_call_id_and_arguments(
    server: FakeOpenAIServer, responses: OpenAIResponses
) -> None:
    server.enqueue_tool_calls(CALLS[:1], fragments=3)

    result = await collect(responses, BODY)

    first = result.tool_call_fragments()[0]
    assert (first["index"], first["id"], first["function"]["name"]) == (0, "call_a", "lookup")
    assert merged(result.chunks)["tool_calls"] == [
        {"id": "call_a", "type": "function", "function": {"name": "lookup", "arguments": '{"city": "Paris"}'}}
    ]
    assert result.finish_reasons == ["tool_calls"]


async def test_interleaved_argument_deltas_are_routed_by_item_id(
    server: FakeOpenAIServer, responses: OpenAIResponses
) -> None:
    server.enqueue_tool_calls(CALLS, fragments=3, interleave=True)

    result = await collect(responses, BODY)

    calls = merged(result.chunks)["tool_calls"]
    assert [call["id"] for call in calls] == ["call_a", "call_b"]
    assert [json.loads(call["function"]["arguments"]) for call in calls] == [c["arguments"] for c in CALLS]


async def test_reasoning_summary_deltas_become_reasoning_content(
    server: FakeOpenAIServer, responses: OpenAIResponses
) -> None:
    server.enqueue_reasoning("Think about it.", "Done.", chunks=2)

    result = await collect(responses, BODY)

    assert (result.reasoning, result.text) == ("Think about it.", "Done.")


async def test_incomplete_for_max_output_tokens_finishes_with_length(
    server: FakeOpenAIServer, responses: OpenAIResponses
) -> None:
    server.enqueue_truncated("cut sho", chunks=2)

    result = await collect(responses, BODY)

    assert (result.text, result.error, result.finish_reasons) == ("cut sho", None, ["length"])


async def test_failed_response_is_a_provider_error_after_the_partial_text(
    server: FakeOpenAIServer, responses: OpenAIResponses
) -> None:
    server.enqueue_text("abcdef", chunks=3, fault=StreamError("The model crashed", after=2))

    result = await collect(responses, BODY)

    assert result.text == "abcd"
    assert result.error is not None
    assert result.error.kind == "stream-error"
    assert "The model crashed" in result.error.message


async def test_error_event_is_a_provider_error_with_its_message(
    server: FakeOpenAIServer, responses: OpenAIResponses
) -> None:
    server.enqueue_text("abc", fault=StreamError("Quota gone", code="rate_limit_exceeded", responses_event="error"))

    result = await collect(responses, BODY)

    assert result.error is not None
    assert result.error.kind == "rate-limit"
    assert "Quota gone" in result.error.message


async def test_stream_without_a_final_event_is_incomplete(server: FakeOpenAIServer, responses: OpenAIResponses) -> None:
    server.enqueue_text("abcdef", chunks=3, fault=StreamEnds())

    result = await collect(responses, BODY)

    assert result.text == "abcdef"
    assert result.error is not None
    assert result.error.kind == "incomplete"


async def test_http_errors_map_like_chat_completions(server: FakeOpenAIServer, responses: OpenAIResponses) -> None:
    server.enqueue_http_error(401, "Incorrect API key provided")

    result = await collect(responses, BODY)

    assert result.error is not None
    assert (result.error.kind, result.error.status) == ("auth", 401)
    assert "Incorrect API key provided" in result.error.message
    assert responses.label.startswith(f"OpenAI Responses {MODEL} @ http://127.0.0.1:")


async def test_cancel_closes_the_responses_stream(server: FakeOpenAIServer, responses: OpenAIResponses) -> None:
    server.enqueue_text("x" * 30, chunks=30, delay=0.02)

    def stop_after_two(seen: int, cancel: CancelHandle) -> None:
        if seen == 2:
            cancel.cancel()

    result = await collect(responses, BODY, on_chunk=stop_after_two)

    assert (len(result.chunks), result.error) == (2, None)
    assert server.wait_for_disconnect(timeout=2)
