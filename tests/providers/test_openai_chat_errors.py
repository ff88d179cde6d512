"""Every fault the server can produce reaches the engine as a ProviderError a person can act on."""

from __future__ import annotations

import pytest

from notebook_chat.providers import OpenAIChat
from notebook_chat.testing import ConnectionReset, FakeOpenAIServer, Stall, StreamEnds, StreamError, collect

from .conftest import MODEL, user

BODY = {"messages": [user("hi")]}


@pytest.mark.parametrize(
    ("status", "kind", "advice"),
    [
        (401, "auth", "Check OPENAI_API_KEY"),
        (403, "permission", "permissions"),
        (404, "not-found", f"Model '{MODEL}' not found"),
        (429, "rate-limit", "Rate limited or out of quota"),
        (400, "bad-request", "rejected"),
        (500, "server", "Server error (500)"),
        (503, "server", "Server error (503)"),
    ],
)
async def test_http_error_becomes_a_provider_error_with_advice_and_the_servers_text(
    server: FakeOpenAIServer, chat: OpenAIChat, status: int, kind: str, advice: str
) -> None:
    server.enqueue_http_error(status, f"upstream says {status}")

    result = await collect(chat, BODY)

    assert result.chunks == []
    assert result.error is not None
    assert (result.error.kind, result.error.status) == (kind, status)
    assert advice in result.error.message
    assert f"upstream says {status}" in result.error.message


async def test_connection_reset_mid_stream_is_a_network_error_after_the_partial_chunks(
    server: FakeOpenAIServer, chat: OpenAIChat
) -> None:
    server.enqueue_text("abcdefgh", chunks=4, fault=ConnectionReset(after=2))

    result = await collect(chat, BODY)

    assert result.text == "abcd"
    assert result.error is not None
    assert result.error.kind == "network"
    assert "Network error" in result.error.message
    assert "Connection reset by peer" in result.error.message


async def test_sse_error_frame_is_a_stream_error_with_the_servers_text(
    server: FakeOpenAIServer, chat: OpenAIChat
) -> None:
    server.enqueue_text("abcdefgh", chunks=4, fault=StreamError("The model is overloaded", after=1))

    result = await collect(chat, BODY)

    assert result.text == "ab"
    assert result.error is not None
    assert result.error.kind == "stream-error"
    assert "The model is overloaded" in result.error.message


async def test_stall_longer_than_the_timeout_is_a_timeout_and_the_connection_closes(
    server: FakeOpenAIServer,
) -> None:
    provider = OpenAIChat(MODEL, client=server.async_client(timeout=0.3))
    server.enqueue_text("abcdefgh", chunks=4, fault=Stall(after=1, seconds=10))

    result = await collect(provider, BODY)

    assert result.text == "ab"
    assert result.error is not None
    assert result.error.kind == "timeout"
    assert "timed out" in result.error.message
    assert server.wait_for_disconnect(timeout=2)


async def test_short_stall_within_the_timeout_is_harmless(server: FakeOpenAIServer, chat: OpenAIChat) -> None:
    server.enqueue_text("abcdefgh", chunks=4, fault=Stall(after=2, seconds=0.2))

    result = await collect(chat, BODY)

    assert (result.text, result.error, result.finish_reasons) == ("abcdefgh", None, ["stop"])


async def test_stream_that_ends_without_finish_reason_is_incomplete(server: FakeOpenAIServer, chat: OpenAIChat) -> None:
    server.enqueue_text("abcdefgh", chunks=4, fault=StreamEnds(after=3))

    result = await collect(chat, BODY)

    assert result.text == "abcdef"
    assert result.error is not None
    assert result.error.kind == "incomplete"
    assert "the stream ended before the reply was complete" in result.error.message.lower()


async def test_an_empty_reply_queue_is_a_server_error_that_says_so(server: FakeOpenAIServer, chat: OpenAIChat) -> None:
    result = await collect(chat, BODY)

    assert result.error is not None
    assert result.error.kind == "server"
    assert "FakeOpenAIServer: no reply queued" in result.error.message


async def test_unreachable_server_is_a_network_error_naming_the_host() -> None:
    with FakeOpenAIServer() as gone:
        client = gone.async_client()
    provider = OpenAIChat(MODEL, client=client)

    result = await collect(provider, BODY)

    assert result.error is not None
    assert result.error.kind == "network"
    assert provider.server in result.error.message
