"""A paused turn is restored only when it is fully consistent. Every generated forgery
(tests/hostile/forged_paused_turns.py) comes in both ways (a FileStore read by `Chat(...)`, notebook metadata handed
over at `ready`); an inconsistent one is refused or repaired with a notice, the live history keeps the rules, Approve
of the stored call is refused and runs nothing, and a new turn completes. A consistent one restores and runs once."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from notebook_chat import Chat
from notebook_chat.engine.conversation import awaiting_call_ids
from notebook_chat.engine.history import validate
from notebook_chat.persistence import FileStore
from tests.widget.widget_doubles import RecordingComm

from .forged_paused_turns import cases
from .record_corpus import to_json_text
from .test_malformed_records import KEY, chat_for

CASES = list(cases())
WAYS = ("file store", "notebook metadata")


async def restored(way: str, record: Any, tmp_path: Path, runs: list[str]) -> Chat:
    if way == "file store":
        path = tmp_path / "chats.json"
        path.write_text(to_json_text({"version": 1, "conversations": {KEY: record}}), encoding="utf-8")
        return chat_for(FileStore(path), runs)
    chat = chat_for(None, runs)
    chat.widget._handle_custom_msg({"kind": "ready", "notebook": True, "cell_id": KEY, "record": record}, [])
    for _ in range(10):
        await asyncio.sleep(0)
    return chat


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize(("name", "record"), [(n, r) for n, r, ok in CASES if not ok],
                         ids=[n for n, _, ok in CASES if not ok])
async def test_an_inconsistent_paused_turn_is_refused_with_a_notice_and_approve_runs_nothing(
        tmp_path: Path, recording_comms: list[RecordingComm], way: str, name: str, record: Any) -> None:
    runs: list[str] = []
    chat = await restored(way, record, tmp_path, runs)

    assert not chat.state.is_paused
    notice = str(chat.state.notice)
    assert "not restored" in notice or "dropped" in notice or "repaired" in notice or "can't be used" in notice, notice
    assert awaiting_call_ids(chat.messages) == []
    assert validate(chat.messages) == []
    with pytest.raises(ValueError, match="not waiting"):
        await chat.approve("call_drop")
    await asyncio.wait_for(chat.send("new question"), 60)  # a hang guard: one took 10 s in a loaded full run
    assert chat.reply == "fresh"
    assert runs == []


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize(("name", "record"), [(n, r) for n, r, ok in CASES if ok],
                         ids=[n for n, _, ok in CASES if ok])
async def test_a_consistent_paused_turn_restores_and_its_approved_call_runs_once(
        tmp_path: Path, recording_comms: list[RecordingComm], way: str, name: str, record: Any) -> None:
    runs: list[str] = []
    chat = await restored(way, record, tmp_path, runs)

    assert chat.state.is_paused
    assert [p["tool_call_id"] for p in chat.pending_approvals] == ["call_drop"]
    await chat.approve("call_drop")
    assert runs == ["drop_table t"]
    assert chat.state.request_state == "completed"
    assert validate(chat.messages) == []


def test_the_forgeries_cover_every_dimension() -> None:
    assert len({name for name, _, _ in CASES}) == len(CASES) >= 80
