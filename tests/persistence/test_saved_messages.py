"""`SavedMessages` gives exactly what the whole path gives (``pack(for_saving(messages))``) after any sequence of
changes to a conversation, while the turns before the latest one are not checked or packed again."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from notebook_chat.engine.request import for_saving
from notebook_chat.persistence.blobs import MIN_BLOB_CHARS, pack_messages
from notebook_chat.persistence.saved_messages import SavedMessages

IMAGE = "iVBORw0KGgo" * (MIN_BLOB_CHARS // 10)


class Conversation:
    """A live message list changed the ways an engine, a plugin, a widget action or a notebook cell change it."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = [{"id": "sys", "role": "system", "content": "Be brief."}]
        self.count = 0

    def new_id(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def turn(self, kind: str) -> None:
        self.messages.append({"id": self.new_id("u"), "role": "user", "content": "question"})
        if kind == "text":
            self.messages.append({"id": self.new_id("a"), "role": "assistant", "content": "answer"})
        elif kind in ("tool", "image", "awaiting", "temp", "big"):
            call = self.new_id("call_")
            status = "awaiting_approval" if kind == "awaiting" else "success"
            assistant = {"id": self.new_id("a"), "role": "assistant", "content": None,
                         "tool_calls": [{"id": call, "type": "function",
                                         "function": {"name": "lookup", "arguments": "{}"}}],
                         "state": {"tool_calls": {call: {"status": status}}}}
            result: dict[str, Any] = {"id": self.new_id("t"), "role": "tool", "tool_call_id": call,
                                      "content": "x" * 200_000 if kind == "big" else "found"}
            if kind == "image":
                result["metadata"] = {"display": {"image/png": IMAGE, "text/plain": "<Figure>"}}
            if kind == "temp":
                assistant["temp"] = result["temp"] = True
            self.messages.append(assistant)
            if kind != "awaiting":
                self.messages += [result, {"id": self.new_id("a"), "role": "assistant", "content": "done"}]
        elif kind == "empty":
            self.messages.append({"id": self.new_id("a"), "role": "assistant", "content": "", "loading": True})
        elif kind == "reasoning":
            self.messages.append({"id": self.new_id("a"), "role": "assistant", "content": "",
                                  "reasoning_content": "thinking"})
        elif kind == "orphan":
            self.messages.append({"id": self.new_id("t"), "role": "tool", "tool_call_id": "ghost", "content": "?"})

    def change(self, kind: str, where: int) -> None:
        index = where % len(self.messages)
        message = self.messages[index]
        if kind == "edit":
            message["content"] = "edited"
        elif kind == "state":
            message.setdefault("state", {})["note"] = where
        elif kind == "remove" and index:
            del self.messages[index]
        elif kind == "replace":
            self.messages = copy.deepcopy(self.messages)
        elif kind == "grow" and isinstance(message.get("content"), str):
            message["content"] += " more"
        elif kind == "reuse_id":
            earlier = [m for m in self.messages if m.get("tool_calls")]
            if earlier:
                call_id = earlier[0]["tool_calls"][0]["id"]  # a new turn whose call reuses an older call's id
                self.messages += [
                    {"id": self.new_id("u"), "role": "user", "content": "again"},
                    {"id": self.new_id("a"), "role": "assistant", "content": None,
                     "tool_calls": [{"id": call_id, "type": "function",
                                     "function": {"name": "lookup", "arguments": "{}"}}]},
                    {"id": self.new_id("t"), "role": "tool", "tool_call_id": call_id, "content": "found"}]


TURNS = st.sampled_from(["text", "tool", "image", "awaiting", "temp", "big", "empty", "reasoning", "orphan"])
CHANGES = st.tuples(st.sampled_from(["edit", "state", "remove", "replace", "grow", "reuse_id"]), st.integers(0, 99))
STEPS = st.lists(st.one_of(TURNS.map(lambda kind: ("turn", kind)), CHANGES.map(lambda c: ("change", c))),
                 min_size=1, max_size=25)


def whole_path(messages: list[dict[str, Any]]) -> tuple[list[Any], dict[str, str]]:
    return pack_messages(for_saving(copy.deepcopy(messages)))


@settings(max_examples=300, deadline=None)
@given(STEPS)
def test_after_any_sequence_of_changes_the_saved_messages_equal_the_whole_path(steps: list[Any]) -> None:
    conversation, saved = Conversation(), SavedMessages()
    for step, detail in steps:
        if step == "turn":
            conversation.turn(detail)
        else:
            conversation.change(*detail)
        assert saved.packed(conversation.messages) == whole_path(conversation.messages)


def test_the_turns_before_the_latest_one_settle_and_are_not_checked_again() -> None:
    conversation, saved = Conversation(), SavedMessages()
    for _ in range(50):
        conversation.turn("tool")
        saved.packed(conversation.messages)
    assert saved.settled == len(conversation.messages) - 4  # the latest turn: user, call, result, reply
    assert saved.settled_saves == 49


def test_a_change_written_into_an_older_message_in_place_is_saved() -> None:
    conversation, saved = Conversation(), SavedMessages()
    for _ in range(5):
        conversation.turn("text")
        saved.packed(conversation.messages)
    conversation.messages[2]["content"] = "written from a notebook cell"
    messages, _ = saved.packed(conversation.messages)
    assert messages[2]["content"] == "written from a notebook cell"


def test_an_image_of_a_settled_turn_stays_in_the_blobs() -> None:
    conversation, saved = Conversation(), SavedMessages()
    conversation.turn("image")
    for _ in range(3):
        conversation.turn("text")
        _, blobs = saved.packed(conversation.messages)
    assert saved.settled > 4
    assert list(blobs.values()) == [IMAGE]


def test_a_message_holding_a_value_that_cannot_be_copied_settles_nothing_and_is_left_to_the_store() -> None:
    conversation, saved = Conversation(), SavedMessages()
    conversation.turn("text")
    conversation.messages[1]["metadata"] = {"callback": lambda: None}
    conversation.turn("text")
    messages, _ = saved.packed(conversation.messages)
    assert messages[1]["metadata"]["callback"] is conversation.messages[1]["metadata"]["callback"]
    assert saved.settled == 0
