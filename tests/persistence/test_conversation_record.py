from __future__ import annotations

import copy
import math
from typing import Any

import pytest

from notebook_chat.persistence import LoadedConversation, RecordError, check_record, read_record
from notebook_chat.persistence.stores import MemoryStore

from .conftest import NOW, paused_record, record_of, turn


def valid() -> dict[str, Any]:
    record = paused_record(custom_context={"step": 2})
    record["turns"].insert(0, turn("turn_0", "2024-05-01T11:00:00Z", "2024-05-01T11:00:05Z", "error",
                                   "HTTP 500 from provider"))
    return record


def record_from_dict(data: Any) -> LoadedConversation:
    """Load as a restore does; a refusal raises, so the reason can be matched."""
    loaded = read_record(data)
    if loaded.refused:
        raise RecordError(loaded.refused)
    return loaded


def changed(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    data = valid()
    target = data
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return data


def test_a_record_round_trips_through_a_store() -> None:
    store = MemoryStore()
    store.save("k", valid())
    loaded = record_from_dict(store.load("k"))
    assert loaded.record == valid()
    assert loaded.notice is None


def test_the_dict_has_the_documented_shape() -> None:
    data = valid()
    assert sorted(data) == ["messages", "paused_turn", "turns", "updated_at", "version"]
    assert data["version"] == 1
    assert data["turns"][1] == {
        "id": "turn_1",
        "started_at": "2024-05-01T11:59:00Z",
        "ended_at": None,
        "end_reason": None,
        "detail": None,
    }
    assert data["paused_turn"]["tool_call_ids"] == ["c2", "c3"]


def test_unknown_keys_inside_messages_and_at_the_top_are_kept() -> None:
    data = valid()
    data["messages"][0]["attachments"] = [{"name": "a.csv"}]
    data["future_field"] = {"x": 1}
    loaded = record_from_dict(data)
    assert loaded.record is not None
    assert loaded.record["messages"][0]["attachments"] == [{"name": "a.csv"}]
    assert loaded.record == data


def test_loading_never_modifies_its_input() -> None:
    data = changed(("paused_turn", "version"), 9)
    before = copy.deepcopy(data)
    record_from_dict(data)
    assert data == before


def test_a_future_version_is_refused_with_a_reason() -> None:
    with pytest.raises(
        RecordError, match=r"version 2, written by a newer notebook_chat; this one reads version 1"
    ):
        record_from_dict(changed(("version",), 2))


@pytest.mark.parametrize(
    ("path", "value", "reason"),
    [
        (("messages",), {"0": {}}, r"\$\.messages: expected a list"),
        (("messages", 0), "hello", r"\$\.messages\[0\]: expected an object"),
        (
            ("messages", 0, "role"),
            "bot",
            r"\$\.messages\[0\]\.role: expected one of system, user, assistant, tool",
        ),
        (
            ("messages", 0, "content"),
            5,
            r"\$\.messages\[0\]\.content: expected text, a list of content parts",
        ),
        (("messages", 0, "content"), ["part"], r"\$\.messages\[0\]\.content: part 0 is not an object"),
        (("messages", 0, "id"), "", r"\$\.messages\[0\]\.id: must not be empty"),
        (("messages", 0, "loading"), "yes", r"\$\.messages\[0\]\.loading: expected true or false"),
        (("messages", 0, "metadata"), [], r"\$\.messages\[0\]\.metadata: expected an object"),
        (
            ("messages", 1, "tool_calls", 0, "function", "arguments"),
            {},
            r"tool_calls\[0\]\.function\.arguments",
        ),
        (("messages", 1, "tool_calls", 0, "type"), "code", r"tool_calls\[0\]\.type: expected 'function'"),
        (("messages", 1, "tool_calls", 1, "id"), None, r"tool_calls\[1\]\.id: expected a string"),
        (("messages", 2, "tool_call_id"), 3, r"\$\.messages\[2\]\.tool_call_id: expected a string"),
        (
            ("turns", 0, "end_reason"),
            "finished",
            r"\$\.turns\[0\]\.end_reason: expected one of completed, aborted",
        ),
        (("turns", 0, "end_reason"), None, r"\$\.turns\[0\]: ended_at and end_reason must both be set"),
        (
            ("turns", 1, "started_at"),
            "noon",
            r"\$\.turns\[1\]\.started_at: expected an ISO-8601 UTC timestamp",
        ),
        (("turns", 1, "id"), "turn_0", r"\$\.turns: holds the same turn id twice"),
        (("turns", 1, "extra"), 1, r"\$\.turns\[1\]: unknown field\(s\) 'extra'"),
        (("updated_at",), "2024-05-01T12:00:00", r"\$\.updated_at: expected an ISO-8601 UTC timestamp"),
        (("messages", 1, "state", "tool_calls", "c2", "status"), "maybe",
         r"\$\.messages\[1\]\.state\.tool_calls\.c2\.status: expected one of running, success"),
        (("messages", 1, "tool_calls", 0, "id"), "c" * 201, r"tool_calls\[0\]\.id: is 201 characters long"),
    ],
)
def test_a_corrupt_structure_is_refused_with_the_field_named(
    path: tuple[Any, ...], value: Any, reason: str
) -> None:
    with pytest.raises(RecordError, match=reason):
        record_from_dict(changed(path, value))


def test_a_tool_message_without_a_call_id_is_refused() -> None:
    data = valid()
    del data["messages"][2]["tool_call_id"]
    with pytest.raises(RecordError, match=r"\$\.messages\[2\]: a tool message needs a tool_call_id"):
        record_from_dict(data)


def test_non_json_values_are_refused() -> None:
    with pytest.raises(RecordError, match=r"not strict JSON: \$\.messages\[0\]\.score: float nan"):
        record_from_dict(changed(("messages", 0, "score"), math.nan))


def test_a_loaded_record_carrying_a_secret_is_refused() -> None:
    with pytest.raises(RecordError, match=r"carries a secret .*\$\.messages\[0\]\.metadata\.authorization"):
        record_from_dict(changed(("messages", 0, "metadata"), {"authorization": "Bearer abcdefghijkl"}))


def test_more_than_ten_thousand_messages_are_refused() -> None:
    data = changed(("messages",), [{"role": "user", "content": "hi"}] * 10_001)
    with pytest.raises(RecordError, match=r"\$\.messages: holds 10001 items, at most 10000"):
        record_from_dict(data)


def test_more_than_twenty_megabytes_of_json_are_refused() -> None:
    data = changed(("messages",), [{"role": "user", "content": "x" * 7_000_000} for _ in range(3)])
    with pytest.raises(RecordError, match=r"the record is about 210\d{5} bytes of JSON, at most 20000000"):
        record_from_dict(data)


def test_an_unreadable_paused_turn_is_dropped_with_a_reason_and_the_messages_kept() -> None:
    data = changed(("paused_turn", "version"), 2)
    loaded = record_from_dict(data)
    assert loaded.record is not None
    assert loaded.record["paused_turn"] is None
    assert loaded.record["messages"] == data["messages"]
    assert loaded.notice is not None
    assert loaded.notice.startswith("the stored paused turn was dropped: the paused turn can't be restored: "
                                    "$.version: ")


def test_a_paused_turn_that_is_not_an_object_is_dropped_and_the_messages_kept() -> None:
    loaded = record_from_dict(changed(("paused_turn",), ["c2"]))
    assert loaded.record is not None
    assert loaded.record["paused_turn"] is None
    assert loaded.notice is not None
    assert "$: expected an object" in loaded.notice


def test_saving_refuses_a_message_that_could_not_be_loaded_back() -> None:
    record = record_of([{"role": "robot", "content": "hi"}], updated_at=NOW)
    with pytest.raises(RecordError, match=r"\$\.messages\[0\]\.role"):
        MemoryStore().save("k", record)


def test_the_check_a_save_runs_is_the_check_a_load_runs() -> None:
    record = record_of([{"role": "tool", "content": "orphan"}])
    with pytest.raises(RecordError) as on_save:
        check_record(record)
    assert read_record(record).refused == f"the stored conversation can't be used: {on_save.value}"
