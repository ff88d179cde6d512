"""@-mentions: the description is injected as a describe call/result pair right after the user message."""

from __future__ import annotations

import json
from typing import Any

import pytest

from notebook_chat.engine import MessageEngine, Plugin, PluginContext
from notebook_chat.engine.history import validate
from notebook_chat.plugins.mentions import (
    DESCRIBE_TOOL,
    Description,
    MentionPlugin,
    UnknownMention,
    find_mentions,
)
from notebook_chat.plugins.tool_definition import tool
from notebook_chat.plugins.tools import ToolPlugin
from notebook_chat.providers.converters import check_every_provider
from notebook_chat.testing.scripted import ScriptedProvider


class DictSource:
    """A MentionSource over a plain dict of ready descriptions."""

    def __init__(self, known: dict[str, str]) -> None:
        self.known = known

    def label(self, name: str) -> str | None:
        return f"label of {name}" if name in self.known else None

    def describe(self, name: str) -> Description | None:
        return Description(self.known[name]) if name in self.known else None

    def unknown(self, name: str) -> str:
        return f"@{name} is unknown."


class Retriever(Plugin):
    def __init__(self, name: str, priority: int) -> None:
        self.name = name
        self.priority = priority

    async def on_turn_start(self, ctx: PluginContext) -> None:
        ctx.inject_tool_result(f"{self.name}_search", {"q": self.name}, f"found by {self.name}")


def shape(messages: list[dict[str, Any]]) -> list[str]:
    out = []
    for message in messages:
        if message.get("tool_calls"):
            out += [f"call:{c['function']['name']}({c['function']['arguments']})" for c in message["tool_calls"]]
        elif message["role"] == "tool":
            out.append("result:" + message["content"])
        else:
            out.append(f"{message['role']}:{message.get('content')}")
    return out


async def send(engine: MessageEngine, plugin: MentionPlugin, text: str, *, temp: bool = False) -> None:
    """What the Chat facade does: prepare (may refuse), then send with the mentions recorded."""
    mentions = plugin.prepare(text, temp=temp)
    await engine.send_message(text, **({"mentions": mentions} if mentions else {}))


def describe_call(name: str) -> str:
    return f"call:{DESCRIBE_TOOL}({json.dumps({'name': name})})"


@tool
def lookup(city: str) -> str:
    """Weather."""
    return f"sunny in {city}"


async def test_a_mention_is_described_right_after_the_user_message_and_before_the_models_own_calls() -> None:
    provider = (ScriptedProvider().tool_calls([{"name": "lookup", "arguments": {"city": "Oslo"}, "id": "real"}])
                .text("done"))
    mentions = MentionPlugin(DictSource({"df": "df: 3 rows"}))
    engine = MessageEngine(provider, plugins=[ToolPlugin([lookup]), mentions])
    await send(engine, mentions, "plot @df please")
    assert shape(provider.requests[0]["messages"]) == ["user:plot @df please", describe_call("df"), "result:df: 3 rows"]
    assert shape(provider.requests[1]["messages"]) == [
        "user:plot @df please", describe_call("df"), "result:df: 3 rows",
        'call:lookup({"city": "Oslo"})', "result:sunny in Oslo"]
    for request in provider.requests:
        assert validate(request["messages"]) == []
        check_every_provider(request["messages"])


async def test_several_mentions_come_in_message_order_and_injections_by_plugin_priority() -> None:
    provider = ScriptedProvider().text("ok")
    mentions = MentionPlugin(DictSource({"a": "A", "b": "B"}))
    engine = MessageEngine(provider, plugins=[Retriever("low", 1), mentions, Retriever("high", 9)])
    await send(engine, mentions, "compare @b with @a and @b again")
    assert shape(provider.requests[0]["messages"]) == [
        "user:compare @b with @a and @b again",
        'call:high_search({"q": "high"})', "result:found by high",
        describe_call("b"), "result:B", describe_call("a"), "result:A",
        'call:low_search({"q": "low"})', "result:found by low"]
    check_every_provider(provider.requests[0]["messages"])


async def test_the_user_message_records_its_mentions_for_the_chips() -> None:
    provider = ScriptedProvider().text("ok")
    mentions = MentionPlugin(DictSource({"df": "d"}))
    engine = MessageEngine(provider, plugins=[mentions])
    await send(engine, mentions, "look at @df")
    user = next(m for m in engine.messages if m["role"] == "user")
    assert user["metadata"]["mentions"] == [{"name": "df", "label": "label of df", "temp": False}]


