from __future__ import annotations

import json
from typing import Any

import pytest

from notebook_chat.engine import HistoryError, MessageEngine, Plugin, PluginContext
from notebook_chat.engine.history import validate
from notebook_chat.plugins.tool_definition import tool
from notebook_chat.plugins.tools import ToolPlugin
from notebook_chat.providers.converters import check_every_provider
from notebook_chat.testing.scripted import ScriptedProvider


class Retriever(Plugin):
    """Injects retrieved data as if the model had called a tool for it."""

    def __init__(self, name: str, priority: int, results: list[str], *, hook: str = "start",
                 temp: bool = False) -> None:
        self.name = name
        self.priority = priority
        self.results = results
        self.hook = hook
        self.temp = temp

    def _inject(self, ctx: PluginContext) -> None:
        for text in self.results:
            ctx.inject_tool_result(f"{self.name}_search", {"q": text}, f"found {text}", temp=self.temp)

    async def on_turn_start(self, ctx: PluginContext) -> None:
        if self.hook == "start":
            self._inject(ctx)

    async def on_before_request(self, ctx: PluginContext) -> None:
        if self.hook == "before" and not ctx.custom_context.get(f"{self.name}_done"):
            ctx.custom_context[f"{self.name}_done"] = True
            self._inject(ctx)


def shape(messages: list[dict[str, Any]]) -> list[str]:
    out = []
    for message in messages:
        if message.get("tool_calls"):
            out.append("call:" + ",".join(json.loads(c["function"]["arguments"]).get("q", c["function"]["name"])
                                          for c in message["tool_calls"]))
        elif message["role"] == "tool":
            out.append("result:" + message["content"])
        else:
            out.append(f"{message['role']}:{message.get('content')}")
    return out


def assert_every_converter_accepts(messages: list[dict[str, Any]]) -> None:
    assert validate(messages) == []
    check_every_provider(messages)


async def test_injected_units_sit_after_the_user_message_in_priority_then_call_order() -> None:
    provider = ScriptedProvider().text("answer")
    low = Retriever("low", 1, ["l1"])
    high = Retriever("high", 5, ["h1", "h2"])
    engine = MessageEngine(provider, plugins=[low, high])
    await engine.send_message("question")
    assert shape(provider.requests[0]["messages"]) == [
        "user:question", "call:h1", "result:found h1", "call:h2", "result:found h2", "call:l1", "result:found l1"]
    assert shape(engine.messages)[-1] == "assistant:answer"
    assert_every_converter_accepts(provider.requests[0]["messages"])


async def test_each_injected_unit_has_fresh_ids_paired_with_its_result() -> None:
    provider = ScriptedProvider().text("answer")
    engine = MessageEngine(provider, plugins=[Retriever("r", 0, ["a", "b"])])
    await engine.send_message("q")
    calls = [m for m in engine.messages if m.get("tool_calls")]
    ids = [m["tool_calls"][0]["id"] for m in calls]
    assert len(set(ids)) == 2
    results = [m["tool_call_id"] for m in engine.messages if m["role"] == "tool"]
    assert results == ids


async def test_an_injection_in_a_follow_up_request_never_lands_between_a_real_call_and_its_result() -> None:
    @tool
    def lookup(city: str) -> str:
        """Weather."""
        return f"sunny in {city}"

    provider = (ScriptedProvider().tool_calls([{"name": "lookup", "arguments": {"city": "Oslo"}, "id": "real"}])
                .text("done"))

    class LateRetriever(Retriever):
        async def on_before_request(self, ctx: PluginContext) -> None:
            if any(m.get("tool_call_id") == "real" for m in ctx.messages) and not ctx.custom_context.get("late"):
                ctx.custom_context["late"] = True
                self._inject(ctx)

    engine = MessageEngine(provider, plugins=[ToolPlugin([lookup]), LateRetriever("late", 0, ["x"], hook="none")])
    await engine.send_message("q")
    second = provider.requests[1]["messages"]
    assert shape(second) == ["user:q", "call:x", "result:found x", "call:lookup", "result:sunny in Oslo"]
    assert_every_converter_accepts(second)


async def test_temp_units_reach_the_provider_but_are_never_saved() -> None:
    provider = ScriptedProvider().text("answer")
    engine = MessageEngine(provider, plugins=[Retriever("keep", 1, ["k"]), Retriever("tmp", 0, ["t"], temp=True)])
    await engine.send_message("q")
    assert shape(provider.requests[0]["messages"]) == [
        "user:q", "call:k", "result:found k", "call:t", "result:found t"]
    saved = engine.export_record()["messages"]
    assert shape(saved) == ["user:q", "call:k", "result:found k", "assistant:answer"]
    assert validate(saved) == []


async def test_a_unit_that_is_only_partly_temp_is_rejected_when_it_is_built() -> None:
    class HalfTemp(Plugin):
        name = "half"

        async def on_turn_start(self, ctx: PluginContext) -> None:
            ctx.inject_unit([
                {"role": "assistant", "tool_calls": [{"id": "c", "type": "function",
                                                      "function": {"name": "f", "arguments": "{}"}}], "temp": True},
                {"role": "tool", "tool_call_id": "c", "content": "x"}])

    provider = ScriptedProvider().text("never")
    engine = MessageEngine(provider, plugins=[HalfTemp()])
    with pytest.raises(HistoryError, match="temp as a whole"):
        await engine.send_message("q")
    assert provider.requests == []
