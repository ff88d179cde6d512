"""A metadata write the browser could not make (`persisted` with ok false) is shown in the widget — what failed and
what to do —, autosave then writes only at turn boundaries instead of retrying silently while text streams, and the
next write that succeeds clears the notice."""

from __future__ import annotations

import asyncio
from typing import Any

from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider

from .widget_doubles import RecordingComm


async def browser_sends(chat: Chat, content: dict[str, Any]) -> None:
    chat.widget._handle_custom_msg(content, [])
    for _ in range(10):
        await asyncio.sleep(0)


def persists(chat: Chat) -> list[dict[str, Any]]:
    comm = chat.widget.comm
    assert isinstance(comm, RecordingComm)
    return [m for m in comm.sent if m.get("kind") == "persist"]


async def notebook_chat(provider: ScriptedProvider) -> Chat:
    chat = Chat(provider, key="k")
    await browser_sends(chat, {"kind": "ready", "notebook": True, "cell_id": "k", "record": None})
    return chat


async def test_a_failed_notebook_write_shows_what_failed_and_what_to_do(
        recording_comms: list[RecordingComm]) -> None:
    chat = await notebook_chat(ScriptedProvider().text("hello"))
    await chat.send("hi")

    await browser_sends(chat, {"kind": "persisted", "key": "k", "ok": False, "error": "the notebook is read-only"})

    notice = str(chat.view_state()["notice"])
    assert "could not be stored in the notebook (the notebook is read-only)" in notice
    assert "lives only in this kernel" in notice


async def writes_during_a_streamed_turn(failed_before: bool) -> int:
    chat = await notebook_chat(ScriptedProvider().text("word " * 20, chunks=20, delay=0.01))
    assert chat._autosave is not None
    chat._autosave.min_interval = 0.005
    if failed_before:
        await browser_sends(chat, {"kind": "persisted", "key": "k", "ok": False, "error": "quota"})
    before = len(persists(chat))
    await chat.send("stream")
    return len(persists(chat)) - before


async def test_after_a_failed_write_autosave_writes_only_at_turn_boundaries(
        recording_comms: list[RecordingComm]) -> None:
    streaming = await writes_during_a_streamed_turn(failed_before=False)
    boundaries = await writes_during_a_streamed_turn(failed_before=True)

    assert boundaries <= 4  # turn start, the reply's message, the turn's end
    assert streaming > boundaries


async def test_the_next_successful_write_clears_the_notice(recording_comms: list[RecordingComm]) -> None:
    chat = await notebook_chat(ScriptedProvider().text("hello").text("again"))
    await chat.send("hi")
    await browser_sends(chat, {"kind": "persisted", "key": "k", "ok": False, "error": "quota"})
    before = len(persists(chat))

    await chat.send("retry")  # the next change writes again

    assert len(persists(chat)) > before
    await browser_sends(chat, {"kind": "persisted", "key": "k", "ok": True, "error": None})
    assert chat.view_state()["notice"] is None
    assert chat._autosave is not None
    assert not chat._autosave.boundaries_only


async def test_an_acknowledgement_for_another_key_changes_nothing(recording_comms: list[RecordingComm]) -> None:
    chat = await notebook_chat(ScriptedProvider())
    await browser_sends(chat, {"kind": "persisted", "key": "other", "ok": False, "error": "quota"})
    assert chat.view_state()["notice"] is None
