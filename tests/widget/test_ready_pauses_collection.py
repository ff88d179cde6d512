"""Taking in a long stored conversation (a `ready`) runs no automatic garbage collection: the collector would walk the
kernel's whole heap again and again while the record's objects pile up, and find nothing to free. It runs as it did
before once the view is sent."""

from __future__ import annotations

import asyncio
import gc
import gzip
import json
from typing import Any

import pytest

from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider

from .test_view_patches_in_a_chat import record
from .widget_doubles import RecordingComm


def packed(count: int) -> bytes:
    return gzip.compress(json.dumps(record(count)).encode())


def ready(chat: Chat, packed: bytes) -> None:
    """The browser's `ready` with the stored record gzip-compressed in a buffer, as a long one comes."""
    chat.widget._handle_custom_msg({"kind": "ready", "notebook": True, "cell_id": "cell-1", "record": None,
                                    "record_gzip": True}, [memoryview(packed)])


async def until_the_view_is_sent(chat: Chat, seen: list[int]) -> list[int]:
    """Run the loop until the snapshot answering `ready` went out; the collections that ran until then."""
    sent: list[int] = []
    post = chat.widget._stream._post

    def posting(message: dict[str, Any]) -> Any:
        if message.get("kind") == "snapshot" and not sent:
            sent.append(len(seen))
        return post(message)

    chat.widget._stream._post = posting  # type: ignore[method-assign]
    for _ in range(100):
        if sent:
            break
        await asyncio.sleep(0)
    assert sent, "no snapshot answered the ready"
    return seen[:sent[0]]


async def test_a_long_record_is_taken_in_and_its_view_sent_without_a_collection(
        recording_comms: list[RecordingComm], collections: list[int]) -> None:
    chat, stored = Chat(ScriptedProvider(), key="cell-1"), packed(3_000)
    collections.clear()

    ready(chat, stored)
    during = await until_the_view_is_sent(chat, collections)

    assert len(chat.messages) == 3_000
    assert during == []
    assert gc.isenabled()


async def test_the_collector_runs_again_after_the_view_is_sent(
        recording_comms: list[RecordingComm], collections: list[int]) -> None:
    chat = Chat(ScriptedProvider(), key="cell-1")
    ready(chat, packed(3_000))
    await until_the_view_is_sent(chat, collections)
    collections.clear()

    garbage = [[i] for i in range(10_000)]  # containers enough to start a collection
    del garbage

    assert gc.isenabled()
    assert collections


async def test_a_ready_that_fails_leaves_the_collector_enabled(
        recording_comms: list[RecordingComm], monkeypatch: pytest.MonkeyPatch) -> None:
    chat = Chat(ScriptedProvider(), key="cell-1")

    def broken(record: Any, info: Any) -> None:
        raise RuntimeError("the controller broke")

    monkeypatch.setattr(chat, "_restore", broken)
    ready(chat, packed(100))
    for _ in range(20):
        await asyncio.sleep(0)

    assert gc.isenabled()
    assert chat.widget._tasks == set()


async def test_a_collector_the_user_turned_off_stays_off(recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider(), key="cell-1")
    gc.disable()
    try:
        ready(chat, packed(100))
        for _ in range(20):
            await asyncio.sleep(0)
        assert len(chat.messages) == 100
        assert not gc.isenabled()
    finally:
        gc.enable()
