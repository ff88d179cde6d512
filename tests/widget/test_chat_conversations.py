"""Many conversations in one Chat: the Python API (new, switch, rename, delete, clear, export) and what is stored."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from notebook_chat import Chat
from notebook_chat.persistence import FileStore
from notebook_chat.persistence.patches import apply_write
from notebook_chat.testing import ScriptedProvider

from .widget_doubles import RecordingComm, drawn, drop_table_tool, shown

FIXTURE = Path(__file__).parents[1] / "persistence" / "fixtures" / "metadata_v1_dc8e255.json"


def sent(chat: Chat) -> list[dict[str, Any]]:
    comm = chat.widget.comm
    assert isinstance(comm, RecordingComm)
    return comm.sent


class BrowserMetadata:
    """What the notebook holds after the kernel's persist messages: each applied as the browser applies it
    (`apply_write`, the reference of js/widget/src/patches.js), refused when it does not fit."""

    def __init__(self) -> None:
        self.conversations: dict[str, Any] = {}

    def apply(self, messages: list[dict[str, Any]]) -> None:
        for message in messages:
            if message["kind"] != "persist":
                continue
            entry = apply_write(self.conversations.get(message["key"]), message)
            if entry is None:
                self.conversations.pop(message["key"], None)
            else:
                self.conversations[message["key"]] = entry


async def test_a_new_conversation_keeps_the_old_one_in_the_list_and_switch_brings_it_back(
        recording_comms: list[RecordingComm]) -> None:
    chat = await shown(Chat(ScriptedProvider().text("first reply").text("second reply"), key="k"))
    await chat.send("Tell me about sales")
    first = chat.conversation_id
    second = chat.new_conversation()
    assert chat.conversation_id == second != first
    assert chat.messages == []
    await chat.send("Something else")
    assert [c["id"] for c in chat.conversations] == [first, second]
    assert [c["title"] for c in chat.conversations] == ["Tell me about sales", "Something else"]
    await chat.switch(first)
    assert [m["content"] for m in chat.messages] == ["Tell me about sales", "first reply"]
    assert chat.reply == "first reply"


async def test_new_conversation_with_a_title_uses_it_and_rename_changes_any_conversation(
        recording_comms: list[RecordingComm]) -> None:
    chat = await shown(Chat(ScriptedProvider().text("ok"), key="k"))
    await chat.send("A long first question " + "x" * 100)
    first = chat.conversation_id
    assert chat.conversations[0]["title"].endswith("…")
    assert len(chat.conversations[0]["title"]) == 60
    second = chat.new_conversation(title="Plots")
    chat.rename(first, "  Sales   cleanup ")
    titles = {c["id"]: c["title"] for c in chat.conversations}
    assert titles == {first: "Sales cleanup", second: "Plots"}
    with pytest.raises(ValueError, match="non-empty"):
        chat.rename(second, "   ")
    with pytest.raises(ValueError, match="no conversation"):
        chat.rename("nope", "x")


async def test_switching_or_starting_over_while_a_reply_is_written_is_refused_with_the_reason(
        recording_comms: list[RecordingComm]) -> None:
    chat = await shown(Chat(ScriptedProvider().text("slow " * 50, chunks=50, delay=0.02), key="k"))
    first = chat.conversation_id
    chat.new_conversation()
    await chat.switch(first)
    started = asyncio.Event()
    chat.subscribe(lambda _event: started.set() if chat.state.is_processing else None)
    task = asyncio.ensure_future(chat.send("go"))
    await started.wait()
    with pytest.raises(ValueError, match="a reply is being written in this conversation: stop it or wait"):
        chat.new_conversation()
    with pytest.raises(ValueError, match="a reply is being written"):
        await chat.switch(chat.conversations[1]["id"])
    with pytest.raises(ValueError, match="a reply is being written"):
        chat.clear()
    assert chat.conversation_id == first
    await task
    assert chat.state.request_state == "completed"
    assert [c["state"] for c in chat.conversations] == ["idle", "idle"]


async def test_a_paused_conversation_stays_paused_when_left_and_its_approval_runs_the_tool_once_on_return(
        recording_comms: list[RecordingComm]) -> None:
    ran: list[str] = []
    provider = ScriptedProvider().tool_calls([{"name": "drop_table", "arguments": {"name": "t1"}, "id": "c1"}])
    chat = await shown(Chat(provider.text("other").text("dropped"), tools=[drop_table_tool(ran)], key="k"))
    await chat.send("drop t1")
    paused = chat.conversation_id
    assert chat.state.is_paused
    chat.new_conversation()
    await chat.send("meanwhile")
    assert {c["id"]: c["state"] for c in chat.conversations}[paused] == "paused"
    assert chat.pending_approvals == []
    await chat.switch(paused)
    assert chat.state.is_paused
    assert [p["tool_call_id"] for p in chat.pending_approvals] == ["c1"]
    await chat.approve("c1")
    assert ran == ["t1"]
    assert chat.reply == "dropped"
    with pytest.raises(ValueError, match="not waiting for a decision"):
        await chat.approve("c1")
    assert ran == ["t1"]


async def test_after_a_restart_the_list_the_active_one_and_an_inactive_paused_turn_come_back_and_run_once(
        recording_comms: list[RecordingComm]) -> None:
    ran: list[str] = []
    provider = ScriptedProvider().tool_calls([{"name": "drop_table", "arguments": {"name": "t1"}, "id": "c1"}])
    chat = await shown(Chat(provider.text("other"), tools=[drop_table_tool(ran)], key="k"))
    await chat.send("drop t1")
    paused = chat.conversation_id
    active = chat.new_conversation(title="Plots")
    await chat.send("meanwhile")
    metadata = BrowserMetadata()
    metadata.apply(sent(chat))
    before = chat.conversations

    again: list[str] = []
    restarted = await shown(Chat(ScriptedProvider().text("dropped"), tools=[drop_table_tool(again)], key="k"),
                            metadata.conversations["k"])
    assert restarted.conversations == before
    assert restarted.conversation_id == active
    assert [m["content"] for m in restarted.messages] == ["meanwhile", "other"]
    await restarted.switch(paused)
    assert restarted.state.is_paused
    await restarted.approve("c1")
    assert again == ["t1"]
    assert ran == []
    assert restarted.reply == "dropped"


async def test_a_file_store_keeps_every_conversation_and_a_new_chat_on_it_gets_them_back(
        tmp_path: Path, recording_comms: list[RecordingComm]) -> None:
    store = FileStore(tmp_path / "chats.json")
    chat = Chat(ScriptedProvider().text("one").text("two"), key="k", store=store)
    await chat.send("first")
    chat.new_conversation()
    await chat.send("second")
    chat.rename(chat.conversation_id, "Second")
    reopened = Chat(ScriptedProvider(), key="k", store=FileStore(tmp_path / "chats.json"))
    assert reopened.conversations == chat.conversations
    assert reopened.conversations[1]["title"] == "Second"
    assert [m["content"] for m in reopened.messages] == ["second", "two"]


async def test_deleting_the_active_conversation_opens_the_most_recent_other_one_and_removes_it_from_the_notebook(
        recording_comms: list[RecordingComm]) -> None:
    chat = await shown(Chat(ScriptedProvider().text("a").text("b").text("c"), key="k"))
    await chat.send("one")
    first = chat.conversation_id
    second = chat.new_conversation()
    await chat.send("two")
    third = chat.new_conversation()
    await chat.send("three")
    await chat.switch(second)
    chat.delete(second)
    assert chat.conversation_id == third
    assert [c["id"] for c in chat.conversations] == [first, third]
    chat.delete(first)
    assert [c["id"] for c in chat.conversations] == [third]
    metadata = BrowserMetadata()
    metadata.apply(sent(chat))
    assert list(metadata.conversations["k"]["items"]) == [third]
    chat.delete(third)
    assert len(chat.conversations) == 1
    assert chat.conversation_id != third
    assert chat.messages == []
    with pytest.raises(ValueError, match="no conversation"):
        chat.delete(third)


async def test_clear_empties_the_active_conversation_keeps_its_id_and_the_system_prompt(
        recording_comms: list[RecordingComm]) -> None:
    chat = await shown(Chat(ScriptedProvider().text("a").text("b"), key="k", system="be brief"))
    await chat.send("one")
    other = chat.new_conversation()
    await chat.send("two")
    chat.clear()
    assert chat.conversation_id == other
    assert [m["role"] for m in chat.messages] == ["system"]
    assert len(chat.conversations) == 2
    metadata = BrowserMetadata()
    metadata.apply(sent(chat))
    assert [m["role"] for m in metadata.conversations["k"]["items"][other]["messages"]] == ["system"]


async def test_a_chat_restored_from_a_notebook_written_before_version_2_keeps_its_paused_turn_and_runs_once(
        recording_comms: list[RecordingComm]) -> None:
    record = json.loads(FIXTURE.read_text(encoding="utf-8"))["notebook_chat"]["conversations"]["chat-paused"]
    ran: list[str] = []
    chat = await shown(Chat(ScriptedProvider().text("gone"), tools=[drop_table_tool(ran)], key="chat-paused"),
                       record)
    assert chat.state.is_paused
    assert [c["state"] for c in chat.conversations] == ["paused"]
    assert chat.conversations[0]["title"] == "drop t1"
    await chat.approve("call-1")
    assert ran == ["t1"]
    metadata = BrowserMetadata()
    metadata.apply(sent(chat))
    stored = metadata.conversations["chat-paused"]
    assert stored["active"] == "main"
    assert stored["items"]["main"]["turns"][-1]["end_reason"] == "completed"


async def test_the_browser_gets_the_inactive_conversations_only_as_list_entries(
        recording_comms: list[RecordingComm]) -> None:
    chat = await shown(Chat(ScriptedProvider().text("secret-ish reply").text("b"), key="k"))
    await chat.send("first question")
    chat.new_conversation()
    await chat.send("second question")
    chat.widget.flush()
    view = drawn(sent(chat))
    assert [m["content"] for m in view["messages"]] == ["second question", "b"]
    listed = view["conversations"]
    assert listed["active"] == chat.conversation_id
    assert [item["title"] for item in listed["items"]] == ["first question", "second question"]
    assert "secret-ish reply" not in json.dumps(view)
    assert set(listed["items"][0]) == {"id", "title", "updated_at", "created_at", "state"}


async def test_an_inactive_conversation_that_cant_be_read_is_refused_on_switch_and_left_untouched(
        recording_comms: list[RecordingComm]) -> None:
    good = {"version": 1, "messages": [], "turns": [], "paused_turn": None, "updated_at": "2024-05-01T12:00:00Z"}
    stored = {"active": "good", "items": {"bad": {"version": 1, "messages": "not a list"}, "good": good}}
    chat = await shown(Chat(ScriptedProvider(), key="k"), stored)
    assert chat.conversation_id == "good"
    with pytest.raises(ValueError, match=r"the conversation 'bad' can't be opened.*kept untouched"):
        await chat.switch("bad")
    assert chat.conversation_id == "good"
    assert not any(m["kind"] == "persist" for m in sent(chat)), "nothing is written over the stored chat"


async def browser_sends(chat: Chat, content: dict[str, Any]) -> dict[str, Any]:
    """A custom message from the front end, handled as ipywidgets does; returns the kernel's action_result."""
    chat.widget._handle_custom_msg({**content, "request_id": "r1"}, [])
    for _ in range(200):
        await asyncio.sleep(0.005)
        answers = [m for m in sent(chat) if m["kind"] == "action_result" and m["request_id"] == "r1"]
        if answers:
            sent(chat).remove(answers[0])
            return answers[0]
    raise AssertionError("the kernel never answered")


