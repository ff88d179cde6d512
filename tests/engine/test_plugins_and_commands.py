from __future__ import annotations

from typing import Any

import pytest

from notebook_chat.engine import CommandError, MessageEngine, Plugin, PluginContext, PluginError
from notebook_chat.plugins import LengthPlugin, ThinkingPlugin
from notebook_chat.testing.scripted import ScriptedProvider


class Commands(Plugin):
    def __init__(self, name: str, commands: dict[str, Any]) -> None:
        self.name = name
        self._commands = commands

    def commands(self) -> dict[str, Any]:
        return self._commands


async def _echo(payload: dict[str, Any]) -> dict[str, Any]:
    return {"status": "ok", "payload": payload}


def test_two_plugins_registering_the_same_command_is_an_error_at_construction() -> None:
    with pytest.raises(CommandError, match=r"'x\.go' is registered twice \(by 'a' and 'b'\)"):
        MessageEngine(ScriptedProvider(), plugins=[Commands("a", {"x.go": _echo}), Commands("b", {"x.go": _echo})])


async def test_an_unknown_command_is_an_error_naming_the_known_ones() -> None:
    engine = MessageEngine(ScriptedProvider(), plugins=[Commands("a", {"x.go": _echo})])
    with pytest.raises(CommandError, match=r"unknown command 'x\.stop' \(registered: x\.go\)"):
        await engine.dispatch_command("x.stop", {})


async def test_a_command_returns_its_handlers_result() -> None:
    engine = MessageEngine(ScriptedProvider(), plugins=[Commands("a", {"x.go": _echo})])
    assert await engine.dispatch_command("x.go", {"n": 1}) == {"status": "ok", "payload": {"n": 1}}


def test_on_init_returning_a_value_is_an_error() -> None:
    class Returns(Plugin):
        name = "returns"

        def on_init(self, ctx: PluginContext) -> Any:
            return 42

    with pytest.raises(PluginError, match=r"returns\.on_init must return None"):
        MessageEngine(ScriptedProvider(), plugins=[Returns()])


def test_on_init_returning_an_awaitable_is_an_error() -> None:
    class AsyncInit(Plugin):
        name = "async_init"

        async def on_init(self, ctx: PluginContext) -> None:  # type: ignore[override]
            return None

    with pytest.raises(PluginError, match=r"async_init\.on_init must return None"):
        MessageEngine(ScriptedProvider(), plugins=[AsyncInit()])


def test_two_plugins_with_the_same_name_is_an_error() -> None:
    with pytest.raises(PluginError, match="two plugins are named 'a'"):
        MessageEngine(ScriptedProvider(), plugins=[Commands("a", {}), Commands("a", {})])


def test_the_engine_installs_no_plugin_of_its_own() -> None:
    assert MessageEngine(ScriptedProvider()).plugins == []
    mine = LengthPlugin(auto_continue=True)
    engine = MessageEngine(ScriptedProvider(), plugins=[mine])
    assert engine.plugins == [mine]
    assert engine.plugin("length") is mine


async def test_engine_only_fields_never_reach_the_provider_but_plugins_see_them() -> None:
    provider = ScriptedProvider().text("ok")
    seen_by_plugin: list[dict[str, Any]] = []

    class Looks(Plugin):
        name = "looks"

        async def on_before_request(self, ctx: PluginContext) -> None:
            seen_by_plugin.extend(dict(m) for m in ctx.messages)

    history = [{"id": "m1", "role": "user", "content": "old", "metadata": {"hidden": False},
                "state": {"x": 1}, "loading": False, "temp": False, "custom": "kept"},
               {"id": "m2", "role": "assistant", "content": "answer", "state": {"y": 2}}]
    engine = MessageEngine(provider, plugins=[Looks()], initial_messages=history)  # type: ignore[list-item]
    await engine.send_message("new", source="test")
    sent = provider.requests[0]["messages"]
    assert sent == [{"role": "user", "content": "old", "custom": "kept"}, {"role": "assistant", "content": "answer"},
                    {"role": "user", "content": "new"}]
    assert seen_by_plugin[0]["metadata"] == {"hidden": False}
    assert seen_by_plugin[2]["metadata"] == {"source": "test"}


