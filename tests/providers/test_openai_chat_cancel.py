"""Stopping a turn: the provider closes the HTTP stream and the server sees the client go away."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest

from notebook_chat.engine.provider import CancelHandle
from notebook_chat.providers import OpenAIChat
from notebook_chat.testing import FakeOpenAIServer, Stall, collect

from .conftest import user

BODY = {"messages": [user("write a long story")]}


def cancel_after(count: int) -> Callable[[int, CancelHandle], None]:
    def on_chunk(seen: int, cancel: CancelHandle) -> None:
        if seen == count:
            cancel.cancel()

    return on_chunk


async def test_cancel_mid_stream_ends_the_iterator_and_closes_the_connection(
    server: FakeOpenAIServer, chat: OpenAIChat
) -> None:
    server.enqueue_text("x" * 40, chunks=40, delay=0.02)

    result = await collect(chat, BODY, on_chunk=cancel_after(3))

    assert (len(result.chunks), result.error) == (3, None)
    assert server.wait_for_disconnect(timeout=2)
    assert server.requests[0].pieces_sent < 40


async def test_cancel_while_a_chunk_is_awaited_ends_promptly(server: FakeOpenAIServer, chat: OpenAIChat) -> None:
    server.enqueue_text("abcdefgh", chunks=4, fault=Stall(after=2, seconds=30))
    cancel = CancelHandle()
    asyncio.get_running_loop().call_later(0.3, cancel.cancel)
    started = time.monotonic()

    result = await collect(chat, BODY, cancel=cancel)

    assert time.monotonic() - started < 3
    assert (result.text, result.error) == ("abcd", None)
    assert server.wait_for_disconnect(timeout=2)


async def test_cancel_from_another_thread_is_honoured(server: FakeOpenAIServer, chat: OpenAIChat) -> None:
    server.enqueue_text("abcdefgh", chunks=4, fault=Stall(after=1, seconds=30))
    cancel = CancelHandle()
    loop = asyncio.get_running_loop()
    loop.call_later(0.3, lambda: loop.run_in_executor(None, cancel.cancel))

    result = await collect(chat, BODY, cancel=cancel)

    assert (result.text, result.error) == ("ab", None)
    assert server.wait_for_disconnect(timeout=2)


async def test_an_already_cancelled_handle_sends_no_request(server: FakeOpenAIServer, chat: OpenAIChat) -> None:
    server.enqueue_text("unused")
    cancel = CancelHandle()
    cancel.cancel()

    result = await collect(chat, BODY, cancel=cancel)

    assert (result.chunks, result.error, server.requests) == ([], None, [])


async def test_cancelling_the_consumer_task_closes_the_connection(server: FakeOpenAIServer, chat: OpenAIChat) -> None:
    server.enqueue_text("abcdefgh", chunks=4, fault=Stall(after=1, seconds=30))
    task = asyncio.ensure_future(collect(chat, BODY))
    await asyncio.sleep(0.3)

    task.cancel()

    with pytest.raises(asyncio.CancelledError):
        await task
    assert server.wait_for_disconnect(timeout=2)