async def test_the_browsers_conversation_actions_drive_the_chat_and_a_refusal_comes_back_as_its_reason(
        recording_comms: list[RecordingComm]) -> None:
    chat = await shown(Chat(ScriptedProvider().text("one"), key="k"))
    await chat.send("first")
    first = chat.conversation_id
    assert (await browser_sends(chat, {"kind": "new_conversation", "title": None}))["ok"]
    second = chat.conversation_id
    assert (await browser_sends(chat, {"kind": "rename_conversation", "conversation_id": first, "title": "One"}))["ok"]
    assert (await browser_sends(chat, {"kind": "switch_conversation", "conversation_id": first}))["ok"]
    assert chat.conversation_id == first
    assert (await browser_sends(chat, {"kind": "delete_conversation", "conversation_id": second}))["ok"]
    assert [c["title"] for c in chat.conversations] == ["One"]
    refused = await browser_sends(chat, {"kind": "switch_conversation", "conversation_id": second})
    assert refused["ok"] is False
    assert "has no conversation" in refused["error"]
    assert (await browser_sends(chat, {"kind": "clear_conversation"}))["ok"]
    assert chat.messages == []


async def test_an_export_action_is_answered_with_the_markdown_or_the_cells(
        recording_comms: list[RecordingComm]) -> None:
    chat = await shown(Chat(ScriptedProvider().text("Try:\n\n```python\nx = 1\n```"), key="k"))
    await chat.send("an example")
    assert (await browser_sends(chat, {"kind": "export_conversation", "conversation_id": None,
                                       "format": "markdown"}))["ok"]
    assert (await browser_sends(chat, {"kind": "export_conversation", "conversation_id": None,
                                       "format": "cells"}))["ok"]
    exports = [m for m in sent(chat) if m["kind"] == "export"]
    assert exports[0]["content"] == chat.export_markdown()
    assert exports[1]["content"][-1] == {"cell_type": "code", "source": "x = 1"}


async def test_a_chat_used_before_it_is_shown_keeps_what_the_notebook_stores_and_adds_its_own(
        recording_comms: list[RecordingComm]) -> None:
    first = await shown(Chat(ScriptedProvider().text("old answer"), key="k"))
    await first.send("old question")
    stored = json.loads(json.dumps(notebook_of(sent(first))))
    again = Chat(ScriptedProvider().text("new answer"), key="k")
    fresh = again.new_conversation(title="Fresh")
    await again.send("new question")
    await shown(again, stored)
    held = notebook_of([{"kind": "persist", "key": "k", "revision": stored["revision"], "base": None,
                         "ops": [{"op": "set", "path": [], "value": stored}]}, *sent(again)])
    assert held["active"] == fresh
    assert [m["content"] for m in held["items"]["main"]["messages"]] == ["old question", "old answer"]
    assert [m["content"] for m in held["items"][fresh]["messages"]] == ["new question", "new answer"]
    assert {c["id"] for c in again.conversations} == {"main", fresh}


def notebook_of(messages: list[dict[str, Any]]) -> Any:
    metadata = BrowserMetadata()
    metadata.apply(messages)
    return metadata.conversations["k"]