async def test_request_message_fields_keeps_only_the_listed_fields() -> None:
    provider = ScriptedProvider().text("ok")
    history = [{"role": "user", "content": "old", "custom": "dropped", "name": "ann"},
               {"role": "assistant", "content": "answer", "custom": "dropped"}]
    engine = MessageEngine(provider, initial_messages=history,  # type: ignore[arg-type]
                           request_message_fields=("role", "content"))
    await engine.send_message("new")
    assert provider.requests[0]["messages"] == [{"role": "user", "content": "old"},
                                                {"role": "assistant", "content": "answer"},
                                                {"role": "user", "content": "new"}]


async def test_before_request_hooks_add_fields_to_the_request_body() -> None:
    provider = ScriptedProvider().text("ok")

    class AddsTools(Plugin):
        name = "adds"

        async def on_before_request(self, ctx: PluginContext) -> None:
            ctx.body["tools"] = [{"type": "function", "function": {"name": "f", "parameters": {}}}]

    engine = MessageEngine(provider, plugins=[AddsTools()])
    await engine.send_message("hi")
    assert provider.requests[0]["tools"][0]["function"]["name"] == "f"


@pytest.mark.parametrize("with_index", [True, False], ids=["with-index", "without-index"])
async def test_tool_call_deltas_merge_into_the_right_arguments(with_index: bool) -> None:
    provider = ScriptedProvider().tool_calls(
        [{"name": "add", "arguments": {"a": 1, "b": 22}, "id": "c1"},
         {"name": "mul", "arguments": {"x": "three"}, "id": "c2"}],
        fragments=4, with_index=with_index)
    engine = MessageEngine(provider)
    await engine.send_message("hi")
    calls = engine.messages[-1]["tool_calls"]
    assert [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in calls] == [
        ("c1", "add", '{"a": 1, "b": 22}'), ("c2", "mul", '{"x": "three"}')]
    assert engine.messages[-1]["state"]["finish_reason"] == "tool_calls"


async def test_reasoning_marks_the_message_as_thinking_until_the_answer_starts() -> None:
    provider = ScriptedProvider().text("answer", chunks=2, reasoning="let me think", delay=0.001)
    engine = MessageEngine(provider, plugins=[ThinkingPlugin()])
    thinking_seen: list[bool] = []
    engine.subscribe(lambda e: thinking_seen.append(
        bool((engine.streaming_message or {}).get("state", {}).get("thinking"))))
    await engine.send_message("hi")
    reply = engine.messages[-1]
    assert reply["reasoning_content"] == "let me think"
    assert reply["content"] == "answer"
    assert True in thinking_seen
    assert reply["state"]["thinking"] is False


async def test_length_auto_continue_is_off_by_default() -> None:
    provider = ScriptedProvider().text("cut", finish_reason="length")
    engine = MessageEngine(provider, plugins=[LengthPlugin()])
    await engine.send_message("hi")
    assert len(provider.requests) == 1


async def test_length_auto_continue_sends_a_hidden_continuation_up_to_its_cap() -> None:
    provider = ScriptedProvider()
    for _ in range(3):
        provider.text("part", finish_reason="length")
    engine = MessageEngine(provider, plugins=[LengthPlugin(auto_continue=True, max_continuations=2)])
    await engine.send_message("hi")
    assert len(provider.requests) == 3
    hidden = [m for m in engine.messages if (m.get("metadata") or {}).get("hidden")]
    assert len(hidden) == 2
    assert "cut off at the output-token limit" in provider.requests[1]["messages"][-1]["content"]
    assert engine.turns[-1]["end_reason"] == "max-tokens"


@pytest.mark.parametrize("forged", [-1000, "x", 1.5, None, True, [1]])
async def test_a_forged_continuation_count_in_restored_context_never_lifts_the_auto_continue_cap(forged: Any) -> None:
    class RestoredContext(Plugin):  # what a hostile notebook's paused turn could carry back
        name = "restored"

        async def on_before_request(self, ctx: PluginContext) -> None:
            ctx.custom_context.setdefault("length_continuations", forged)

    provider = ScriptedProvider()
    for _ in range(6):
        provider.text("cut", finish_reason="length")
    engine = MessageEngine(provider, plugins=[RestoredContext(), LengthPlugin(auto_continue=True, max_continuations=2)])
    await engine.send_message("hi")
    assert len(provider.requests) == 1
    assert engine.state.request_state != "processing"
