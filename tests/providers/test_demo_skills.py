"""The DemoModel exercises the skill tools of a real SkillPlugin: it activates, lists and reads when the user names a
skill, and its answers say which active skills they follow."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from notebook_chat.engine import MessageEngine
from notebook_chat.plugins import skills as skill_tools
from notebook_chat.plugins.skills import SkillPlugin
from notebook_chat.plugins.tools import ToolPlugin
from notebook_chat.providers import DemoModel
from tests.skills.skill_folders import cleaning_skill, plotting_skill


@pytest.fixture
def folders(tmp_path: Path) -> list[Path]:
    return [cleaning_skill(tmp_path / "skills"), plotting_skill(tmp_path / "skills")]


def calls(engine: MessageEngine) -> list[tuple[str, dict[str, Any]]]:
    return [(call["function"]["name"], json.loads(call["function"]["arguments"]))
            for message in engine.messages for call in message.get("tool_calls") or []]


def engine_for(plugin: SkillPlugin) -> MessageEngine:
    return MessageEngine(DemoModel(delay=0), plugins=[ToolPlugin(), plugin])


async def test_in_auto_mode_naming_a_skill_makes_the_demo_model_activate_it(folders: list[Path]) -> None:
    plugin = SkillPlugin(folders, mode="auto")
    engine = engine_for(plugin)
    await engine.send_message("Please use the pandas-cleaning skill on my data")
    assert calls(engine) == [(skill_tools.ACTIVATE_SKILL, {"skill": "pandas-cleaning"})]
    assert plugin.active == ["pandas-cleaning"]


async def test_naming_a_file_of_an_active_skill_makes_the_demo_model_read_it(folders: list[Path]) -> None:
    plugin = SkillPlugin(folders)
    plugin.select("pandas-cleaning")
    engine = engine_for(plugin)
    await engine.send_message("Read reference.md from the pandas-cleaning skill")
    assert calls(engine) == [(skill_tools.READ_SKILL_FILE, {"skill": "pandas-cleaning", "path": "reference.md"})]
    assert "Use df.drop_duplicates()" in str(engine.messages[-1]["content"])


async def test_asking_for_the_files_of_an_active_skill_makes_the_demo_model_list_them(folders: list[Path]) -> None:
    plugin = SkillPlugin(folders)
    plugin.select("pandas-cleaning")
    engine = engine_for(plugin)
    await engine.send_message("Which files does pandas-cleaning have?")
    assert calls(engine) == [(skill_tools.LIST_SKILL_FILES, {"skill": "pandas-cleaning"})]


async def test_the_word_skill_alone_calls_no_skill_tool(folders: list[Path]) -> None:
    plugin = SkillPlugin(folders, mode="auto")
    engine = engine_for(plugin)
    await engine.send_message("What is a skill? List the skill files please")
    assert calls(engine) == []


async def test_the_demo_answer_names_the_active_skills_and_their_first_instruction(folders: list[Path]) -> None:
    plugin = SkillPlugin(folders)
    plugin.select("plotting-style")
    engine = engine_for(plugin)
    await engine.send_message("hello")
    assert "Following the active skills:\n\n- **plotting-style**: Label every axis with its unit." in str(
        engine.messages[-1]["content"])
