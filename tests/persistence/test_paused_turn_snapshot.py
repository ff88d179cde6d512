from __future__ import annotations

import hashlib
from typing import Any

import pytest

from notebook_chat.persistence import RecordError, call_hash, capture_snapshot, check_paused_turn

from .conftest import paused_message


def valid() -> dict[str, Any]:
    return {
        "version": 1,
        "turn_id": "turn_1",
        "tool_call_ids": ["c2", "c3"],
        "custom_context": {"rows": [1, 2], "note": "x"},
        "tool_round_count": 2,
        "call_hashes": {"c2": call_hash("delete_rows", "{}"), "c3": call_hash("delete_rows", '{"a": 1}')},
    }


def with_field(name: str, value: Any) -> dict[str, Any]:
    data = valid()
    data[name] = value
    return data


def test_call_hash_is_sha256_of_the_canonical_json_of_name_and_arguments() -> None:
    expected = hashlib.sha256(b'["delete_rows","{\\"a\\": 1}"]').hexdigest()
    assert call_hash("delete_rows", '{"a": 1}') == expected


def test_a_valid_snapshot_is_accepted_as_it_is_keeping_the_call_order() -> None:
    data = valid()
    data["tool_call_ids"] = ["c3", "c2"]
    assert check_paused_turn(data) == data


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (["not", "an", "object"], r"\$: expected an object"),
        (with_field("version", 2), r"\$\.version: .*version 2, written by a newer notebook_chat"),
        (with_field("version", "1"), r"\$\.version: .*must be an integer"),
        (with_field("version", True), r"\$\.version: .*must be an integer"),
        (with_field("surprise", 1), r"\$: unknown field\(s\) 'surprise'"),
        (with_field("turn_id", ""), r"\$\.turn_id: must not be empty"),
        (with_field("turn_id", 7), r"\$\.turn_id: expected a string"),
        (with_field("turn_id", "t" * 201), r"\$\.turn_id: is 201 characters long, at most 200"),
        (with_field("tool_call_ids", "c2"), r"\$\.tool_call_ids: expected a list"),
        (with_field("tool_call_ids", []), r"\$\.tool_call_ids: a paused turn awaits at least one call"),
        (with_field("tool_call_ids", ["c2", "c2"]), r"\$\.tool_call_ids: holds the same id twice"),
        (with_field("tool_call_ids", ["c2", 3]), r"\$\.tool_call_ids\[1\]: expected a string"),
        (with_field("tool_call_ids", [f"c{i}" for i in range(257)]), r"257 items, at most 256"),
        (with_field("tool_call_ids", ["c" * 201]), r"\$\.tool_call_ids\[0\]: is 201 characters long"),
        (with_field("custom_context", [1]), r"\$\.custom_context: expected an object"),
        (with_field("custom_context", {"x": {"y": float("nan")}}), r"\$\.custom_context\.x\.y: float nan"),
        (with_field("custom_context", {"api_key": "sk-1"}), r"\$\.custom_context\.api_key: .*credential"),
        (
            with_field("custom_context", {"blob": "x" * 1_000_001}),
            r"\$\.custom_context: is about \d+ bytes of JSON",
        ),
        (with_field("tool_round_count", -1), r"\$\.tool_round_count: -1 is outside"),
        (with_field("tool_round_count", 1.0), r"\$\.tool_round_count: expected an integer"),
        (with_field("call_hashes", {"c2": "0" * 64}), r"\$\.call_hashes: .*missing: \['c3'\]"),
        (with_field("call_hashes", {"c2": "0" * 64, "c3": "0" * 64, "c9": "0" * 64}), r"extra: \['c9'\]"),
        (
            with_field("call_hashes", {"c2": "0" * 64, "c3": "XYZ"}),
            r"\$\.call_hashes\['c3'\]: expected a lowercase",
        ),
        (with_field("paused_at", "yesterday"), r"\$\.paused_at: expected an ISO-8601 UTC timestamp"),
        (with_field("paused_at", "2024-05-01T12:00:00+02:00"), r"\$\.paused_at: expected an ISO-8601 UTC"),
    ],
)
def test_each_bad_field_is_refused_with_a_reason(data: Any, reason: str) -> None:
    with pytest.raises((RecordError, ValueError), match=reason):
        check_paused_turn(data)


def test_capture_copies_the_context_as_strict_json() -> None:
    context: dict[str, Any] = {"rows": (1, 2)}
    snapshot = capture_snapshot(paused_message(), custom_context=context, tool_round_count=0)
    context["rows"] = "changed"
    assert snapshot["custom_context"] == {"rows": [1, 2]}
    with pytest.raises(ValueError, match=r"\$\.custom_context\.fn: function"):
        capture_snapshot(paused_message(), custom_context={"fn": lambda: 1}, tool_round_count=0)


def test_capture_takes_the_awaiting_calls_in_tool_call_order_with_their_hashes() -> None:
    message = paused_message("turn_9")
    snapshot = capture_snapshot(message, custom_context={"step": 1}, tool_round_count=3)
    assert snapshot["turn_id"] == "turn_9"
    assert snapshot["tool_call_ids"] == ["c2", "c3"]
    assert snapshot["call_hashes"]["c2"] == call_hash(
        "delete_rows", message["tool_calls"][1]["function"]["arguments"]
    )
    assert snapshot["tool_round_count"] == 3
    assert check_paused_turn(snapshot) == snapshot


def test_a_snapshot_of_a_message_that_awaits_nothing_is_refused() -> None:
    message = paused_message(statuses={"c1": "success", "c2": "success", "c3": "denied"})
    with pytest.raises(RecordError, match="at least one call"):
        check_paused_turn(capture_snapshot(message, custom_context={}, tool_round_count=1))
