from __future__ import annotations

import json
from typing import Any

from notebook_chat.engine import PausedTurn
from notebook_chat.persistence import capture_snapshot, check_restorable

from .conftest import paused_conversation


def snapshot_of(messages: list[dict[str, Any]]) -> PausedTurn:
    return capture_snapshot(messages[1], custom_context={}, tool_round_count=1)


def test_a_snapshot_matching_its_paused_message_is_restorable(conversation: list[dict[str, Any]]) -> None:
    check = check_restorable(snapshot_of(conversation), conversation)
    assert (check.ok, check.reason, check.assistant_index) == (True, None, 1)


def test_restore_is_refused_when_no_assistant_message_has_the_turn_id(
    conversation: list[dict[str, Any]],
) -> None:
    snapshot = snapshot_of(paused_conversation("turn_other"))
    check = check_restorable(snapshot, conversation)
    assert not check.ok
    assert check.reason == "no assistant message of turn 'turn_other'"


def test_restore_is_refused_when_a_call_no_longer_awaits(conversation: list[dict[str, Any]]) -> None:
    snapshot = snapshot_of(conversation)
    conversation[1]["state"]["tool_calls"]["c3"]["status"] = "success"
    check = check_restorable(snapshot, conversation)
    assert not check.ok
    assert check.reason is not None
    assert check.reason.startswith("the awaiting calls differ:")
    assert "no longer awaiting: c3; newly awaiting: none" in check.reason


def test_restore_is_refused_when_an_extra_call_awaits(conversation: list[dict[str, Any]]) -> None:
    snapshot = snapshot_of(conversation)
    conversation[1]["state"]["tool_calls"]["c1"]["status"] = "awaiting-approval"
    check = check_restorable(snapshot, conversation)
    assert check.reason is not None
    assert "newly awaiting: c1" in check.reason


def test_restore_is_refused_when_the_arguments_changed(conversation: list[dict[str, Any]]) -> None:
    snapshot = snapshot_of(conversation)
    conversation[1]["tool_calls"][2]["function"]["arguments"] = json.dumps({"table": "everything"})
    check = check_restorable(snapshot, conversation)
    assert (check.ok, check.reason) == (False, "the arguments of call 'c3' changed since the turn paused")


def test_restore_is_refused_when_the_tool_name_changed(conversation: list[dict[str, Any]]) -> None:
    snapshot = snapshot_of(conversation)
    conversation[1]["tool_calls"][1]["function"]["name"] = "drop_database"
    check = check_restorable(snapshot, conversation)
    assert check.reason == "the arguments of call 'c2' changed since the turn paused"


def test_restore_is_refused_when_recorded_edited_arguments_differ(conversation: list[dict[str, Any]]) -> None:
    snapshot = snapshot_of(conversation)
    conversation[1]["state"]["tool_calls"]["c2"]["arguments_edited"] = "{}"
    assert check_restorable(snapshot, conversation).reason == (
        "the arguments of call 'c2' changed since the turn paused"
    )


def test_restore_is_refused_when_an_awaiting_call_already_has_a_result(
    conversation: list[dict[str, Any]],
) -> None:
    snapshot = snapshot_of(conversation)
    conversation.append({"role": "tool", "tool_call_id": "c2", "content": "deleted"})
    assert check_restorable(snapshot, conversation).reason == "call 'c2' already has a tool result"


def test_restore_is_refused_when_the_conversation_went_on(conversation: list[dict[str, Any]]) -> None:
    snapshot = snapshot_of(conversation)
    conversation.append({"role": "user", "content": "never mind"})
    check = check_restorable(snapshot, conversation)
    assert check.reason == "the conversation went on after the turn paused (message 3 is a user message)"
    assert check.assistant_index == 1


def test_malformed_messages_give_a_reason_instead_of_an_exception() -> None:
    snapshot = snapshot_of(paused_conversation())
    messages: list[Any] = ["junk", {"role": "assistant", "state": "bad"}, None]
    assert check_restorable(snapshot, messages).reason == "no assistant message of turn 'turn_1'"