async def test_a_stored_mention_is_saved_and_still_sent_in_the_next_turn() -> None:
    provider = ScriptedProvider().text("one").text("two")
    mentions = MentionPlugin(DictSource({"df": "d"}))
    engine = MessageEngine(provider, plugins=[mentions])
    await send(engine, mentions, "look at @df")
    await send(engine, mentions, "and now?")
    assert describe_call("df") in shape(engine.export_record()["messages"])
    assert describe_call("df") in shape(provider.requests[1]["messages"])


async def test_a_temp_mention_is_sent_in_its_turn_never_stored_and_not_sent_again() -> None:
    provider = ScriptedProvider().text("one").text("two")
    mentions = MentionPlugin(DictSource({"df": "d"}))
    engine = MessageEngine(provider, plugins=[mentions])
    await send(engine, mentions, "look at @df", temp=True)
    assert shape(provider.requests[0]["messages"]) == ["user:look at @df", describe_call("df"), "result:d"]
    saved = engine.export_record()["messages"]
    assert shape(saved) == ["user:look at @df", "assistant:one"]
    assert validate(saved) == []
    await send(engine, mentions, "and now?")
    assert shape(provider.requests[1]["messages"]) == ["user:look at @df", "assistant:one", "user:and now?"]
    assert not any(m.get("temp") for m in engine.messages)


async def test_an_unknown_mention_is_refused_before_anything_is_sent() -> None:
    provider = ScriptedProvider().text("never")
    mentions = MentionPlugin(DictSource({"df": "d"}))
    engine = MessageEngine(provider, plugins=[mentions])
    with pytest.raises(UnknownMention, match=r"@nope is unknown\. Nothing was sent") as raised:
        await send(engine, mentions, "compare @df with @nope")
    assert isinstance(raised.value, ValueError)
    assert provider.requests == []
    assert engine.messages == []


async def test_a_message_sent_to_the_engine_directly_describes_only_the_names_it_knows() -> None:
    provider = ScriptedProvider().text("ok")
    engine = MessageEngine(provider, plugins=[MentionPlugin(DictSource({"df": "d"}))])
    await engine.send_message("@df and @nope")
    assert shape(provider.requests[0]["messages"]) == ["user:@df and @nope", describe_call("df"), "result:d"]


async def test_a_name_gone_between_sending_and_describing_is_described_as_gone() -> None:
    source = DictSource({"df": "d"})
    mentions = MentionPlugin(source)
    provider = ScriptedProvider().text("ok")
    engine = MessageEngine(provider, plugins=[mentions])
    recorded = mentions.prepare("@df")
    del source.known["df"]
    await engine.send_message("@df", mentions=recorded)
    gone = "result:@df is unknown. (it was known when the message was sent)"
    assert shape(provider.requests[0]["messages"])[2] == gone


async def test_the_injected_call_shows_as_a_finished_describe_card() -> None:
    provider = ScriptedProvider().text("ok")
    mentions = MentionPlugin(DictSource({"df": "d"}))
    engine = MessageEngine(provider, plugins=[mentions])
    await send(engine, mentions, "@df")
    call = next(m for m in engine.messages if m.get("tool_calls"))
    assert call["metadata"] == {"injected": True, "mention": "df"}
    assert list(call["state"]["tool_calls"].values()) == [{"status": "success"}]


@pytest.mark.parametrize(("text", "expected"), [
    ("@df", ["df"]),
    ("see @df, @df2 and @df.", ["df", "df2"]),
    ("(@a) [@b] '@c' \"@d\" @e! @f? @g;", ["a", "b", "c", "d", "e", "f", "g"]),
    ("@_private @snake_case @CamelCase", ["_private", "snake_case", "CamelCase"]),
    ("@df's columns and @df.price", ["df"]),
    ("line one\n@first\n\t@second", ["first", "second"]),
])
def test_mentions_are_identifiers_after_an_at_sign_each_listed_once(text: str, expected: list[str]) -> None:
    assert find_mentions(text) == expected


@pytest.mark.parametrize("text", [
    "mail me at ann@example.com or a.b@c.io",
    "`@property` and `x = @y`",
    "```python\n@tool\ndef f(): ...\n```",
    "```\nunclosed @fence",
    "@ alone, @@double, @1digit, @-dash",
    "x@y, foo.@bar",
    "",
])
def test_text_that_is_not_a_mention_never_is(text: str) -> None:
    assert find_mentions(text) == []


def test_too_many_mentions_in_one_message_are_refused() -> None:
    names = [f"v{i}" for i in range(21)]
    plugin = MentionPlugin(DictSource(dict.fromkeys(names, "x")))
    with pytest.raises(UnknownMention, match="at most 20"):
        plugin.prepare(" ".join("@" + n for n in names))
