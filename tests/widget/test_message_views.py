"""The chat's view costs what changed and is still exactly the view: after any sequence of changes to a conversation
(messages appended and streamed, tool calls decided and answered late, hidden messages, errors, usage, in-place edits
of older messages, removals, a conversation switch, a load, a restore, a browser that lost its copy) the kept message
views give what a from-scratch ``conversation_view`` gives, and a browser that applied every snapshot, view patch and
delta the kernel sent holds that view; the turns before the latest one are not built again."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from notebook_chat import Chat
from notebook_chat.engine import EngineEvent
from notebook_chat.testing import ScriptedProvider
from notebook_chat.widget.message_views import MessageViews
from notebook_chat.widget.view_copy import BrowserViewCopy
from notebook_chat.widget.view_model import message_view

from .test_incremental_persist import browser_sends, sent
from .test_view_patches_in_a_chat import record
from .widget_doubles import RecordingComm, record_comms

PNG = "iVBORw0KGgo" * 40


def from_scratch(chat: Chat) -> dict[str, Any]:
    """The chat's view built with no kept message views."""
    kept = chat._message_views
    chat._message_views = MessageViews()
    try:
        return chat.view_state()
    finally:
        chat._message_views = kept


class Driver:
    """Changes a chat's conversation the ways the engine, its plugins, a widget action or a notebook cell do."""

    def __init__(self, chat: Chat) -> None:
        self.chat = chat
        self.count = 0

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.chat.engine.messages

    def new_id(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def pick(self, where: int, role: str | None = None, calls: bool = False) -> dict[str, Any] | None:
        found = [m for m in self.messages if (role is None or m.get("role") == role)
                 and (not calls or m.get("tool_calls"))]
        return found[where % len(found)] if found else None

    async def step(self, kind: str, detail: str, where: int) -> None:
        engine = self.chat.engine
        if kind == "user":
            message: dict[str, Any] = {"id": self.new_id("u"), "role": "user", "content": "a question " * 3}
            if detail == "hidden":
                message["metadata"] = {"hidden": True}
            elif detail == "mentions":
                message["metadata"] = {"mentions": [{"name": "df", "label": "DataFrame"}]}
            engine.append_message(message)
        elif kind == "reply":
            reply: dict[str, Any] = {"id": self.new_id("a"), "role": "assistant", "content": "an answer " * 3}
            if detail == "usage":
                reply["metadata"] = {"usage": {"prompt_tokens": where, "completion_tokens": 3, "total_tokens": 9}}
            elif detail == "reasoning":
                reply["reasoning_content"], reply["state"] = "I think " * 3, {"thinking": True}
            elif detail == "error":
                reply["state"] = {"error": "the server failed"}
            elif detail == "loading":
                reply["loading"] = True
            elif detail == "hidden":
                reply["metadata"] = {"hidden": True, "injected": True}
            engine.append_message(reply)
        elif kind == "stream":  # text grows as a provider streams it: only a message event, no state event
            target = self.pick(where, "assistant")
            if target is not None:
                field = "reasoning_content" if detail == "reasoning" else "content"
                text = " and then some more words" * (1 + where % 3)
                first = not target.get(field)
                target[field] = (target.get(field) or "") + text
                engine._emit(EngineEvent("message", str(target["id"]), field, text))
                if first and field == "reasoning_content":
                    engine.notify()  # ThinkingPlugin marks the reply thinking (a view field no delta carries)
        elif kind == "call":
            ids = [self.new_id("call_") for _ in range(1 + where % 2)]
            engine.append_message({
                "id": self.new_id("a"), "role": "assistant", "content": "",
                "tool_calls": [{"id": call_id, "type": "function",
                                "function": {"name": "lookup", "arguments": '{"q": 1}'}} for call_id in ids],
                "state": {"tool_calls": {call_id: {"status": "awaiting-approval"} for call_id in ids}}})
        elif kind == "decide":  # any call, an older turn's too
            target = self.pick(where, calls=True)
            if target is not None:
                call_id = target["tool_calls"][where % len(target["tool_calls"])]["id"]
                entries = target.setdefault("state", {}).setdefault("tool_calls", {})
                entry = entries.setdefault(call_id, {})
                entry["status"] = detail
                entry["decided_by"] = "user"
                if detail == "denied":
                    entry["reason"] = "not now"
                engine.notify()
        elif kind == "result":  # a result for any call: the latest one, or one of a settled turn (its card changes)
            target = self.pick(where, calls=True)
            if target is not None:
                call_id = target["tool_calls"][0]["id"]
                result: dict[str, Any] = {"id": self.new_id("t"), "role": "tool", "tool_call_id": call_id,
                                          "content": f"found {where}"}
                if detail == "display":
                    result["metadata"] = {"display": {"image/png": PNG, "text/plain": "<Figure>"}}
                engine.append_message(result)
        elif kind == "edit":  # a cell (or a plugin) writes into any message in place
            target = self.messages[where % len(self.messages)] if self.messages else None
            if target is None:
                return
            if detail == "content":
                target["content"] = f"rewritten {where}"
            elif detail == "hide":
                target.setdefault("metadata", {})["hidden"] = not (target.get("metadata") or {}).get("hidden")
            elif detail == "error":
                target.setdefault("state", {})["error"] = f"failed {where}"
            elif detail == "usage":
                target.setdefault("metadata", {})["usage"] = {"prompt_tokens": where, "total_tokens": where}
            elif detail == "display":
                metadata = target.get("metadata")
                display = metadata.get("display") if isinstance(metadata, dict) else None
                if isinstance(display, dict):
                    display["text/plain"] = f"<Figure {where}>"  # a nested value changed in place
            elif detail == "remove":
                self.messages.remove(target)
            engine.notify()
        elif kind == "notice":
            engine.set_notice(f"notice {where}")
        elif kind == "switch":  # another conversation, and back: the whole list is replaced twice
            first = self.chat.conversation_id
            self.chat.new_conversation()
            await self.check()
            await self.chat.switch(first)
        elif kind == "load":  # the same conversation loaded again: equal messages, other objects
            engine.load(json.loads(json.dumps(engine.export_record())))
        elif kind == "resync":  # the browser lost its copy and asks for the whole view
            await browser_sends(self.chat, {"kind": "view_resync", "request_id": self.new_id("r")})

    async def check(self) -> None:
        self.chat.widget.flush()
        expected = from_scratch(self.chat)
        assert self.chat.view_state() == expected
        browser = BrowserViewCopy()
        for message in sent(self.chat):
            browser.take(message)
        assert browser.view == json.loads(json.dumps(expected))


STEP = st.one_of(
    st.tuples(st.just("user"), st.sampled_from(["plain", "hidden", "mentions"]), st.integers(0, 99)),
    st.tuples(st.just("reply"), st.sampled_from(["text", "usage", "reasoning", "error", "loading", "hidden"]),
              st.integers(0, 99)),
    st.tuples(st.just("stream"), st.sampled_from(["content", "reasoning"]), st.integers(0, 99)),
    st.tuples(st.just("call"), st.just(""), st.integers(0, 99)),
    st.tuples(st.just("decide"), st.sampled_from(["running", "success", "denied", "failed"]), st.integers(0, 99)),
    st.tuples(st.just("result"), st.sampled_from(["text", "display"]), st.integers(0, 99)),
    st.tuples(st.just("edit"), st.sampled_from(["content", "hide", "error", "usage", "display", "remove"]),
              st.integers(0, 99)),
    st.tuples(st.sampled_from(["notice", "switch", "load", "resync"]), st.just(""), st.integers(0, 99)),
)


async def drive(stored: int, steps: list[tuple[str, str, int]]) -> None:
    chat = Chat(ScriptedProvider(), key="cell-1")
    await browser_sends(chat, {"kind": "ready", "notebook": True, "cell_id": "cell-1",
                               "record": record(stored) if stored else None})
    driver = Driver(chat)
    await driver.check()
    for kind, detail, where in steps:
        await driver.step(kind, detail, where)
        await driver.check()
    chat.widget.close()


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 12), st.lists(STEP, min_size=1, max_size=30))
def test_after_any_sequence_of_changes_the_kept_view_and_the_browsers_copy_are_the_view(
        stored: int, steps: list[tuple[str, str, int]]) -> None:
    with pytest.MonkeyPatch.context() as patch:
        record_comms(patch)
        asyncio.run(drive(stored, steps))


