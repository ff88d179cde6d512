"""Untrusted stored data never crashes, hangs or bricks a chat. Every input of the generated corpus
(tests/hostile/record_corpus.py) goes through both ways a record comes in — a FileStore read by `Chat(...)`, and
notebook metadata handed over by the browser's `ready` — and: no exception reaches the user's cell, no tool runs, the
stored bytes stay as they were, the chat is never left processing, and a new turn completes at once."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from notebook_chat import Chat, tool
from notebook_chat.engine.history import validate
from notebook_chat.engine.request import awaiting_call_ids
from notebook_chat.persistence import FileStore
from notebook_chat.testing import ScriptedProvider
from tests.widget.widget_doubles import RecordingComm

from .record_corpus import BASE, corpus, to_json_text

KEY = "stored"
CORPUS = corpus()


def chat_for(store: FileStore | None, runs: list[str]) -> Chat:
    @tool(approval=True)
    def drop_table(name: str) -> str:
        """Drop a table."""
        runs.append(f"drop_table {name}")
        return "dropped"

    @tool
    def lookup(city: str) -> str:
        """Look up the weather."""
        runs.append(f"lookup {city}")
        return "sunny"

    return Chat(ScriptedProvider().text("fresh"), tools=[drop_table, lookup], key=KEY, store=store, restore_timeout=0)


def persists(chat: Chat) -> list[dict[str, Any]]:
    comm = chat.widget.comm
    assert isinstance(comm, RecordingComm)
    return [m for m in comm.sent if m.get("kind") == "persist"]


def assert_refused_visibly_or_restored_whole(chat: Chat) -> None:
    """Every input is a changed copy of a valid paused record: either the change left it valid and the paused turn
    is restored (consistent), or something was refused or dropped and a notice says so; the live history is valid
    either way (nothing unanswered, no orphan result)."""
    if chat.state.is_paused:
        assert awaiting_call_ids(chat.messages) == ["call_drop"]
        assert validate(chat.messages, pending=["call_drop"]) == []
    else:
        assert chat.state.notice, "the record was not restored as stored, and nothing says so"
        assert awaiting_call_ids(chat.messages) == []
        assert validate(chat.messages) == []


async def assert_usable(chat: Chat, runs: list[str]) -> None:
    """Never processing; a new turn completes; nothing ran."""
    assert chat.state.request_state in ("idle", "completed", "aborted", "error", "paused")
    if chat.state.is_paused:
        await chat.stop()
    assert chat.state.can_start_turn
    await asyncio.wait_for(chat.send("new question"), 60)  # a hang guard: one took 10 s in a loaded full run
    assert chat.state.request_state == "completed"
    assert chat.reply == "fresh"
    assert runs == []


@pytest.mark.parametrize(("name", "record"), CORPUS, ids=[name for name, _ in CORPUS])
async def test_a_malformed_record_in_a_file_store_leaves_the_file_untouched_and_the_chat_usable(
        tmp_path: Path, recording_comms: list[RecordingComm], name: str, record: Any) -> None:
    path = tmp_path / "chats.json"
    path.write_text(to_json_text({"version": 1, "conversations": {KEY: record}}), encoding="utf-8")
    before = path.read_bytes()
    runs: list[str] = []

    chat = chat_for(FileStore(path), runs)

    assert path.read_bytes() == before
    assert_refused_visibly_or_restored_whole(chat)
    await assert_usable(chat, runs)


@pytest.mark.parametrize(("name", "record"), CORPUS, ids=[name for name, _ in CORPUS])
async def test_a_malformed_record_from_notebook_metadata_is_not_written_back_and_the_chat_stays_usable(
        recording_comms: list[RecordingComm], name: str, record: Any) -> None:
    runs: list[str] = []
    chat = chat_for(None, runs)

    chat.widget._handle_custom_msg({"kind": "ready", "notebook": True, "cell_id": KEY, "record": record}, [])
    for _ in range(10):
        await asyncio.sleep(0)

    assert persists(chat) == []
    assert_refused_visibly_or_restored_whole(chat)
    await assert_usable(chat, runs)


async def test_the_valid_record_the_corpus_is_made_from_restores_its_paused_turn_both_ways(
        tmp_path: Path, recording_comms: list[RecordingComm]) -> None:
    path = tmp_path / "chats.json"
    path.write_text(to_json_text({"version": 1, "conversations": {KEY: BASE}}), encoding="utf-8")
    from_file = chat_for(FileStore(path), [])
    from_notebook = chat_for(None, [])
    from_notebook.widget._handle_custom_msg({"kind": "ready", "notebook": True, "cell_id": KEY, "record": BASE}, [])
    for _ in range(10):
        await asyncio.sleep(0)

    for chat in (from_file, from_notebook):
        assert chat.state.is_paused
        assert [p["tool_call_id"] for p in chat.pending_approvals] == ["call_drop"]
        assert chat.state.notice is None


def test_the_corpus_holds_several_hundred_distinct_inputs() -> None:
    assert len({name for name, _ in CORPUS}) == len(CORPUS) >= 1000
