"""Exactly once across closed tabs: an approved call that ran is never offered again by a restore of a notebook saved
before it ran (the tab closed unsaved, then the kernel restarted) — the approval ledger in the Jupyter data directory
settles it. Scope: this machine and user; a notebook carried elsewhere restores as its metadata says."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from notebook_chat import Chat, tool
from notebook_chat.engine.history import validate
from notebook_chat.persistence import FileStore
from notebook_chat.plugins.tools import ALREADY_RAN
from notebook_chat.testing import ScriptedProvider
from tests.widget.widget_doubles import RecordingComm

KEY = "durable"


def approval_chat(store: FileStore | None, runs: list[str], provider: ScriptedProvider) -> Chat:
    @tool(approval=True)
    def drop_table(name: str) -> str:
        """Drop a table."""
        runs.append(name)
        return f"dropped {name}"

    return Chat(provider, tools=[drop_table], key=KEY, store=store, restore_timeout=0)


def file_bytes(path: Path) -> bytes:
    return path.read_bytes()


def put_bytes(path: Path, data: bytes) -> None:
    path.write_bytes(data)


def paused_provider() -> ScriptedProvider:
    return ScriptedProvider().tool_calls([{"name": "drop_table", "arguments": {"name": "users"}, "id": "call_drop"}])


async def ran_after_approval(path: Path, runs: list[str]) -> bytes:
    """Pause, keep the file as the notebook on disk had it, approve (the tool runs); return the stale bytes."""
    chat = approval_chat(FileStore(path), runs, paused_provider().text("done"))
    await chat.send("drop users")
    assert chat.state.is_paused
    stale = file_bytes(path)
    await chat.approve("call_drop")
    assert runs == ["users"]
    return stale


async def test_a_restore_from_before_the_approval_does_not_offer_the_call_again(
        tmp_path: Path, recording_comms: list[RecordingComm]) -> None:
    path, runs = tmp_path / "chats.json", []
    stale = await ran_after_approval(path, runs)
    put_bytes(path, stale)  # the tab closed unsaved; the kernel restarts

    again = approval_chat(FileStore(path), runs, ScriptedProvider().text("fresh"))

    assert not again.state.is_paused
    assert again.pending_approvals == []
    result = next(m for m in again.messages if m.get("role") == "tool")
    assert result["content"] == f"{ALREADY_RAN} (success); result not kept"
    assert "already decided in an earlier kernel" in str(again.state.notice)
    assert validate(again.messages) == []
    with pytest.raises(ValueError, match="not waiting"):
        await again.approve("call_drop")
    await again.send("next")
    assert again.reply == "fresh"
    assert runs == ["users"]


async def test_the_same_holds_for_a_record_handed_over_from_notebook_metadata(
        tmp_path: Path, recording_comms: list[RecordingComm]) -> None:
    import json

    path, runs = tmp_path / "chats.json", []
    stale = await ran_after_approval(path, runs)
    record: dict[str, Any] = json.loads(stale)["conversations"][KEY]

    again = approval_chat(None, runs, ScriptedProvider())
    again.widget._handle_custom_msg({"kind": "ready", "notebook": True, "cell_id": KEY, "record": record}, [])
    for _ in range(10):
        await asyncio.sleep(0)

    assert again.messages
    assert again.pending_approvals == []
    assert runs == ["users"]


async def test_on_another_machine_without_ledger_entries_the_paused_call_is_offered_as_stored(
        tmp_path: Path, recording_comms: list[RecordingComm], monkeypatch: pytest.MonkeyPatch) -> None:
    path, runs = tmp_path / "chats.json", []
    stale = await ran_after_approval(path, runs)
    put_bytes(path, stale)
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "another-machine"))

    elsewhere = approval_chat(FileStore(path), runs, ScriptedProvider())

    assert [p["tool_call_id"] for p in elsewhere.pending_approvals] == ["call_drop"]


async def test_the_ledger_records_an_approved_call_before_its_tool_starts(
        tmp_path: Path, recording_comms: list[RecordingComm], private_jupyter_data_dir: Path) -> None:
    ledger_file = private_jupyter_data_dir / "notebook_chat" / "approval_ledger.jsonl"
    seen: list[str] = []

    @tool(approval=True)
    def drop_table(name: str) -> str:
        """Drop a table."""
        seen.append(file_bytes(ledger_file).decode())
        return "dropped"

    chat = Chat(paused_provider().text("ok"), tools=[drop_table], key=KEY, restore_timeout=0)
    await chat.send("drop users")
    await chat.approve("call_drop")

    assert '"call_id":"call_drop"' in seen[0]
    assert '"decision":"approved"' in seen[0]
    assert b'"outcome":"success"' in file_bytes(ledger_file)
    assert b"users" not in file_bytes(ledger_file)
