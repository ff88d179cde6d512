"""engine.load(record): a stored conversation replaces the living engine's, in place."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from notebook_chat.engine import EngineEvent, MessageEngine, NotebookChatError, Plugin, PluginContext, PluginError
from notebook_chat.testing.scripted import ScriptedProvider

ENGINE = Path(__file__).resolve().parents[2] / "notebook_chat" / "engine"


def record(messages: list[dict[str, Any]], turns: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"version": 1, "messages": messages, "turns": turns or [], "paused_turn": None,
            "updated_at": "2026-01-01T00:00:00Z"}


class Loads(Plugin):
    name = "loads"

    def __init__(self) -> None:
        self.seen: list[tuple[int, Any]] = []

    def on_load(self, ctx: PluginContext) -> None:
        self.seen.append((len(ctx.messages), ctx.restored_paused_turn))


async def test_load_replaces_messages_and_turn_log_and_keeps_subscribers_and_plugins() -> None:
    plugin = Loads()
    engine = MessageEngine(ScriptedProvider().text("one").text("two"), plugins=[plugin])
    events: list[EngineEvent] = []
    engine.subscribe(events.append)
    await engine.send_message("first conversation")
    stored = record([{"id": "m1", "role": "user", "content": "stored"},
                     {"id": "m2", "role": "assistant", "content": "answer"}],
                    [{"id": "t1", "started_at": "2026-01-01T00:00:00Z", "ended_at": "2026-01-01T00:00:01Z",
                      "end_reason": "completed", "detail": None}])
    events.clear()
    engine.load(stored)
    assert [m["content"] for m in engine.messages] == ["stored", "answer"]
    assert [t["id"] for t in engine.turns] == ["t1"]
    assert engine.state.request_state == "idle"
    assert plugin.seen == [(2, None)]
    assert events[-1].kind == "state"
    await engine.send_message("next")
    assert [m["content"] for m in engine.messages] == ["stored", "answer", "next", "two"]


def test_load_marks_a_turn_left_open_interrupted_and_answers_its_dangling_calls() -> None:
    engine = MessageEngine(ScriptedProvider())
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    engine.load(record([{"id": "u", "role": "user", "content": "go"},
                        {"id": "a", "role": "assistant", "content": None, "tool_calls": [call]}],
                       [{"id": "t1", "started_at": "2026-01-01T00:00:00Z", "ended_at": None, "end_reason": None,
                         "detail": None}]))
    assert engine.turns[-1]["end_reason"] == "interrupted"
    assert engine.messages[-1]["tool_call_id"] == "c1"
    assert engine.messages[1]["state"]["tool_calls"]["c1"]["status"] == "cancelled"


def test_the_stored_paused_turn_is_visible_to_plugins_only_inside_on_load() -> None:
    plugin = Loads()
    engine = MessageEngine(ScriptedProvider(), plugins=[plugin])
    engine.load({**record([]), "paused_turn": {"turn_id": "t"}})
    assert plugin.seen == [(0, {"turn_id": "t"})]
    assert engine.restored_paused_turn is None


def test_an_on_load_that_returns_an_awaitable_is_an_error() -> None:
    class AsyncLoad(Plugin):
        async def on_load(self, ctx: PluginContext) -> None:  # type: ignore[override]
            return None

    with pytest.raises(PluginError, match="on_load must return None"):
        MessageEngine(ScriptedProvider(), plugins=[AsyncLoad()]).load(record([]))


async def test_loading_while_a_turn_runs_is_refused() -> None:
    provider = ScriptedProvider().text("slow", chunks=20, delay=0.01)
    engine = MessageEngine(provider)
    started: list[bool] = []

    class Loader(Plugin):
        async def on_before_request(self, ctx: PluginContext) -> None:
            with pytest.raises(NotebookChatError, match="a turn is running"):
                ctx.engine.load(record([]))
            started.append(True)

    engine = MessageEngine(provider, plugins=[Loader()])
    await engine.send_message("hi")
    assert started == [True]
    assert engine.messages[-1]["content"] == "slow"


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            found.add("." * node.level + (node.module or ""))
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


@pytest.mark.parametrize("path", sorted(ENGINE.glob("*.py")), ids=lambda p: p.name)
def test_the_engine_imports_nothing_above_it_and_nothing_from_jupyter(path: Path) -> None:
    above = ("notebook_chat.plugins", "notebook_chat.persistence", "notebook_chat.widget", "notebook_chat.tools",
             "notebook_chat.providers", "notebook_chat.skills", "notebook_chat.testing", "..", "ipywidgets",
             "anywidget", "IPython", "ipykernel", "jupyter", "comm", "traitlets", "nbformat")
    imported = imported_modules(path)
    assert not [name for name in imported if name.startswith(above) or name == "notebook_chat"]
    assert not (ENGINE / "builtins").exists()
