"""Chat(skills=..., skill_mode=...): chat.skills, the skill chips' view, the browser's toggle, and the selection kept
in the notebook's record across a restart."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from notebook_chat import Chat
from notebook_chat.plugins import skills as skill_tools
from notebook_chat.testing import ScriptedProvider
from tests.skills.skill_folders import CLEANING_BODY, cleaning_skill, plotting_skill

from .widget_doubles import RecordingComm, active_conversation, notebook_entry


@pytest.fixture
def folders(tmp_path: Path) -> list[Path]:
    return [cleaning_skill(tmp_path / "skills"), plotting_skill(tmp_path / "skills")]


def sent(chat: Chat) -> list[dict[str, Any]]:
    comm = chat.widget.comm
    assert isinstance(comm, RecordingComm)
    return comm.sent


async def browser_sends(chat: Chat, content: dict[str, Any]) -> None:
    chat.widget._handle_custom_msg(content, [])
    for _ in range(10):
        await asyncio.sleep(0)
    chat.widget.flush()


def chips(chat: Chat) -> list[tuple[str, bool]]:
    view = chat.view_state()["skills"]
    return [(item["name"], item["active"]) for item in view["items"]]


def test_chat_skills_lists_the_available_skills_and_none_is_active_in_manual_mode(
        folders: list[Path], recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider(), skills=folders)
    assert chat.skills.available == ["pandas-cleaning", "plotting-style"]
    assert chat.skills.active == []
    assert chips(chat) == [("pandas-cleaning", False), ("plotting-style", False)]
    assert chat.view_state()["skills"]["toggle"] is True


def test_in_always_mode_every_chip_is_active_and_none_can_be_toggled(
        folders: list[Path], recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider(), skills=folders, skill_mode="always")
    assert chips(chat) == [("pandas-cleaning", True), ("plotting-style", True)]
    assert chat.view_state()["skills"]["toggle"] is False


def test_a_chat_without_skills_shows_no_chips_and_stores_no_skill_state(
        recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider())
    assert chat.view_state()["skills"] is None
    assert "plugins" not in chat.engine.export_record()


async def test_the_browsers_skill_toggle_selects_the_skill_and_the_next_snapshot_shows_it_active(
        folders: list[Path], recording_comms: list[RecordingComm]) -> None:
    provider = ScriptedProvider().text("checked")
    chat = Chat(provider, skills=folders, key="k")
    await browser_sends(chat, {"kind": "skill", "name": "pandas-cleaning", "active": True, "request_id": "r1"})
    assert chat.skills.active == ["pandas-cleaning"]
    assert {"kind": "action_result", "request_id": "r1", "ok": True, "error": None} in sent(chat)
    snapshot = next(m for m in reversed(sent(chat)) if m["kind"] == "snapshot")
    assert snapshot["view"]["skills"]["items"][0] == {
        "name": "pandas-cleaning", "description": "A checklist for cleaning DataFrames", "active": True}
    await chat.send("clean it")
    assert CLEANING_BODY in provider.requests[0]["messages"][0]["content"]
    await browser_sends(chat, {"kind": "skill", "name": "pandas-cleaning", "active": False, "request_id": "r2"})
    assert chat.skills.active == []


async def test_toggling_an_unknown_skill_from_the_browser_is_answered_with_the_reason(
        folders: list[Path], recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider(), skills=folders)
    await browser_sends(chat, {"kind": "skill", "name": "nope", "active": True, "request_id": "r1"})
    result = next(m for m in sent(chat) if m["kind"] == "action_result")
    assert result["ok"] is False
    assert "no skill named 'nope'" in result["error"]
    assert chat.skills.active == []


async def test_the_selection_is_written_to_the_notebook_and_a_restarted_chat_gets_it_back(
        folders: list[Path], recording_comms: list[RecordingComm]) -> None:
    first = Chat(ScriptedProvider().text("ok"), skills=folders, key="cell-1")
    await first.restore(None, {"notebook": True, "cell_id": "cell-1"})
    first.skills.select("plotting-style")
    await first.send("hello")
    record = notebook_entry(sent(first))
    assert active_conversation(record)["plugins"] == {"skills": {"active": ["plotting-style"]}}

    second = Chat(ScriptedProvider(), skills=folders, key="cell-1")
    assert second.skills.active == []
    await second.restore(record, {"notebook": True, "cell_id": "cell-1"})
    assert second.skills.active == ["plotting-style"]
    assert chips(second) == [("pandas-cleaning", False), ("plotting-style", True)]


async def test_after_a_restart_an_awaiting_read_is_approved_from_the_chat_and_runs_once(
        folders: list[Path], recording_comms: list[RecordingComm]) -> None:
    call = {"name": skill_tools.READ_SKILL_FILE, "arguments": {"skill": "pandas-cleaning", "path": "reference.md"},
            "id": "c_read"}
    first = Chat(ScriptedProvider().tool_calls([call]), skills=folders, approve_skill_reads=True, key="cell-1")
    await first.restore(None, {"notebook": True, "cell_id": "cell-1"})
    first.skills.select("pandas-cleaning")
    await first.send("read the reference")
    assert first.pending_approvals[0]["name"] == skill_tools.READ_SKILL_FILE
    record = notebook_entry(sent(first))

    second = Chat(ScriptedProvider().text("read it"), skills=folders, approve_skill_reads=True, key="cell-1")
    await second.restore(record, {"notebook": True, "cell_id": "cell-1"})
    assert second.state.is_paused
    await second.approve("c_read")
    results = [m for m in second.messages if m.get("tool_call_id") == "c_read"]
    assert [m["content"] for m in results] == ["# Reference\nUse df.drop_duplicates()."]
    assert second.reply == "read it"


async def test_after_a_restart_without_the_skill_approve_says_why_and_deny_still_works(
        folders: list[Path], recording_comms: list[RecordingComm]) -> None:
    call = {"name": skill_tools.READ_SKILL_FILE, "arguments": {"skill": "pandas-cleaning", "path": "reference.md"},
            "id": "c_read"}
    first = Chat(ScriptedProvider().tool_calls([call]), skills=folders, approve_skill_reads=True, key="cell-1")
    await first.restore(None, {"notebook": True, "cell_id": "cell-1"})
    first.skills.select("pandas-cleaning")
    await first.send("read the reference")
    record = notebook_entry(sent(first))

    second = Chat(ScriptedProvider().text("skipped"), skills=[folders[1]], approve_skill_reads=True, key="cell-1")
    await second.restore(record, {"notebook": True, "cell_id": "cell-1"})
    with pytest.raises(ValueError, match="the skill 'pandas-cleaning' is not available in this kernel"):
        await second.approve("c_read")
    assert second.state.is_paused
    await second.deny("c_read")
    assert [m["content"] for m in second.messages if m.get("tool_call_id") == "c_read"] == ["Denied by the user."]
    assert second.reply == "skipped"
