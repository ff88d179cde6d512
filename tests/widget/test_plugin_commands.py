"""Plugins add commands to the widget's "/" menu (``UserCommandProvider``): the view lists them, the browser's
``command`` action runs one, and what the plugin said comes back in the action's answer for the status line — never
as a chat message."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from notebook_chat import Chat
from notebook_chat.engine import CommandError, MessageEngine, Plugin, UserCommand
from notebook_chat.testing import ScriptedProvider

from .widget_doubles import RecordingComm


class Notes(Plugin):
    """A plugin with two commands: /note keeps a line, /notes says how many are kept."""

    name = "notes"

    def __init__(self) -> None:
        self.kept: list[str] = []

    def user_commands(self) -> Mapping[str, UserCommand]:
        return {
            "note": UserCommand({"en": "Keep a note", "zh-CN": "记一条笔记"}, self.note),
            "notes": UserCommand("How many notes are kept", self.count),
        }

    async def note(self, argument: str) -> str:
        self.kept.append(argument)
        return f"Kept: {argument}"

    async def count(self, argument: str) -> str | None:
        return f"{len(self.kept)} notes" if self.kept else None


class Commands(Plugin):
    def __init__(self, name: str, commands: Mapping[str, Any]) -> None:
        self.name = name
        self._commands = commands

    def user_commands(self) -> Mapping[str, Any]:
        return self._commands


README = (Path(__file__).resolve().parents[2] / "README.md").read_text()


async def said(argument: str) -> str:
    return "ok"


def sent(chat: Chat) -> list[dict[str, Any]]:
    comm = chat.widget.comm
    assert isinstance(comm, RecordingComm)
    return comm.sent


async def browser_sends(chat: Chat, content: dict[str, Any]) -> dict[str, Any]:
    chat.widget._handle_custom_msg(content, [])
    for _ in range(50):
        await asyncio.sleep(0)
        answers = [m for m in sent(chat) if m["kind"] == "action_result" and m["request_id"] == content["request_id"]]
        if answers:
            return answers[0]
    raise AssertionError("no action_result")


def test_the_view_lists_the_plugins_commands_with_their_descriptions(recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider(), plugins=[Notes()])
    assert chat.view_state()["commands"] == [
        {"name": "note", "description": "Keep a note"}, {"name": "notes", "description": "How many notes are kept"}]


def test_a_description_given_per_language_follows_the_chats_locale(recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider(), plugins=[Notes()], locale="zh-CN")
    assert chat.view_state()["commands"][0] == {"name": "note", "description": "记一条笔记"}


def test_a_chat_without_command_plugins_lists_no_commands(recording_comms: list[RecordingComm]) -> None:
    assert Chat(ScriptedProvider()).view_state()["commands"] == []


async def test_the_command_action_runs_the_plugins_command_and_answers_with_what_it_said(
        recording_comms: list[RecordingComm]) -> None:
    plugin = Notes()
    chat = Chat(ScriptedProvider(), plugins=[plugin])
    answer = await browser_sends(chat, {"kind": "command", "name": "note", "argument": "buy milk",
                                        "request_id": "r1"})
    assert answer == {"kind": "action_result", "request_id": "r1", "ok": True, "error": None,
                      "message": "Kept: buy milk"}
    assert plugin.kept == ["buy milk"]


async def test_a_command_never_adds_a_chat_message(recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider(), plugins=[Notes()])
    await browser_sends(chat, {"kind": "command", "name": "note", "argument": "x", "request_id": "r1"})
    assert chat.messages == []
    assert chat.engine.turns == []


async def test_a_command_that_says_nothing_answers_without_a_message(recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider(), plugins=[Notes()])
    answer = await browser_sends(chat, {"kind": "command", "name": "notes", "argument": None, "request_id": "r2"})
    assert answer == {"kind": "action_result", "request_id": "r2", "ok": True, "error": None}


async def test_an_unknown_command_is_refused_with_a_sentence_naming_it(recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider(), plugins=[Notes()])
    answer = await browser_sends(chat, {"kind": "command", "name": "nope", "argument": None, "request_id": "r3"})
    assert answer["ok"] is False
    assert answer["error"].startswith("Unknown command /nope")


async def test_the_unknown_command_sentence_is_in_the_chats_language(recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider(), plugins=[Notes()], locale="zh-CN")
    answer = await browser_sends(chat, {"kind": "command", "name": "nope", "argument": None, "request_id": "r4"})
    assert answer["error"].startswith("未知命令 /nope")


async def test_a_command_that_raises_is_answered_with_its_error_and_the_chat_goes_on(
        recording_comms: list[RecordingComm]) -> None:
    async def broken(argument: str) -> str:
        raise RuntimeError("the notes file is locked")

    chat = Chat(ScriptedProvider(), plugins=[Commands("broken", {"lock": UserCommand("Lock", broken)})])
    answer = await browser_sends(chat, {"kind": "command", "name": "lock", "argument": None, "request_id": "r5"})
    assert (answer["ok"], answer["error"]) == (False, "the notes file is locked")
    assert chat.engine.state.request_state == "idle"


@pytest.mark.parametrize("returned", [42, b"bytes", ["a"], {"text": "x"}])
async def test_a_command_returning_something_else_than_text_is_refused(
        returned: object, recording_comms: list[RecordingComm]) -> None:
    async def odd(argument: str) -> Any:
        return returned

    chat = Chat(ScriptedProvider(), plugins=[Commands("odd", {"odd": UserCommand("Odd", odd)})])
    answer = await browser_sends(chat, {"kind": "command", "name": "odd", "argument": None, "request_id": "r6"})
    assert answer["ok"] is False
    assert "expected a str or None" in answer["error"]


@pytest.mark.parametrize("name", ["continue", "retry", "new", "clear", "stop", "help"])
def test_a_plugin_cannot_take_a_built_in_command_name(name: str, recording_comms: list[RecordingComm]) -> None:
    with pytest.raises(ValueError, match=f"/{name} is one of the widget's own commands"):
        Chat(ScriptedProvider(), plugins=[Commands("x", {name: UserCommand("Mine", said)})])


def test_two_plugins_adding_the_same_command_is_an_error_at_construction() -> None:
    plugins = [Commands("a", {"go": UserCommand("Go", said)}), Commands("b", {"go": UserCommand("Go too", said)})]
    with pytest.raises(CommandError, match=r"/go is added twice \(by 'a' and 'b'\)"):
        MessageEngine(ScriptedProvider(), plugins=plugins)


@pytest.mark.parametrize("name", ["", "1st", "with space", "x" * 41, "a/b", "é", None, 3])
def test_a_command_name_that_cant_follow_a_slash_is_an_error_at_construction(name: Any) -> None:
    with pytest.raises(CommandError, match="is not a command name"):
        MessageEngine(ScriptedProvider(), plugins=[Commands("a", {name: UserCommand("Go", said)})])


@pytest.mark.parametrize("description", ["", "   ", "x" * 201, {}, {"en": ""}, None, 5])
def test_a_command_without_a_one_line_description_is_an_error_at_construction(description: Any) -> None:
    with pytest.raises(CommandError, match="needs a description"):
        MessageEngine(ScriptedProvider(), plugins=[Commands("a", {"go": UserCommand(description, said)})])


def test_a_command_that_is_not_a_user_command_is_an_error_at_construction() -> None:
    with pytest.raises(CommandError, match="must be a UserCommand"):
        MessageEngine(ScriptedProvider(), plugins=[Commands("a", {"go": said})])


@pytest.mark.parametrize("content", [
    {"kind": "command", "name": "", "argument": None},
    {"kind": "command", "name": "x" * 41, "argument": None},
    {"kind": "command", "name": 3, "argument": None},
    {"kind": "command", "argument": None},
    {"kind": "command", "name": "note", "argument": 5},
    {"kind": "command", "name": "note", "argument": None, "extra": 1},
])
async def test_a_malformed_command_action_runs_nothing(content: dict[str, Any],
                                                       recording_comms: list[RecordingComm]) -> None:
    plugin = Notes()
    chat = Chat(ScriptedProvider(), plugins=[plugin])
    answer = await browser_sends(chat, {**content, "request_id": "r7"})
    assert answer["ok"] is False
    assert plugin.kept == []


async def test_the_readmes_plugin_command_example_runs_as_written(recording_comms: list[RecordingComm],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    block = next(b for b in re.findall(r"```python\n(.*?)```", README, re.S) if "user_commands" in b)
    scope: dict[str, Any] = {"Chat": Chat}
    exec(block.replace("Chat(plugins=[Notes()])", "chat = Chat(plugins=[Notes()])"), scope)
    chat = scope["chat"]
    assert chat.view_state()["commands"] == [{"name": "note", "description": "Keep a note"}]
    assert await chat.run_command("note", "milk") == "Kept: milk"
