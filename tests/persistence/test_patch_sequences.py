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
