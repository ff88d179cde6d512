"""A notebook-store save checks only the turn entries it changes, and refuses exactly what ``check_record`` refuses;
the record size it keeps equals the size measured from scratch."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from notebook_chat.engine.errors import RecordError
from notebook_chat.persistence import check_record
from notebook_chat.persistence.chat_entry import DEFAULT_CONVERSATION_ID
from notebook_chat.persistence.notebook_store import NotebookMetadataStore
from notebook_chat.persistence.record import _scan

STAMP = "2026-01-01T00:00:00.000Z"


def base_record() -> dict[str, Any]:
    return {"version": 1, "messages": [{"id": "m0", "role": "user", "content": "hi"}], "turns": [],
            "paused_turn": None, "updated_at": STAMP}


def started(record: dict[str, Any], number: int) -> None:
    record["turns"].append({"id": f"turn_{number}", "started_at": STAMP, "ended_at": None, "end_reason": None,
                            "detail": None})
    record["messages"].append({"id": f"u{number}", "role": "user", "content": "question " * number})


def ended(record: dict[str, Any], reason: str) -> None:
    if record["turns"]:
        record["turns"][-1].update(ended_at=STAMP, end_reason=reason,
                                   detail="user" if reason == "aborted" else None)
        record["messages"].append({"id": f"r{len(record['messages'])}", "role": "assistant", "content": "ok"})


def saved_store() -> NotebookMetadataStore:
    store = NotebookMetadataStore(lambda write: None)
    store.save("k", base_record())
    return store


def sizes_from_scratch(record: dict[str, Any]) -> tuple[int, int]:
    return _scan({**record, "messages": []}), sum(_scan(message) for message in record["messages"])


STEPS = st.lists(st.sampled_from(["start", "completed", "aborted", "error", "usage", "drop_first"]), max_size=20)


@settings(max_examples=150, deadline=None)
@given(STEPS)
def test_the_size_a_save_keeps_equals_the_size_measured_from_scratch(steps: list[str]) -> None:
    store, record = saved_store(), base_record()
    for number, step in enumerate(steps):
        if step == "start":
            started(record, number)
        elif step == "usage" and record["turns"]:
            record["turns"][-1]["usage"] = {"prompt_tokens": number, "completion_tokens": 1,
                                              "total_tokens": number + 1}
        elif step == "drop_first" and record["turns"]:
            del record["turns"][0]
        elif step in ("completed", "aborted", "error"):
            ended(record, step)
        store.save("k", copy.deepcopy(record))
        assert store._images["k"].sizes[DEFAULT_CONVERSATION_ID] == sizes_from_scratch(record)


BAD_TURNS = {
    "an end reason without an end time": {"ended_at": None, "end_reason": "completed"},
    "an end time without an end reason": {"ended_at": STAMP, "end_reason": None},
    "an unknown end reason": {"ended_at": STAMP, "end_reason": "exploded"},
    "a start time that is not a time": {"started_at": "yesterday"},
    "an id that is empty": {"id": ""},
    "an id that repeats an earlier turn's": {"id": "turn_0"},
    "a field the log does not know": {"colour": "red"},
    "a detail that is not text": {"detail": 3},
}


@pytest.mark.parametrize("change", BAD_TURNS.values(), ids=BAD_TURNS.keys())
def test_a_save_whose_new_turn_entry_is_bad_is_refused_as_check_record_refuses_it(change: dict[str, Any]) -> None:
    store, record = saved_store(), base_record()
    started(record, 0)
    store.save("k", copy.deepcopy(record))
    started(record, 1)
    record["turns"][-1].update(change)
    with pytest.raises(RecordError):
        check_record(copy.deepcopy(record))
    with pytest.raises(RecordError):
        store.save("k", copy.deepcopy(record))
    assert len(store.load("k")["turns"]) == 1  # nothing kept


@pytest.mark.parametrize("change", BAD_TURNS.values(), ids=BAD_TURNS.keys())
def test_a_save_that_breaks_an_existing_turn_entry_is_refused(change: dict[str, Any]) -> None:
    store, record = saved_store(), base_record()
    for number in range(3):
        started(record, number)
    store.save("k", copy.deepcopy(record))
    record["turns"][1].update(change if change.get("id") != "turn_0" else {"id": "turn_2"})
    with pytest.raises(RecordError):
        store.save("k", copy.deepcopy(record))
