"""SkillPlugin in a real engine with a scripted provider: instructions per request, the three modes, resource tools
and their refusals, approval of reads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from notebook_chat.engine import MessageEngine
from notebook_chat.engine.history import validate
from notebook_chat.plugins import skills as skill_tools
from notebook_chat.plugins.skills import SkillPlugin
from notebook_chat.plugins.tools import TOOL_RESUME, ToolPlugin
from notebook_chat.skills import SkillError
from notebook_chat.testing.scripted import ScriptedProvider
from tests.skills.skill_folders import CLEANING_BODY, PLOTTING_BODY, cleaning_skill, plotting_skill

from .tool_helpers import statuses


@pytest.fixture
def folders(tmp_path: Path) -> list[Path]:
    (tmp_path / "secret.txt").write_text("outside")
    return [cleaning_skill(tmp_path / "skills"), plotting_skill(tmp_path / "skills")]


def engine_with(provider: ScriptedProvider, plugin: SkillPlugin, **options: Any) -> MessageEngine:
    return MessageEngine(provider, plugins=[ToolPlugin(), plugin], **options)


def system_text(body: dict[str, Any]) -> str:
    first = body["messages"][0]
    return str(first["content"]) if first["role"] == "system" else ""


def tool_names(body: dict[str, Any]) -> list[str]:
    return [entry["function"]["name"] for entry in body.get("tools") or []]


def read_call(path: str, skill: str = "pandas-cleaning", call_id: str = "c_read") -> list[dict[str, Any]]:
    return [{"name": skill_tools.READ_SKILL_FILE, "arguments": {"skill": skill, "path": path}, "id": call_id}]


def result_of(engine: MessageEngine, call_id: str) -> str:
    return str(next(m for m in engine.messages if m.get("tool_call_id") == call_id)["content"])


async def test_the_instructions_are_in_each_request_exactly_while_the_skill_is_active(folders: list[Path]) -> None:
    provider = ScriptedProvider().text("one").text("two").text("three")
    plugin = SkillPlugin(folders)
    engine = engine_with(provider, plugin)
    await engine.send_message("before")
    plugin.select("pandas-cleaning")
    await engine.send_message("during")
    plugin.deselect("pandas-cleaning")
    await engine.send_message("after")
    assert [CLEANING_BODY in system_text(body) for body in provider.requests] == [False, True, False]
    assert all(PLOTTING_BODY not in system_text(body) for body in provider.requests)
    assert not any(CLEANING_BODY in str(m.get("content")) for m in engine.messages)
    assert [m["role"] for m in engine.messages] == ["user", "assistant"] * 3


async def test_the_instructions_join_the_leading_system_message_of_the_request_only(folders: list[Path]) -> None:
    provider = ScriptedProvider().text("ok")
    plugin = SkillPlugin(folders)
    plugin.select("plotting-style")
    engine = engine_with(provider, plugin, initial_messages=[{"role": "system", "content": "Be brief."}])
    await engine.send_message("plot it")
    body = provider.requests[0]
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert system_text(body).startswith("Be brief.\n\n# Skills")
    assert f'<skill name="plotting-style">\n{PLOTTING_BODY}\n</skill>' in system_text(body)
    assert engine.messages[0] == {"role": "system", "content": "Be brief."}
    assert validate(body["messages"]) == []


async def test_in_auto_mode_the_model_sees_the_descriptions_and_activates_a_skill_through_the_tool(
        folders: list[Path]) -> None:
    provider = (ScriptedProvider()
                .tool_calls([{"name": skill_tools.ACTIVATE_SKILL, "arguments": {"skill": "pandas-cleaning"},
                              "id": "c_activate"}])
                .text("cleaned"))
    plugin = SkillPlugin(folders, mode="auto")
    engine = engine_with(provider, plugin)
    await engine.send_message("clean my data")
    first, second = provider.requests
    assert "- pandas-cleaning: A checklist for cleaning DataFrames" in system_text(first)
    assert "- plotting-style: House style for matplotlib charts" in system_text(first)
    assert CLEANING_BODY not in system_text(first)
    assert tool_names(first) == [skill_tools.ACTIVATE_SKILL]
    activate = first["tools"][0]["function"]["parameters"]["properties"]["skill"]
    assert activate["enum"] == ["pandas-cleaning", "plotting-style"]
    assert CLEANING_BODY in system_text(second)
    assert "- pandas-cleaning:" not in system_text(second)
    assert tool_names(second) == [skill_tools.ACTIVATE_SKILL, skill_tools.LIST_SKILL_FILES,
                                  skill_tools.READ_SKILL_FILE]
    assert plugin.active == ["pandas-cleaning"]
    assert "'pandas-cleaning' is active now" in result_of(engine, "c_activate")
    assert engine.custom_context["skills"] == {"active": ["pandas-cleaning"]}


async def test_activating_an_unknown_skill_is_a_tool_error_and_changes_nothing(folders: list[Path]) -> None:
    provider = (ScriptedProvider().tool_calls([{"name": skill_tools.ACTIVATE_SKILL, "arguments": {"skill": "nope"},
                                                "id": "c_bad"}]).text("sorry"))
    plugin = SkillPlugin(folders, mode="auto")
    engine = engine_with(provider, plugin)
    await engine.send_message("go")
    assert statuses(engine)["c_bad"] == "failed"
    assert "no skill named 'nope'" in result_of(engine, "c_bad")
    assert plugin.active == []


async def test_in_manual_mode_no_activation_tool_and_no_resource_tools_until_a_skill_is_selected(
        folders: list[Path]) -> None:
    provider = ScriptedProvider().text("a").text("b")
    plugin = SkillPlugin(folders)
    engine = engine_with(provider, plugin)
    await engine.send_message("one")
    plugin.select("plotting-style")
    await engine.send_message("two")
    assert [tool_names(body) for body in provider.requests] == [
        [], [skill_tools.LIST_SKILL_FILES, skill_tools.READ_SKILL_FILE]]
    read = provider.requests[1]["tools"][1]["function"]["parameters"]
    assert read["properties"]["skill"]["enum"] == ["plotting-style"]
    assert read["required"] == ["skill", "path"]


async def test_in_always_mode_every_skill_is_active_and_cannot_be_deselected(folders: list[Path]) -> None:
    provider = ScriptedProvider().text("ok")
    plugin = SkillPlugin(folders, mode="always")
    engine = engine_with(provider, plugin)
    await engine.send_message("go")
    assert plugin.active == ["pandas-cleaning", "plotting-style"]
    assert CLEANING_BODY in system_text(provider.requests[0])
    assert PLOTTING_BODY in system_text(provider.requests[0])
    with pytest.raises(ValueError, match="keeps every skill active"):
        plugin.deselect("plotting-style")


def test_selecting_an_unknown_skill_is_an_error_that_lists_the_available_ones(folders: list[Path]) -> None:
    plugin = SkillPlugin(folders)
    with pytest.raises(ValueError, match="no skill named 'nope' \\(available: pandas-cleaning, plotting-style\\)"):
        plugin.select("nope")
    assert plugin.active == []


def test_an_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="skill_mode must be one of manual, auto, always"):
        SkillPlugin(mode="sometimes")  # type: ignore[arg-type]


def test_a_folder_of_skill_folders_gives_every_skill_in_it(folders: list[Path]) -> None:
    assert SkillPlugin([folders[0].parent]).available == ["pandas-cleaning", "plotting-style"]


def test_two_skills_with_one_name_are_refused(tmp_path: Path, folders: list[Path]) -> None:
    twin = cleaning_skill(tmp_path / "elsewhere")
    with pytest.raises(SkillError, match="already used"):
        SkillPlugin([folders[0], twin])


async def test_read_skill_file_returns_the_file_to_the_model(folders: list[Path]) -> None:
    provider = ScriptedProvider().tool_calls(read_call("reference.md")).text("done")
    plugin = SkillPlugin(folders)
    plugin.select("pandas-cleaning")
    engine = engine_with(provider, plugin)
    await engine.send_message("read the reference")
    assert statuses(engine)["c_read"] == "success"
    assert result_of(engine, "c_read") == "# Reference\nUse df.drop_duplicates()."


async def test_list_skill_files_lists_the_paths_inside_the_folder(folders: list[Path]) -> None:
    provider = (ScriptedProvider().tool_calls([{"name": skill_tools.LIST_SKILL_FILES,
                                                "arguments": {"skill": "pandas-cleaning"}, "id": "c_list"}])
                .text("done"))
    plugin = SkillPlugin(folders)
    plugin.select("pandas-cleaning")
    engine = engine_with(provider, plugin)
    await engine.send_message("what files?")
    listing = result_of(engine, "c_list")
    assert listing.splitlines()[0] == "Files of the skill 'pandas-cleaning' (3):"
    assert [line.split(" (")[0] for line in listing.splitlines()[1:]] == [
        "- SKILL.md", "- reference.md", "- templates/report.txt"]


@pytest.mark.parametrize(("path", "phrase"), [
    ("../secret.txt", "goes up with '..'"), ("/etc/passwd", "absolute path"), ("templates", "is a folder"),
    ("nope.md", "has no file 'nope.md'"), ("", "the path is empty"),
])
async def test_a_refused_read_is_a_failed_tool_result_and_the_turn_goes_on(
        folders: list[Path], path: str, phrase: str) -> None:
    provider = ScriptedProvider().tool_calls(read_call(path)).text("ok")
    plugin = SkillPlugin(folders)
    plugin.select("pandas-cleaning")
    engine = engine_with(provider, plugin)
    await engine.send_message("read")
    assert statuses(engine)["c_read"] == "failed"
    assert result_of(engine, "c_read").startswith("Error: ")
    assert phrase in result_of(engine, "c_read")
    assert "outside" not in result_of(engine, "c_read")
    assert engine.state.request_state == "completed"


async def test_a_symlink_leaving_the_folder_is_a_failed_tool_result(folders: list[Path]) -> None:
    (folders[0] / "link.txt").symlink_to(folders[0].parent.parent / "secret.txt")
    provider = ScriptedProvider().tool_calls(read_call("link.txt")).text("ok")
    plugin = SkillPlugin(folders)
    plugin.select("pandas-cleaning")
    engine = engine_with(provider, plugin)
    await engine.send_message("read")
    assert "leads outside the skill folder" in result_of(engine, "c_read")


async def test_reading_a_skill_that_is_not_active_is_a_tool_error(folders: list[Path]) -> None:
    provider = ScriptedProvider().tool_calls(read_call("SKILL.md", skill="plotting-style")).text("ok")
    plugin = SkillPlugin(folders)
    plugin.select("pandas-cleaning")
    engine = engine_with(provider, plugin)
    await engine.send_message("read")
    assert "the skill 'plotting-style' is not active (active: pandas-cleaning)" in result_of(engine, "c_read")


async def test_a_long_file_reaches_the_model_cut_with_a_note(folders: list[Path]) -> None:
    (folders[0] / "long.txt").write_text("y" * 500)
    provider = ScriptedProvider().tool_calls(read_call("long.txt")).text("ok")
    plugin = SkillPlugin(folders, max_read_bytes=50)
    plugin.select("pandas-cleaning")
    engine = engine_with(provider, plugin)
    await engine.send_message("read")
    note = "\n\n[truncated: the first 50 of 500 bytes of 'long.txt' are shown]"
    assert result_of(engine, "c_read") == "y" * 50 + note


async def test_reads_run_without_approval_by_default(folders: list[Path]) -> None:
    provider = ScriptedProvider().tool_calls(read_call("reference.md")).text("ok")
    plugin = SkillPlugin(folders)
    plugin.select("pandas-cleaning")
    engine = engine_with(provider, plugin)
    await engine.send_message("read")
    assert engine.state.request_state == "completed"


async def test_with_approve_reads_a_read_waits_for_approval_and_runs_once_approved(folders: list[Path]) -> None:
    provider = ScriptedProvider().tool_calls(read_call("reference.md")).text("ok")
    plugin = SkillPlugin(folders, approve_reads=True)
    plugin.select("pandas-cleaning")
    engine = engine_with(provider, plugin)
    await engine.send_message("read")
    assert engine.state.is_paused
    assert statuses(engine)["c_read"] == "awaiting-approval"
    assert (await engine.dispatch_command(TOOL_RESUME, {"tool_call_id": "c_read"}))["status"] == "resumed"
    assert result_of(engine, "c_read").startswith("# Reference")
    assert engine.state.request_state == "completed"


async def test_a_selection_made_while_paused_is_in_the_exported_paused_turn(folders: list[Path]) -> None:
    provider = ScriptedProvider().tool_calls(read_call("reference.md"))
    plugin = SkillPlugin(folders, approve_reads=True)
    plugin.select("pandas-cleaning")
    engine = engine_with(provider, plugin)
    await engine.send_message("read")
    plugin.select("plotting-style")
    record = engine.export_record()
    assert record["paused_turn"]["custom_context"]["skills"] == {"active": ["pandas-cleaning", "plotting-style"]}
    assert record["plugins"] == {"skills": {"active": ["pandas-cleaning", "plotting-style"]}}
    assert json.loads(json.dumps(record)) == record
