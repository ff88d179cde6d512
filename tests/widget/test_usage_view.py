"""Token usage (issue 12, item 5): asked for in the stream, kept on each reply and on its turn, shown per reply and
as the conversation's total; a server that reports none shows nothing, never zeros."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from notebook_chat import Chat
from notebook_chat.engine.usage import total_usage, usage_of
from notebook_chat.persistence.record import check_record
from notebook_chat.plugins import tool
from notebook_chat.providers import OpenAIChat, OpenAIResponses
from notebook_chat.testing import FakeOpenAIServer

from .widget_doubles import RecordingComm

APIS = [OpenAIChat, OpenAIResponses]


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def make_chat(server: FakeOpenAIServer, api: type[OpenAIChat] = OpenAIChat, **options: Any) -> Chat:
    return Chat(api("m", base_url=server.base_url, max_retries=0), **options)


def replies(chat: Chat) -> list[dict[str, Any]]:
    return [m for m in chat.view_state()["messages"] if m["role"] == "assistant"]


@pytest.mark.parametrize("api", APIS, ids=["chat", "responses"])
async def test_each_reply_carries_the_usage_the_server_reported_in_its_view(
        server: FakeOpenAIServer, api: type[OpenAIChat], recording_comms: list[RecordingComm]) -> None:
    chat = make_chat(server, api)
    server.enqueue_text("one", usage={"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12})
    server.enqueue_text("two", usage={"prompt_tokens": 20, "completion_tokens": 3, "total_tokens": 23})
    await chat.send("a")
    await chat.send("b")

    assert [r["usage"] for r in replies(chat)] == [
        {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
        {"prompt_tokens": 20, "completion_tokens": 3, "total_tokens": 23}]
    assert chat.view_state()["usage_total"] == {"prompt_tokens": 30, "completion_tokens": 5, "total_tokens": 35}


@pytest.mark.parametrize("api", APIS, ids=["chat", "responses"])
async def test_a_server_that_reports_no_usage_shows_nothing_not_zeros(
        server: FakeOpenAIServer, api: type[OpenAIChat], recording_comms: list[RecordingComm]) -> None:
    chat = make_chat(server, api)
    server.enqueue_text("no counts", usage={})
    await chat.send("a")

    assert "usage" not in replies(chat)[0]
    assert chat.view_state()["usage_total"] is None
    assert "usage" not in chat.engine.turns[-1]


async def test_the_chat_request_asks_for_usage_in_the_stream(
        server: FakeOpenAIServer, recording_comms: list[RecordingComm]) -> None:
    chat = make_chat(server)
    server.enqueue_text("ok")
    await chat.send("a")

    assert server.requests[-1].body["stream_options"] == {"include_usage": True}


async def test_a_turn_keeps_the_sum_of_its_replies_usage_across_a_tool_round_and_it_is_saved(
        server: FakeOpenAIServer, recording_comms: list[RecordingComm]) -> None:
    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    chat = make_chat(server, tools=[add])
    server.enqueue_tool_calls([{"name": "add", "arguments": {"a": 2, "b": 3}, "id": "call_1"}],
                              usage={"prompt_tokens": 30, "completion_tokens": 8, "total_tokens": 38})
    server.enqueue_text("5", usage={"prompt_tokens": 45, "completion_tokens": 1, "total_tokens": 46})
    await chat.send("2 + 3?")

    assert chat.engine.turns[-1]["usage"] == {"prompt_tokens": 75, "completion_tokens": 9, "total_tokens": 84}
    restored = check_record(json.loads(json.dumps(chat.engine.export_record())))
    assert restored["turns"][-1]["usage"] == chat.engine.turns[-1]["usage"]


BAD_COUNTS: list[Any] = [None, True, False, -1, 1.5, "12", [], {}, float("nan")]


@pytest.mark.parametrize("bad", BAD_COUNTS, ids=repr)
def test_a_count_that_is_not_a_whole_number_is_left_out_never_shown_as_zero(bad: Any) -> None:
    message = {"role": "assistant", "metadata": {"usage": {"prompt_tokens": bad, "completion_tokens": 4}}}
    assert usage_of(message) == {"completion_tokens": 4}
    assert usage_of({"role": "assistant", "metadata": {"usage": {"prompt_tokens": bad}}}) is None


@pytest.mark.parametrize("bad", [None, "usage", 3, ["prompt_tokens"]], ids=repr)
def test_usage_that_is_not_an_object_counts_as_none_reported(bad: Any) -> None:
    assert total_usage([{"role": "assistant", "metadata": {"usage": bad}}]) is None
