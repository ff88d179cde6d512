"""History invariants: every rule is reported with its index, and repair makes any history valid."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from notebook_chat.engine.errors import HistoryError
from notebook_chat.engine.history import (
    OUTCOME_UNKNOWN,
    SYSTEM_NOTE_PREFIX,
    Violation,
    assert_valid,
    drop_temp,
    prepare_for_request,
    repair,
    validate,
)

Msg = dict[str, Any]


def call(call_id: str, name: str = "run", arguments: Any = "{}") -> Msg:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def asst(*calls: Msg, content: str | None = None, **extra: Any) -> Msg:
    message: Msg = {"role": "assistant", "content": content, **extra}
    if calls:
        message["tool_calls"] = list(calls)
    return message


def result(call_id: str, content: str = "ok", **extra: Any) -> Msg:
    return {"role": "tool", "tool_call_id": call_id, "content": content, **extra}


def user(text: str = "hi", **extra: Any) -> Msg:
    return {"role": "user", "content": text, **extra}


def rules(messages: list[Msg]) -> list[tuple[int, str]]:
    return [(violation.index, violation.rule) for violation in validate(messages)]


# ------------------------------------------------------------------------------------------------- validate


def test_a_well_formed_history_with_engine_fields_has_no_violations() -> None:
    history = [
        {"role": "system", "content": "be brief", "id": "m0"},
        user(id="m1", metadata={"hidden": False}),
        asst(call("a"), call("b"), id="m2", state={"a": "success"}),
        result("a", id="m3"),
        result("b", id="m4"),
        asst(content="done", id="m5"),
    ]
    assert validate(history) == []


def test_an_unknown_role_is_reported_at_its_index() -> None:
    assert rules([user(), {"role": "function", "content": "x"}]) == [(1, "role")]


def test_a_system_message_after_index_zero_is_reported() -> None:
    history = [{"role": "system", "content": "a"}, user(), {"role": "system", "content": "b"}]
    assert rules(history) == [(2, "system")]


def test_a_call_without_a_result_is_reported_on_the_assistant_message() -> None:
    found = validate([user(), asst(call("a"), call("b")), result("a"), user("next")])
    assert found == [Violation(1, "missing-result", "no tool message answers b")]


def test_a_message_between_a_call_and_its_result_is_reported_as_missing_and_orphan() -> None:
    assert rules([user(), asst(call("a")), user("in between"), result("a")]) == [
        (1, "missing-result"), (3, "orphan-result"),
    ]


def test_a_second_result_for_the_same_call_is_reported() -> None:
    assert rules([user(), asst(call("a")), result("a"), result("a")]) == [(3, "duplicate-result")]


def test_a_result_for_a_call_of_another_block_is_reported_as_orphan() -> None:
    assert rules([user(), asst(call("a")), result("a"), result("zzz")]) == [(3, "orphan-result")]


def test_a_tool_message_with_no_call_before_it_is_reported_as_orphan() -> None:
    assert rules([user(), result("a")]) == [(1, "orphan-result")]


def test_an_empty_tool_call_id_is_reported() -> None:
    assert rules([user(), asst(call(""))]) == [(1, "tool-call-id")]


def test_a_tool_call_id_used_twice_in_the_conversation_is_reported_where_it_repeats() -> None:
    history = [user(), asst(call("a")), result("a"), asst(call("a")), result("a")]
    assert rules(history) == [(3, "tool-call-id")]


@pytest.mark.parametrize("arguments", ["", None, "[1]", "not json", "3", {"x": 1}])
def test_arguments_that_are_not_a_json_object_string_are_reported(arguments: Any) -> None:
    assert rules([user(), asst(call("a", arguments=arguments)), result("a")]) == [(1, "arguments")]


def test_a_call_without_a_function_name_is_reported() -> None:
    history = [user(), asst({"id": "a", "type": "function", "function": {"arguments": "{}"}}), result("a")]
    assert rules(history) == [(1, "tool-call")]


def test_an_empty_tool_calls_list_is_reported() -> None:
    assert rules([user(), {"role": "assistant", "content": "x", "tool_calls": []}]) == [(1, "tool-call")]


def test_a_partly_temp_unit_is_reported() -> None:
    history = [user(), asst(call("a"), call("b"), temp=True), result("a", temp=True), result("b")]
    assert rules(history) == [(1, "temp-unit")]


def test_every_violation_is_reported_not_only_the_first() -> None:
    history = [user(), result("x"), asst(call("", arguments="[")), {"role": "system", "content": "late"}]
    assert rules(history) == [(1, "orphan-result"), (2, "arguments"), (2, "tool-call-id"), (3, "system")]


def test_a_pending_call_may_stay_unanswered_only_in_the_last_block() -> None:
    paused = [user(), asst(call("a"), call("b")), result("a")]
    assert validate(paused, pending={"b"}) == []
    assert rules([*paused, user("later")]) == [(1, "missing-result")]


def test_assert_valid_raises_a_history_error_listing_each_violation() -> None:
    with pytest.raises(HistoryError, match=r"2 provider rule\(s\):\n  \[0\] orphan-result.*\n  \[1\] role"):
        assert_valid([result("a"), {"role": "robot"}])


# ------------------------------------------------------------------------------------- prepare_for_request


def test_a_call_left_dangling_by_a_stop_gets_an_outcome_unknown_result() -> None:
    prepared = prepare_for_request([user(), asst(call("a"))])
    assert prepared[-1] == {"role": "tool", "tool_call_id": "a", "content": OUTCOME_UNKNOWN}


def test_a_crash_mid_round_answers_only_the_unanswered_call_after_the_existing_results() -> None:
    history = [user(), asst(call("a"), call("b"), call("c")), result("a", "A"), result("c", "C"),
               user("go on")]
    prepared = prepare_for_request(history)
    assert [(m["role"], m.get("tool_call_id"), m["content"]) for m in prepared[2:]] == [
        ("tool", "a", "A"), ("tool", "c", "C"), ("tool", "b", OUTCOME_UNKNOWN), ("user", None, "go on"),
    ]


def test_an_orphan_result_is_dropped() -> None:
    assert prepare_for_request([user(), result("ghost"), asst(content="hello")]) == [
        user(), asst(content="hello"),
    ]


def test_a_duplicate_result_is_dropped_and_the_first_answer_wins() -> None:
    prepared = prepare_for_request([user(), asst(call("a")), result("a", "first"), result("a", "second")])
    assert prepared[2:] == [result("a", "first")]


def test_a_result_separated_from_its_call_moves_back_into_the_call_block() -> None:
    prepared = prepare_for_request([user(), asst(call("a")), user("meanwhile"), result("a", "late")])
    assert prepared[1:] == [asst(call("a")), result("a", "late"), user("meanwhile")]


@pytest.mark.parametrize("arguments", ["", "   ", None])
def test_empty_arguments_become_an_empty_json_object(arguments: Any) -> None:
    prepared = prepare_for_request([user(), asst(call("a", arguments=arguments)), result("a")])
    assert prepared[1]["tool_calls"][0]["function"]["arguments"] == "{}"


@pytest.mark.parametrize("arguments", ["[1]", "not json", "3"])
def test_arguments_that_are_not_a_json_object_are_kept_as_raw_text(arguments: str) -> None:
    prepared = prepare_for_request([user(), asst(call("a", arguments=arguments)), result("a")])
    assert json.loads(prepared[1]["tool_calls"][0]["function"]["arguments"]) == {"_raw": arguments}


def test_a_json_object_arguments_string_is_kept_byte_for_byte() -> None:
    arguments = '{ "b": 2,  "a": 1 }'
    prepared = prepare_for_request([user(), asst(call("a", arguments=arguments)), result("a")])
    assert prepared[1]["tool_calls"][0]["function"]["arguments"] == arguments


def test_engine_only_fields_are_stripped() -> None:
    history = [user(id="u", metadata={"x": 1}),
               asst(content="hi", id="m", state={}, loading=False, temp=False)]
    assert prepare_for_request(history) == [user(), asst(content="hi")]


def test_the_exclude_tuple_decides_which_fields_are_dropped() -> None:
    assert prepare_for_request([user(id="u", metadata={"x": 1})], exclude=("metadata",)) == [user(id="u")]


def test_an_empty_assistant_message_is_dropped() -> None:
    history = [user(), asst(content=""), asst(content=None), {"role": "assistant", "tool_calls": []},
               user("b")]
    assert prepare_for_request(history) == [user(), user("b")]


def test_the_first_system_message_leads_and_later_ones_become_user_notes_in_place() -> None:
    history = [user("a"), {"role": "system", "content": "rules"}, user("b"),
               {"role": "system", "content": "note"}]
    assert prepare_for_request(history) == [
        {"role": "system", "content": "rules"}, user("a"), user("b"), user(SYSTEM_NOTE_PREFIX + "note"),
    ]


def test_a_repeated_call_id_is_renamed_together_with_its_result() -> None:
    history = [user(), asst(call("a")), result("a", "1"), asst(call("a")), result("a", "2")]
    prepared = prepare_for_request(history)
    assert [prepared[3]["tool_calls"][0]["id"], prepared[4]["tool_call_id"], prepared[4]["content"]] == [
        "a_2", "a_2", "2",
    ]


def test_an_empty_call_id_gets_a_fresh_id_and_an_outcome_unknown_result() -> None:
    prepared = prepare_for_request([user(), asst(call(""))])
    assert prepared[1:] == [
        asst(call("call_1_0")), {"role": "tool", "tool_call_id": "call_1_0", "content": OUTCOME_UNKNOWN},
    ]


def test_prepare_never_mutates_its_input() -> None:
    history = [
        {"role": "system", "content": "s"}, user(id="u"), asst(call("a", arguments=""), call("b"), id="x"),
        result("b"), user("x"), result("a"), result("a"), {"role": "system", "content": "late"},
    ]
    before = copy.deepcopy(history)
    prepared = prepare_for_request(history)
    prepared[2]["tool_calls"][0]["function"]["name"] = "changed"
    assert history == before


def test_a_valid_history_passes_through_unchanged_apart_from_engine_fields() -> None:
    history = [
        {"role": "system", "content": "s"}, user(), asst(call("a"), call("b"), content="let me look"),
        result("b"), result("a"), asst(content="done", reasoning_content="because"),
    ]
    assert prepare_for_request(history) == history


def test_prepare_is_idempotent() -> None:
    history = [user(), asst(call("a"), call("a")), result("a"), user("x"), result("a"), result("q")]
    once = prepare_for_request(history)
    assert prepare_for_request(once) == once


def test_a_partly_temp_unit_becomes_a_real_unit_rather_than_losing_messages() -> None:
    history = [user(), asst(call("a"), temp=True), result("a")]
    assert [m.get("temp") for m in repair(history)] == [None, None, None]


def test_temp_units_are_sent_to_the_provider_without_the_temp_flag() -> None:
    history = [user(), asst(call("t"), temp=True), result("t", temp=True)]
    assert prepare_for_request(history) == [user(), asst(call("t")), result("t")]


# ---------------------------------------------------------------------------------------- repair, drop_temp


def test_repair_keeps_ids_and_state_and_marks_synthetic_results() -> None:
    history = [user(id="u1"), asst(call("a"), id="m1", state={"tool_calls": {"a": "cancelled"}})]
    repaired = repair(history)
    assert repaired == [
        user(id="u1"),
        asst(call("a"), id="m1", state={"tool_calls": {"a": "cancelled"}}),
        {"id": "msg_synthetic_a", "role": "tool", "tool_call_id": "a", "content": OUTCOME_UNKNOWN,
         "metadata": {"synthetic": True, "tool_name": "run"}},
    ]


def test_repair_leaves_a_pending_call_of_the_last_block_unanswered() -> None:
    paused = [user(), asst(call("a"), call("b")), result("a")]
    assert repair(paused, pending={"b"}) == paused


def test_drop_temp_removes_whole_temp_units_and_temp_messages() -> None:
    history = [
        user("q"), user("context", temp=True), asst(call("t"), temp=True), result("t", temp=True),
        asst(call("r")), result("r"), asst(content="answer"),
    ]
    assert drop_temp(history) == [user("q"), asst(call("r")), result("r"), asst(content="answer")]


def test_drop_temp_rechecks_pairing_after_removing_temp_messages() -> None:
    history = [user(), asst(call("a"), call("b"), temp=True), result("a", temp=True), result("b", temp=True),
               user("temp result lost", temp=True), result("a", "stray duplicate")]
    assert drop_temp(history) == [user()]


# ------------------------------------------------------------------------------------- a reply that only reasoned

@pytest.mark.parametrize("content", [None, "", []])
def test_repair_keeps_a_reply_that_only_reasoned_and_a_request_leaves_it_out(content: Any) -> None:
    thought = asst(content=content, reasoning_content="weighing the options", state={"interrupted": True})
    history = [user(), thought, user("go on")]
    assert repair(history) == history
    assert drop_temp(history) == history
    assert prepare_for_request(history) == [user(), user("go on")]


def test_a_reply_with_neither_content_nor_reasoning_is_still_dropped_by_repair() -> None:
    assert repair([user(), asst(content="", reasoning_content=""), user("go on")]) == [user(), user("go on")]
