"""FakeOpenAIServer on its own: plain HTTP from a synchronous test, replies served in order, clear failures."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from notebook_chat.testing import FakeOpenAIServer, Reply, Text


def post(server: FakeOpenAIServer, path: str, body: dict[str, Any]) -> tuple[int, str]:
    request = urllib.request.Request(
        server.base_url + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def sse_data(text: str) -> list[str]:
    return [line[len("data: ") :] for line in text.splitlines() if line.startswith("data: ")]


def test_an_empty_queue_answers_500_saying_no_reply_is_queued() -> None:
    with FakeOpenAIServer() as server:
        status, text = post(server, "/chat/completions", {"model": "m", "messages": []})

    assert status == 500
    assert json.loads(text)["error"]["message"] == "FakeOpenAIServer: no reply queued"


def test_replies_are_served_in_order_and_requests_recorded() -> None:
    with FakeOpenAIServer() as server:
        server.enqueue_text("first")
        server.enqueue(Reply((Text("second"),)))
        answers = [post(server, "/chat/completions", {"model": "m", "n": n}) for n in (1, 2)]

    contents = [json.loads(text)["choices"][0]["message"]["content"] for _, text in answers]
    assert contents == ["first", "second"]
    assert [(r.path, r.body["n"]) for r in server.requests] == [
        ("/v1/chat/completions", 1),
        ("/v1/chat/completions", 2),
    ]
    assert server.pending == 0


def test_non_streaming_chat_completion_carries_tool_calls_and_reasoning() -> None:
    with FakeOpenAIServer() as server:
        server.enqueue_tool_calls([{"name": "add", "arguments": {"a": 1}, "id": "call_x"}], fragments=3)
        server.enqueue_reasoning("hmm", "sum is 2")
        _, calls_text = post(server, "/chat/completions", {"model": "m"})
        _, reasoning_text = post(server, "/chat/completions", {"model": "m"})

    calls = json.loads(calls_text)["choices"][0]
    assert calls["finish_reason"] == "tool_calls"
    assert calls["message"]["tool_calls"] == [
        {"id": "call_x", "type": "function", "function": {"name": "add", "arguments": '{"a": 1}'}}
    ]
    message = json.loads(reasoning_text)["choices"][0]["message"]
    assert (message["reasoning_content"], message["content"]) == ("hmm", "sum is 2")


def test_chat_stream_ends_with_finish_usage_and_done_only_when_usage_was_asked() -> None:
    with FakeOpenAIServer() as server:
        server.enqueue_text("hi", chunks=2)
        server.enqueue_text("hi", chunks=2)
        _, with_usage = post(server, "/chat/completions", {"stream": True, "stream_options": {"include_usage": True}})
        _, without_usage = post(server, "/chat/completions", {"stream": True})

    frames = sse_data(with_usage)
    assert frames[-1] == "[DONE]"
    assert json.loads(frames[-3])["choices"][0]["finish_reason"] == "stop"
    assert json.loads(frames[-2])["usage"]["total_tokens"] == 14
    assert all("usage" not in json.loads(frame) for frame in sse_data(without_usage)[:-1])


def test_responses_stream_names_each_event_and_ends_with_completed() -> None:
    with FakeOpenAIServer() as server:
        server.enqueue_text("hi", chunks=2)
        _, text = post(server, "/responses", {"model": "m", "stream": True})

    events = [line[len("event: ") :] for line in text.splitlines() if line.startswith("event: ")]
    assert events[:2] == ["response.created", "response.in_progress"]
    assert events.count("response.output_text.delta") == 2
    assert events[-1] == "response.completed"
    numbers = [json.loads(frame)["sequence_number"] for frame in sse_data(text)]
    assert numbers == sorted(numbers)


def test_non_streaming_responses_returns_the_output_items() -> None:
    with FakeOpenAIServer() as server:
        server.enqueue_tool_calls([{"name": "add", "arguments": {"a": 1}, "id": "call_x"}])
        _, text = post(server, "/responses", {"model": "m"})

    response = json.loads(text)
    assert response["status"] == "completed"
    assert [(item["type"], item["call_id"]) for item in response["output"]] == [("function_call", "call_x")]


def test_an_unknown_path_is_a_404_naming_the_path() -> None:
    with FakeOpenAIServer() as server:
        status, text = post(server, "/embeddings", {})

    assert status == 404
    assert "/v1/embeddings" in json.loads(text)["error"]["message"]


def test_base_url_is_only_available_while_running() -> None:
    server = FakeOpenAIServer()

    with pytest.raises(RuntimeError, match="not running"):
        _ = server.base_url
    async_ready = server.start()
    try:
        assert async_ready.base_url.startswith("http://127.0.0.1:")
        assert async_ready.base_url.endswith("/v1")
    finally:
        server.stop()


async def test_async_with_works_inside_a_running_loop() -> None:
    async with FakeOpenAIServer() as server:
        server.enqueue_text("from async")
        client = server.async_client()
        completion = await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])

    assert completion.choices[0].message.content == "from async"
