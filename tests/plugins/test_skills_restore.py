"""SkillPlugin after a restart: the selection comes back from the record (or the paused turn's context, or — when
none survived — from the awaiting resource call's own arguments); a skill gone from disk makes its call
unavailable while Deny still works; the tool names restore uses are the ones the schemas use."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from notebook_chat.engine import MessageEngine
from notebook_chat.engine.history import validate
from notebook_chat.persistence import read_record
from notebook_chat.plugins import skills as skill_tools
from notebook_chat.plugins.skills import SkillPlugin
from notebook_chat.plugins.tools import TOOL_REJECT, TOOL_RESUME, ToolPlugin
from notebook_chat.testing.scripted import ScriptedProvider
from tests.skills.skill_folders import CLEANING_BODY, cleaning_skill, plotting_skill

from .tool_helpers import statuses

REFERENCE = "# Reference\nUse df.drop_duplicates()."


@pytest.fixture
def folders(tmp_path: Path) -> list[Path]:
    return [cleaning_skill(tmp_path / "skills"), plotting_skill(tmp_path / "skills")]


def read_call(skill: str = "pandas-cleaning") -> dict[str, Any]:
    return {"name": skill_tools.READ_SKILL_FILE, "arguments": {"skill": skill, "path": "reference.md"},
            "id": "c_read"}


async def paused_record(folders: list[Path], *, mode: Any = "manual") -> dict[str, Any]:
    """A first kernel: a skill is active, the model asks to read its reference, the read awaits approval."""
    plugin = SkillPlugin(folders, mode=mode, approve_reads=True)
    plugin.select("pandas-cleaning")
    engine = MessageEngine(ScriptedProvider().tool_calls([read_call()]), plugins=[ToolPlugin(), plugin])
    await engine.send_message("clean it, see the reference")
    assert engine.state.is_paused
    return json.loads(json.dumps(engine.export_record()))


def next_kernel(record: dict[str, Any], plugin: SkillPlugin, provider: ScriptedProvider) -> MessageEngine:
    """What a restarted kernel does: validate the stored record, load it into an engine with fresh plugins."""
    loaded = read_record(record)
    assert loaded.record is not None, loaded.refused
    engine = MessageEngine(provider, plugins=[ToolPlugin(), plugin])
    engine.load(loaded.record)
    return engine


def without_selection(record: dict[str, Any]) -> dict[str, Any]:
    record.pop("plugins", None)
    record["paused_turn"]["custom_context"].pop("skills")
    return record


def result_of(engine: MessageEngine, call_id: str) -> str:
    return str(next(m for m in engine.messages if m.get("tool_call_id") == call_id)["content"])


async def test_a_restored_awaiting_read_with_its_stored_selection_runs_once_on_approve(folders: list[Path]) -> None:
    record = await paused_record(folders)
    provider = ScriptedProvider().text("cleaned")
    plugin = SkillPlugin(folders, approve_reads=True)
    engine = next_kernel(record, plugin, provider)
    assert engine.state.is_paused
    assert plugin.active == ["pandas-cleaning"]
    first = await engine.dispatch_command(TOOL_RESUME, {"tool_call_id": "c_read"})
    again = await engine.dispatch_command(TOOL_RESUME, {"tool_call_id": "c_read"})
    assert (first["status"], again["status"]) == ("resumed", "missing")
    assert result_of(engine, "c_read") == REFERENCE
    assert [m.get("tool_call_id") for m in engine.messages].count("c_read") == 1
    assert CLEANING_BODY in provider.requests[-1]["messages"][0]["content"]
    assert validate(provider.requests[-1]["messages"]) == []


async def test_a_restored_awaiting_read_without_any_stored_selection_is_rebuilt_from_the_calls_arguments(
        folders: list[Path]) -> None:
    record = without_selection(await paused_record(folders))
    provider = ScriptedProvider().text("cleaned")
    plugin = SkillPlugin(folders, approve_reads=True)
    engine = next_kernel(record, plugin, provider)
    assert plugin.active == ["pandas-cleaning"]
    assert (await engine.dispatch_command(TOOL_RESUME, {"tool_call_id": "c_read"}))["status"] == "resumed"
    assert result_of(engine, "c_read") == REFERENCE
    assert engine.state.request_state == "completed"
    assert CLEANING_BODY in provider.requests[-1]["messages"][0]["content"]


async def test_an_awaiting_read_runs_even_when_the_stored_selection_no_longer_holds_its_skill(
        folders: list[Path]) -> None:
    record = await paused_record(folders)
    record["plugins"]["skills"]["active"] = ["plotting-style"]
    record["paused_turn"]["custom_context"]["skills"]["active"] = ["plotting-style"]
    plugin = SkillPlugin(folders, approve_reads=True)
    engine = next_kernel(record, plugin, ScriptedProvider().text("ok"))
    assert plugin.active == ["plotting-style"]
    assert (await engine.dispatch_command(TOOL_RESUME, {"tool_call_id": "c_read"}))["status"] == "resumed"
    assert result_of(engine, "c_read") == REFERENCE


@pytest.mark.parametrize("stored", ["with", "without"])
async def test_a_skill_missing_at_restore_makes_the_call_unavailable_and_deny_still_works(
        folders: list[Path], stored: str) -> None:
    record = await paused_record(folders)
    if stored == "without":
        without_selection(record)
    provider = ScriptedProvider().text("ok, skipped")
    plugin = SkillPlugin([folders[1]], approve_reads=True)  # the next kernel has only the plotting skill
    engine = next_kernel(record, plugin, provider)
    assert engine.state.is_paused
    result = await engine.dispatch_command(TOOL_RESUME, {"tool_call_id": "c_read"})
    assert result["status"] == "unavailable"
    assert "the skill 'pandas-cleaning' is not available in this kernel" in result["error"]
    assert engine.state.is_paused
    assert not any(m.get("tool_call_id") == "c_read" for m in engine.messages)
    denied = await engine.dispatch_command(TOOL_REJECT, {"tool_call_id": "c_read"})
    assert denied["status"] == "denied"
    assert statuses(engine)["c_read"] == "denied"
    assert result_of(engine, "c_read") == "Denied by the user."
    assert engine.state.request_state == "completed"
    assert validate(provider.requests[-1]["messages"]) == []


async def test_a_skill_folder_deleted_after_the_restore_makes_the_call_unavailable(folders: list[Path]) -> None:
    record = await paused_record(folders)
    plugin = SkillPlugin(folders, approve_reads=True)
    engine = next_kernel(record, plugin, ScriptedProvider())
    shutil.rmtree(folders[0])
    result = await engine.dispatch_command(TOOL_RESUME, {"tool_call_id": "c_read"})
    assert result["status"] == "unavailable"
    assert "is no longer on disk" in result["error"]
    assert engine.state.is_paused
    assert not any(m.get("tool_call_id") == "c_read" for m in engine.messages)


async def test_the_tool_names_restore_uses_come_from_the_one_definition_the_schemas_use(
        folders: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(skill_tools, "READ_SKILL_FILE", "fetch_skill_document")
    monkeypatch.setattr(skill_tools, "LIST_SKILL_FILES", "enumerate_skill_documents")
    record = without_selection(await paused_record(folders))
    call = next(m for m in record["messages"] if m.get("tool_calls"))["tool_calls"][0]
    assert call["function"]["name"] == "fetch_skill_document"
    provider = ScriptedProvider().text("ok")
    plugin = SkillPlugin(folders, approve_reads=True)
    engine = next_kernel(record, plugin, provider)
    assert plugin.active == ["pandas-cleaning"]
    assert (await engine.dispatch_command(TOOL_RESUME, {"tool_call_id": "c_read"}))["status"] == "resumed"
    assert result_of(engine, "c_read") == REFERENCE
    names = [entry["function"]["name"] for entry in provider.requests[-1]["tools"]]
    assert names == ["enumerate_skill_documents", "fetch_skill_document"]
    assert "`fetch_skill_document`" in provider.requests[-1]["messages"][0]["content"]


async def test_the_selection_of_an_idle_conversation_comes_back_from_the_record(folders: list[Path]) -> None:
    plugin = SkillPlugin(folders)
    engine = MessageEngine(ScriptedProvider().text("ok"), plugins=[ToolPlugin(), plugin])
    await engine.send_message("hello")
    plugin.select("plotting-style")
    record = json.loads(json.dumps(engine.export_record()))
    again = SkillPlugin(folders)
    next_kernel(record, again, ScriptedProvider())
    assert again.active == ["plotting-style"]


async def test_an_empty_stored_selection_wins_over_the_one_the_plugin_was_built_with(folders: list[Path]) -> None:
    plugin = SkillPlugin(folders)
    engine = MessageEngine(ScriptedProvider(), plugins=[ToolPlugin(), plugin])
    record = json.loads(json.dumps(engine.export_record()))
    again = SkillPlugin(folders)
    again.select("plotting-style")
    next_kernel(record, again, ScriptedProvider())
    assert again.active == []


HOSTILE_STATES: list[Any] = [
    None, 1, "pandas-cleaning", [], ["pandas-cleaning"], {}, {"active": None}, {"active": "pandas-cleaning"},
    {"active": [1, None, {"x": 1}]}, {"active": ["nope", "../pandas-cleaning"]}, {"active": ["x"] * 10_000},
]


@pytest.mark.parametrize("state", HOSTILE_STATES)
async def test_a_stored_selection_of_the_wrong_shape_or_with_unknown_names_selects_nothing_unknown(
        folders: list[Path], state: Any) -> None:
    record = json.loads(json.dumps(MessageEngine(ScriptedProvider()).export_record()))
    record["plugins"] = {"skills": state}
    plugin = SkillPlugin(folders)
    engine = next_kernel(record, plugin, ScriptedProvider().text("ok"))
    assert plugin.active == []
    await engine.send_message("hi")
    assert engine.state.request_state == "completed"