def conversation(turns: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for number in range(turns):
        messages += [
            {"id": f"u{number}", "role": "user", "content": "question"},
            {"id": f"a{number}", "role": "assistant", "content": "",
             "tool_calls": [{"id": f"c{number}", "type": "function",
                             "function": {"name": "lookup", "arguments": "{}"}}],
             "metadata": {"usage": {"total_tokens": 10}}},
            {"id": f"t{number}", "role": "tool", "tool_call_id": f"c{number}", "content": "found"},
            {"id": f"r{number}", "role": "assistant", "content": "done"}]
    return messages


def test_the_turns_before_the_latest_one_settle_and_their_views_are_not_built_again() -> None:
    views, built = MessageViews(), []

    def build(message: dict[str, Any], results: dict[str, Any]) -> dict[str, Any]:
        built.append(message["id"])
        return message_view(message, results)

    messages = conversation(50)
    views.views(messages, build)
    built.clear()
    shown, usage = views.views(messages, build)

    assert views.settled == len(messages) - 4  # the latest turn: user, call, result, reply
    assert built == ["u49", "a49", "r49"]
    assert len(shown) == 150
    assert usage == {"total_tokens": 500}


def test_a_settled_view_is_the_same_object_at_the_next_call() -> None:
    views, messages = MessageViews(), conversation(3)
    first, _ = views.views(messages, message_view)
    second, _ = views.views(messages, message_view)
    assert first[0] is second[0]


def test_a_late_result_for_a_settled_call_changes_its_card() -> None:
    views, messages = MessageViews(), conversation(3)
    messages[2:3] = []  # the first call's result is missing
    views.views(messages, message_view)
    messages.append({"id": "t_late", "role": "tool", "tool_call_id": "c0", "content": "found late"})

    shown, _ = views.views(messages, message_view)

    assert shown[1]["tool_calls"][0]["result"] == "found late"


async def test_one_messages_view_shows_its_calls_results_as_the_whole_view_does(
        recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider(), key="cell-1")
    for message in conversation(3):
        chat.engine.append_message(message)

    whole = {view["id"]: view for view in chat.view_state()["messages"]}

    assert chat.message_view("a1") == whole["a1"]
    assert whole["a1"]["tool_calls"][0]["result"] == "found"


def test_the_first_view_of_a_long_conversation_builds_each_message_view_once() -> None:
    messages = record(1_000)["messages"]
    built: list[str] = []

    def build(message: dict[str, Any], results: dict[str, Any]) -> dict[str, Any]:
        built.append(message["id"])
        return message_view(message, results)  # type: ignore[arg-type]

    views, _ = MessageViews().views(messages, build)

    assert [view["id"] for view in views] == [m["id"] for m in messages]
    assert sorted(built) == sorted(m["id"] for m in messages)  # the settled ones are not built twice
