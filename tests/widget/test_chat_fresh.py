"""``Chat(fresh=True)``: every run of the cell starts over (issue 13 item 11: re-running an example after Restart
Kernel gives the same transcript every time) — nothing stored under the key is restored, the first write replaces it
whole (the conversation list does not grow), displaying it writes nothing, and what can't be read is still never
written over."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from notebook_chat import Chat
from notebook_chat.persistence import FileStore
from notebook_chat.persistence.patches import apply_write
from notebook_chat.testing import ScriptedProvider

from .widget_doubles import RecordingComm


def persists(chat: Chat) -> list[dict[str, Any]]:
    comm = chat.widget.comm
    assert isinstance(comm, RecordingComm)
    return [message for message in comm.sent if message["kind"] == "persist"]


async def run_all(stored: Any, *, fresh: bool = True) -> tuple[list[Any], Any]:
    """One Run All after Restart Kernel: a new Chat shown with what the notebook stores, two messages sent.
    The transcript, and what the notebook stores afterwards."""
    chat = Chat(ScriptedProvider().text("Hello.").text("Bye."), key="k", fresh=fresh)
    await chat.restore(json.loads(json.dumps(stored)) if stored is not None else None,
                       {"notebook": True, "cell_id": "k"})
    await chat.send("hi")
    chat.new_conversation(title="Scratch")
    await chat.send("bye")
    await chat.switch("main")
    entry = stored
    for write in persists(chat):
        entry = apply_write(entry, write)
    transcript = [[m["role"], m.get("content")] for m in chat.messages]
    return [transcript, [c["title"] for c in chat.conversations]], entry


async def test_running_a_fresh_chat_twice_against_the_same_notebook_gives_the_same_transcript_and_list(
        recording_comms: list[RecordingComm]) -> None:
    first, stored = await run_all(None)
    second, stored_again = await run_all(stored)
    third, _ = await run_all(stored_again)
    assert first == second == third
    assert first[0] == [["user", "hi"], ["assistant", "Hello."]]
    assert len(stored_again["items"]) == 2, "the list does not grow with every Run All"


async def test_without_fresh_a_second_run_restores_and_appends(recording_comms: list[RecordingComm]) -> None:
    first, stored = await run_all(None, fresh=False)
    second, _ = await run_all(stored, fresh=False)
    assert len(second[0]) == 2 * len(first[0])


async def test_displaying_a_fresh_chat_writes_nothing_until_it_changes(recording_comms: list[RecordingComm]) -> None:
    _, stored = await run_all(None)
    chat = Chat(ScriptedProvider(), key="k", fresh=True)
    await chat.restore(stored, {"notebook": True, "cell_id": "k"})
    assert persists(chat) == []
    assert chat.messages == []


async def test_a_fresh_chat_never_writes_over_a_stored_chat_it_cant_read(
        recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider().text("Hello."), key="k", fresh=True)
    await chat.restore({"active": "main", "items": {"main": {"version": 1, "messages": "not a list"}}},
                       {"notebook": True, "cell_id": "k"})
    assert "can't be used" in (chat.view_state()["notice"] or "")
    await chat.send("hi")
    assert persists(chat) == []


async def test_a_fresh_chat_with_a_file_store_starts_over_and_replaces_what_the_file_held(
        tmp_path: Path, recording_comms: list[RecordingComm]) -> None:
    store = FileStore(tmp_path / "chats.json")
    old = Chat(ScriptedProvider().text("Old.").text("Other."), key="k", store=store)
    await old.send("old question")
    old.new_conversation(title="Other")
    await old.send("other question")
    chat = Chat(ScriptedProvider().text("New."), key="k", store=FileStore(tmp_path / "chats.json"), fresh=True)
    assert chat.messages == []
    await chat.send("new question")
    entry = FileStore(tmp_path / "chats.json").load_entry("k")
    assert entry is not None
    assert list(entry["items"]) == ["main"]
    assert [m["content"] for m in entry["items"]["main"]["messages"]] == ["new question", "New."]
