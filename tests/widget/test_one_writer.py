"""The kernel's side of "one writer per chat" (docs/widget-protocol.md): a view that only renders (`ready` with
`writer: false`) gets the view and changes nothing else, and a view without a notebook (a console) beside the notebook
that keeps the chat changes nothing either."""

from __future__ import annotations

import asyncio
from typing import Any

from notebook_chat import Chat
from notebook_chat.persistence.notebook_store import NotebookMetadataStore
from notebook_chat.testing import ScriptedProvider

from .widget_doubles import RecordingComm


async def browser_sends(chat: Chat, content: dict[str, Any]) -> None:
    chat.widget._handle_custom_msg(content, [])
    for _ in range(10):
        await asyncio.sleep(0)
    chat.widget.flush()


def sent(chat: Chat) -> list[dict[str, Any]]:
    comm = chat.widget.comm
    assert isinstance(comm, RecordingComm)
    return comm.sent


async def a_chat_written_by_its_notebook() -> Chat:
    chat = Chat(ScriptedProvider().text("Stored reply.").text("Second reply."), key="k")
    chat._repr_mimebundle_()
    await browser_sends(chat, {"kind": "ready", "notebook": True, "cell_id": "cell-1", "record": None,
                               "writer": True})
    await chat.send("Hello")
    return chat


async def test_a_view_that_only_renders_gets_the_whole_view_and_no_write_is_resent(
        recording_comms: list[RecordingComm]) -> None:
    chat = await a_chat_written_by_its_notebook()
    revision, counts = chat.store and chat.store.revision("k"), dict(chat.widget.persist_counts)
    before = len(sent(chat))
    await browser_sends(chat, {"kind": "ready", "notebook": True, "cell_id": None, "record": None, "writer": False})
    after = sent(chat)[before:]
    assert [m["kind"] for m in after] == ["snapshot"]
    assert [m["content"] for m in after[0]["view"]["messages"]] == ["Hello", "Stored reply."]
    assert isinstance(chat.store, NotebookMetadataStore)
    assert chat.store.revision("k") == revision
    assert dict(chat.widget.persist_counts) == counts
    assert chat.widget.cell_id == "cell-1"  # what the writing view said stays


async def test_a_view_that_only_renders_with_another_record_changes_nothing(
        recording_comms: list[RecordingComm]) -> None:
    chat = await a_chat_written_by_its_notebook()
    revision = chat.store and chat.store.revision("k")
    other = {"active": "x", "items": {"x": {"version": 1, "messages": []}}, "revision": "elsewhere"}
    await browser_sends(chat, {"kind": "ready", "notebook": True, "cell_id": "c9", "record": other, "writer": False})
    await chat.send("Again")
    assert chat.store is not None
    assert chat.store.revision("k") != revision
    assert [m["base"] is None for m in sent(chat) if m["kind"] == "persist"].count(True) == 1  # only the first write


async def test_a_console_view_beside_the_notebook_that_keeps_the_chat_shows_no_notice_and_keeps_the_store(
        recording_comms: list[RecordingComm]) -> None:
    chat = await a_chat_written_by_its_notebook()
    store = chat.store
    await browser_sends(chat, {"kind": "ready", "notebook": False, "cell_id": None, "record": None})
    assert chat.store is store
    assert chat.engine.state.notice is None


async def test_a_chat_shown_only_where_no_notebook_is_keeps_its_conversation_in_memory_and_says_so(
        recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider().text("Reply."), key="k")
    chat._repr_mimebundle_()
    await browser_sends(chat, {"kind": "ready", "notebook": False, "cell_id": None, "record": None})
    assert type(chat.store).__name__ == "MemoryStore"
    assert chat.engine.state.notice is not None


def test_the_widget_names_the_cell_that_created_the_chat_and_its_own_id_for_its_views() -> None:
    first, second = Chat(ScriptedProvider(), key="k"), Chat(ScriptedProvider(), key="k")
    assert first.widget.home == ""  # made outside any cell: any notebook that shows it owns it
    assert len(first.widget.instance) == 16
    assert first.widget.instance != second.widget.instance
