"""A real Chat's turn boundaries send what changed: the view messages of a turn in a 1,000-message conversation are
as small as in a 10-message one, the browser's copy built from them is the chat's view, and a browser that lost its
copy gets the whole view when it asks."""

from __future__ import annotations

import asyncio
import gzip
import json
from typing import Any

from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider

from .test_incremental_persist import browser_sends, sent
from .widget_doubles import RecordingComm, drawn

VIEW_KINDS = ("snapshot", "view_patch")
TEXT = "The quarterly figures look steady; revenue grew in every region except the north. " * 4


def record(count: int) -> dict[str, Any]:
    """A stored conversation of `count` messages: users and replies, ~300 characters each."""
    messages = [{"id": f"m{i}", "role": "user" if i % 2 == 0 else "assistant", "content": TEXT}
                for i in range(count)]
    turns = [{"id": f"t{i}", "started_at": "2026-01-01T00:00:00Z", "ended_at": "2026-01-01T00:00:01Z",
              "end_reason": "completed", "detail": None} for i in range(count // 2)]
    for i, message in enumerate(messages):
        if message["role"] == "assistant":
            message["state"] = {"turn_id": f"t{i // 2}"}
    return {"version": 1, "messages": messages, "turns": turns, "paused_turn": None,
            "updated_at": "2026-01-01T00:00:02Z"}


async def turn_in_a_chat_of(count: int) -> tuple[Chat, list[dict[str, Any]]]:
    """A chat restored from a notebook holding `count` messages, then one turn with a 2,000-character reply; the
    kernel→browser messages of the turn."""
    chat = Chat(ScriptedProvider().text("word " * 400, chunks=40), key="cell-1")
    await browser_sends(chat, {"kind": "ready", "notebook": True, "cell_id": "cell-1", "record": record(count)})
    before = len(sent(chat))
    await chat.send("one more question")
    chat.widget.flush()
    return chat, sent(chat)[before:]


def window(chat: Chat) -> dict[str, Any]:
    """The chat's view as the browsers hold it: its messages from the window's first on, with ``older``."""
    view = json.loads(json.dumps(chat.view_state()))
    held = chat.widget._stream.held
    return {**view, "messages": view["messages"][held:], "older": held} if held else view


def view_bytes(messages: list[dict[str, Any]]) -> int:
    return sum(len(json.dumps(m)) for m in messages if m["kind"] in (*VIEW_KINDS, "delta"))


async def test_a_turn_sends_as_many_view_bytes_in_a_long_conversation_as_in_a_short_one(
        recording_comms: list[RecordingComm]) -> None:
    _, short = await turn_in_a_chat_of(10)
    _, long = await turn_in_a_chat_of(1_000)

    assert {m["kind"] for m in long if m["kind"] in VIEW_KINDS} == {"view_patch"}
    assert view_bytes(long) <= 1.5 * view_bytes(short)  # a whole view of 1,000 messages is ~100x that


async def test_the_browsers_copy_after_a_turn_is_the_chats_view(recording_comms: list[RecordingComm]) -> None:
    chat, _ = await turn_in_a_chat_of(50)

    assert drawn(sent(chat)) == window(chat)


async def test_a_view_resync_is_answered_with_the_whole_view(recording_comms: list[RecordingComm]) -> None:
    chat, _ = await turn_in_a_chat_of(10)
    before = len(sent(chat))

    await browser_sends(chat, {"kind": "view_resync", "request_id": "r1"})

    answer = [m for m in sent(chat)[before:] if m["kind"] in VIEW_KINDS]
    assert [m["kind"] for m in answer] == ["snapshot"]
    assert answer[0]["view"] == json.loads(json.dumps(chat.view_state()))
    assert answer[0]["revision"] == chat.widget._stream.revision


async def test_a_view_older_action_is_answered_with_the_messages_before_the_window_as_a_patch(
        recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider(), key="cell-1")
    await browser_sends(chat, {"kind": "ready", "notebook": True, "cell_id": "cell-1", "record": record(1_000)})
    first = [m for m in sent(chat) if m["kind"] == "snapshot"][-1]["view"]
    before = len(sent(chat))

    await browser_sends(chat, {"kind": "view_older", "before": first["messages"][0]["id"], "request_id": "r1"})

    answer = sent(chat)[before:]
    assert [m["kind"] for m in answer] == ["view_patch", "action_result"]
    assert drawn(sent(chat))["older"] < first["older"]
    assert drawn(sent(chat)) == window(chat)


async def test_a_record_sent_gzip_compressed_in_a_buffer_is_restored_as_the_same_record_sent_as_json(
        recording_comms: list[RecordingComm]) -> None:
    packed = gzip.compress(json.dumps(record(1_000)).encode())
    plain, compressed = Chat(ScriptedProvider(), key="cell-1"), Chat(ScriptedProvider(), key="cell-1")
    await browser_sends(plain, {"kind": "ready", "notebook": True, "cell_id": "cell-1", "record": record(1_000)})

    compressed.widget._handle_custom_msg({"kind": "ready", "notebook": True, "cell_id": "cell-1", "record": None,
                                          "record_gzip": True}, [memoryview(packed)])
    for _ in range(10):
        await asyncio.sleep(0)

    assert len(compressed.messages) == 1_000
    assert compressed.messages == plain.messages
    assert window(compressed) == window(plain)


async def test_a_packed_record_that_cannot_be_read_is_refused_with_a_notice_and_nothing_is_written(
        recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider(), key="cell-1")

    chat.widget._handle_custom_msg({"kind": "ready", "notebook": True, "cell_id": "cell-1", "record": None,
                                    "record_gzip": True}, [memoryview(b"not gzip")])
    for _ in range(10):
        await asyncio.sleep(0)

    assert chat.messages == []
    assert chat.view_state()["notice"]
    assert not [m for m in sent(chat) if m["kind"] == "persist"]
