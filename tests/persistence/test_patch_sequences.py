"""Property: a random sequence of saves through the notebook store, applied as patches by the browser's reference
applier, leaves the browser holding exactly the last record saved (its time stamp moves only with a change: a save where
nothing else changed writes nothing); and a save refuses exactly what the whole-record
check (`check_record`) refuses, leaving the browser's copy as it was."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from notebook_chat.persistence import PersistenceError, RecordError, check_record
from notebook_chat.persistence.notebook_store import NotebookMetadataStore

from .conftest import record_of, turn
from .test_notebook_store import Browser

texts = st.text(alphabet=st.sampled_from(["a", "b", " ", "é", "😀", "\n", "中"]), max_size=40)
indices = st.integers(min_value=0, max_value=50)
steps = st.lists(st.one_of(
    st.tuples(st.just("append"), st.sampled_from(["user", "assistant"]), texts),
    st.tuples(st.just("grow"), indices, texts),
    st.tuples(st.just("stream"), texts),
    st.tuples(st.just("rewrite"), indices, texts),
    st.tuples(st.just("insert"), indices, texts),
    st.tuples(st.just("remove"), indices),
    st.tuples(st.just("state"), indices, st.sampled_from(["thinking", "interrupted", "finish_reason"])),
    st.tuples(st.just("turn"), st.booleans()),
    st.tuples(st.just("pause"), st.booleans()),
    st.tuples(st.just("forget"),),
    st.tuples(st.just("hostile"), indices, st.sampled_from(["secret", "role", "content"])),
), min_size=1, max_size=25)

PAUSED = {"version": 1, "turn_id": "turn_p", "tool_call_ids": ["c1"], "custom_context": {"n": 1},
          "tool_round_count": 0, "call_hashes": {"c1": "0" * 64}}


class Conversation:
    def __init__(self) -> None:
        self.record = record_of([{"id": "m0", "role": "user", "content": "start"}])
        self.next_id = 1
        self.tick = 0

    def new_message(self, role: str, text: str) -> dict[str, Any]:
        self.next_id += 1
        return {"id": f"m{self.next_id}", "role": role, "content": text}

    def pick(self, index: int) -> dict[str, Any] | None:
        messages = self.record["messages"]
        return messages[index % len(messages)] if messages else None

    def stamp(self) -> None:
        self.tick += 1
        self.record["updated_at"] = f"2026-01-01T00:{self.tick // 60 % 60:02d}:{self.tick % 60:02d}Z"

    def change(self, step: tuple[Any, ...]) -> None:
        messages, kind = self.record["messages"], step[0]
        target = self.pick(step[1]) if len(step) > 1 and isinstance(step[1], int) else None
        if kind == "append":
            messages.append(self.new_message(step[1], step[2]))
        elif kind == "grow" and target is not None:
            target["content"] = str(target.get("content") or "") + step[2] * 3
        elif kind == "rewrite" and target is not None:
            target["content"] = step[2]
        elif kind == "insert":
            messages.insert(step[1] % (len(messages) + 1), self.new_message("user", step[2]))
        elif kind == "remove" and messages:
            messages.pop(step[1] % len(messages))
        elif kind == "state" and target is not None:
            target.setdefault("state", {})[step[2]] = "stop" if step[2] == "finish_reason" else True
        elif kind == "turn":
            turns = self.record["turns"]
            if step[1] or not turns:
                turns.append(turn(f"t{len(turns)}", "2026-01-01T00:00:00Z"))
            else:
                turns[-1].update(ended_at="2026-01-01T00:00:09Z", end_reason="completed")
        elif kind == "pause":
            self.record["paused_turn"] = copy.deepcopy(PAUSED) if step[1] else None
        elif kind == "hostile" and target is not None:
            if step[2] == "secret":
                target["metadata"] = {"api_key": "sk-abcdefghijklmnopqrstuv"}
            elif step[2] == "role":
                target["role"] = "robot"
            else:
                target["content"] = 42
        self.stamp()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps)
def test_random_patch_sequences_leave_the_browser_with_the_last_saved_record(sequence: list[tuple[Any, ...]]) -> None:
    browser = Browser()
    store = NotebookMetadataStore(browser)
    conversation = Conversation()
    store.save("k", conversation.record)
    saved = copy.deepcopy(conversation.record)
    for step in sequence:
        if step[0] == "forget":
            store.forget_front_end_copy("k")
            continue
        before = copy.deepcopy(conversation.record)
        conversation.change(step)
        record = conversation.record
        try:
            check_record(copy.deepcopy(record))
        except (PersistenceError, RecordError) as whole:
            refused: Exception | None = whole
        else:
            refused = None
        writes = len(browser.writes)
        part = save(store, step, record)
        if part is not None:
            assert refused is not None, f"refused only part by part: {part}"
            assert type(part) is type(refused)
            conversation.record = before  # the engine keeps what it had; the browser must too
            assert browser.record("k") == saved
            continue
        assert refused is None, f"the whole check refuses what the patch let through: {refused}"
        if len(browser.writes) > writes:
            saved = copy.deepcopy(record)
        assert unstamped(record) == unstamped(saved)
        assert browser.record("k") == saved
        assert store.load("k") == saved


def save(store: NotebookMetadataStore, step: tuple[Any, ...], record: dict[str, Any]) -> Exception | None:
    """Save as the autosave does (a "stream" step grows the last reply and saves only it); the refusal, if any."""
    try:
        if step[0] == "stream" and record["messages"] and record["messages"][-1]["role"] == "assistant":
            last = record["messages"][-1]
            last["content"] = str(last.get("content") or "") + step[1] * 4
            if not store.save_messages("k", [last], record["updated_at"]):
                store.save("k", record)
        else:
            store.save("k", record)
    except (PersistenceError, RecordError) as refusal:
        return refusal
    return None


def unstamped(record: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in record.items() if key != "updated_at"}


# ------------------------------------------------------------------------------------- many conversations per chat

chat_steps = st.lists(st.one_of(
    st.one_of(  # the single-conversation steps, on the active one
        st.tuples(st.just("append"), st.sampled_from(["user", "assistant"]), texts),
        st.tuples(st.just("grow"), indices, texts),
        st.tuples(st.just("stream"), texts),
        st.tuples(st.just("remove"), indices),
        st.tuples(st.just("turn"), st.booleans()),
        st.tuples(st.just("pause"), st.booleans()),
        st.tuples(st.just("hostile"), indices, st.sampled_from(["secret", "role", "content"])),
    ),
    st.tuples(st.just("new"),),
    st.tuples(st.just("switch"), indices),
    st.tuples(st.just("delete"), indices),
    st.tuples(st.just("rename"), indices, texts),
    st.tuples(st.just("forget"),),
), min_size=1, max_size=30)


class ChatModel:
    """What a chat holds: its conversations (each a `Conversation`), the active one, and what was last saved of
    each (what the browser must hold)."""

    def __init__(self, store: NotebookMetadataStore) -> None:
        self.store = store
        self.conversations: dict[str, Conversation] = {}
        self.saved: dict[str, dict[str, Any]] = {}
        self.active = ""
        self.made = 0
        self.new()

    def new(self) -> None:
        self.made += 1
        self.active = f"c{self.made}"
        self.conversations[self.active] = Conversation()
        self.store.save("k", self.conversations[self.active].record, self.active, active=True)
        self.saved[self.active] = copy.deepcopy(self.conversations[self.active].record)

    def pick(self, index: int) -> str:
        ids = list(self.conversations)
        return ids[index % len(ids)]

    def expected(self) -> dict[str, Any]:
        return {"active": self.active, "items": self.saved}

    def step(self, step: tuple[Any, ...]) -> str | None:
        """Apply one step and save it as the chat does; the id of the one conversation whose record it wrote."""
        kind = step[0]
        if kind == "forget":
            self.store.forget_front_end_copy("k")
        elif kind == "new":
            self.new()
            return self.active
        elif kind == "switch":
            self.active = self.pick(step[1])
            self.store.activate("k", self.active)
        elif kind == "delete" and len(self.conversations) > 1:
            gone = self.pick(step[1])
            self.store.delete("k", gone)
            del self.conversations[gone], self.saved[gone]
            if gone == self.active:
                self.active = list(self.conversations)[-1]
        elif kind == "rename":
            target = self.pick(step[1])
            self.conversations[target].record["title"] = "T " + step[2]
            self.store.save("k", self.conversations[target].record, target)
            self.saved[target] = copy.deepcopy(self.conversations[target].record)
            return target
        elif kind != "delete":
            conversation = self.conversations[self.active]
            before = copy.deepcopy(conversation.record)
            conversation.change(step)
            if save_one(self.store, step, conversation.record, self.active) is not None:
                conversation.record = before  # refused: the engine keeps what it had, the browser too
            else:
                self.saved[self.active] = copy.deepcopy(conversation.record)
            return self.active
        return None


def save_one(store: NotebookMetadataStore, step: tuple[Any, ...], record: dict[str, Any],
             conversation_id: str) -> Exception | None:
    """`save` for one conversation of the chat."""
    try:
        if step[0] == "stream" and record["messages"] and record["messages"][-1]["role"] == "assistant":
            last = record["messages"][-1]
            last["content"] = str(last.get("content") or "") + step[1] * 4
            if not store.save_messages("k", [last], record["updated_at"], conversation_id):
                store.save("k", record, conversation_id)
        else:
            store.save("k", record, conversation_id)
    except (PersistenceError, RecordError) as refusal:
        return refusal
    return None


def comparable(entry: dict[str, Any]) -> dict[str, Any]:
    """An entry with each record's time stamp left out (a save where only it moved writes nothing)."""
    return {"active": entry["active"], "items": {cid: unstamped(record) for cid, record in entry["items"].items()}}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chat_steps)
def test_random_sequences_across_conversations_leave_the_browser_with_every_last_saved_conversation(
        sequence: list[tuple[Any, ...]]) -> None:
    browser = Browser()
    store = NotebookMetadataStore(browser)
    chat = ChatModel(store)
    unknown = False
    for step in sequence:
        writes = len(browser.writes)
        wrote = chat.step(step)
        unknown = unknown or step[0] == "forget"
        for write in browser.writes[writes:]:
            if write["base"] is None:
                assert unknown, f"{step[0]} sent the whole entry while the browser's copy was known"
                unknown = False
                continue
            for op in write["ops"]:
                touched = op["path"][:2]
                assert touched in (["active"], ["items", wrote]) or (
                    step[0] == "delete" and op["path"][0] == "items" and len(op["path"]) == 2), \
                    f"{step[0]} wrote {op['path']} (another conversation than {wrote!r})"
        assert comparable(browser.entry("k")) == comparable(chat.expected())
        assert comparable(store.load_entry("k")) == comparable(chat.expected())  # type: ignore[arg-type]
        assert set(browser.entry("k")["items"]) == set(chat.conversations)
