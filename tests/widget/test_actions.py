import re
from pathlib import Path
from typing import Any

import pytest

from notebook_chat.widget.actions import ACTIONS, ActionError, parse_action

VALID: dict[str, dict[str, Any]] = {
    "ready": {"kind": "ready", "notebook": True, "cell_id": "c1", "record": {"messages": []},
              "locale": "zh-CN", "writer": True, "record_gzip": False},
    "send": {"kind": "send", "text": "hello", "temp_mentions": True},
    "stop": {"kind": "stop"},
    "approve": {"kind": "approve", "tool_call_id": "call_1", "arguments": '{"x": 1}'},
    "deny": {"kind": "deny", "tool_call_id": "call_1", "reason": "not now"},
    "continue": {"kind": "continue", "instruction": "go on"},
    "persisted": {"kind": "persisted", "key": "k", "ok": False, "error": "disk full", "revision": "a1-3",
                  "stale": False},
    "skill": {"kind": "skill", "name": "pandas-cleaning", "active": False},
    "retry": {"kind": "retry", "shorter": True},
    "remove_message": {"kind": "remove_message", "message_id": "msg_1"},
    "edit_and_resend": {"kind": "edit_and_resend", "message_id": "msg_1", "text": "shorter"},
    "complete_mentions": {"kind": "complete_mentions", "prefix": "df"},
    "view_resync": {"kind": "view_resync"},
    "view_older": {"kind": "view_older", "before": "m1"},
    "new_conversation": {"kind": "new_conversation", "title": "Plots"},
    "switch_conversation": {"kind": "switch_conversation", "conversation_id": "c1"},
    "rename_conversation": {"kind": "rename_conversation", "conversation_id": "c1", "title": "Sales"},
    "delete_conversation": {"kind": "delete_conversation", "conversation_id": "c1"},
    "clear_conversation": {"kind": "clear_conversation"},
    "export_conversation": {"kind": "export_conversation", "conversation_id": None, "format": "cells"},
    "command": {"kind": "command", "name": "note", "argument": "buy milk"},
}


def test_an_export_in_an_unknown_format_is_rejected_naming_the_formats() -> None:
    with pytest.raises(ActionError, match="field 'format' must be one of markdown, cells"):
        parse_action({"kind": "export_conversation", "format": "pdf"})


def test_every_kind_in_the_table_has_a_valid_example_here() -> None:
    assert set(VALID) == set(ACTIONS)


@pytest.mark.parametrize("kind", sorted(VALID))
def test_a_valid_action_of_every_kind_parses_to_its_payload(kind: str) -> None:
    content = {**VALID[kind], "request_id": "r1"}
    action = parse_action(content)
    expected = {name: value for name, value in VALID[kind].items() if name != "kind"}
    assert (action.kind, action.payload, action.request_id) == (kind, expected, "r1")


def test_optional_fields_default_to_none_when_absent() -> None:
    action = parse_action({"kind": "approve", "tool_call_id": "call_1"})
    assert action.payload == {"tool_call_id": "call_1", "arguments": None}


def test_optional_fields_accept_null() -> None:
    action = parse_action({"kind": "ready", "notebook": False, "cell_id": None, "record": None})
    assert action.payload == {"notebook": False, "cell_id": None, "record": None, "locale": None, "writer": None,
                              "record_gzip": None}


def test_an_unknown_kind_is_rejected_naming_the_known_kinds() -> None:
    known = r"unknown action kind 'explode' \(known: approve, clear_conversation, command, complete_mentions, continue"
    with pytest.raises(ActionError, match=known):
        parse_action({"kind": "explode"})


def test_a_message_that_is_not_an_object_is_rejected() -> None:
    with pytest.raises(ActionError, match="must be a JSON object, got list"):
        parse_action(["send", "hi"])


def test_a_missing_required_field_is_rejected() -> None:
    with pytest.raises(ActionError, match="deny: missing field 'tool_call_id'"):
        parse_action({"kind": "deny", "reason": "no"})


def test_an_unexpected_field_is_rejected() -> None:
    with pytest.raises(ActionError, match="send: unexpected field"):
        parse_action({"kind": "send", "text": "hi", "model": "gpt"})


def test_a_wrong_type_is_rejected_with_both_types_named() -> None:
    with pytest.raises(ActionError, match="send: field 'text' must be str, got int"):
        parse_action({"kind": "send", "text": 42})


def test_an_integer_is_not_accepted_where_a_boolean_is_expected() -> None:
    with pytest.raises(ActionError, match="field 'notebook' must be bool, got int"):
        parse_action({"kind": "ready", "notebook": 1})


def test_null_is_rejected_for_a_required_field() -> None:
    with pytest.raises(ActionError, match="field 'tool_call_id' must not be null"):
        parse_action({"kind": "approve", "tool_call_id": None})


def test_blank_text_is_not_sent() -> None:
    with pytest.raises(ActionError, match="field 'text' must not be empty"):
        parse_action({"kind": "send", "text": "  \n "})


def test_an_empty_tool_call_id_is_rejected() -> None:
    with pytest.raises(ActionError, match="field 'tool_call_id' must not be empty"):
        parse_action({"kind": "deny", "tool_call_id": ""})


def test_edited_arguments_that_are_not_json_are_rejected() -> None:
    with pytest.raises(ActionError, match="approve: arguments is not valid JSON"):
        parse_action({"kind": "approve", "tool_call_id": "c", "arguments": "{x: 1"})


def test_edited_arguments_must_be_a_json_object() -> None:
    with pytest.raises(ActionError, match="approve: arguments must be a JSON object"):
        parse_action({"kind": "approve", "tool_call_id": "c", "arguments": "[1, 2]"})


def test_an_overlong_text_is_rejected() -> None:
    with pytest.raises(ActionError, match="longer than 1000000 characters"):
        parse_action({"kind": "send", "text": "x" * 1_000_001})


def test_a_bad_payload_keeps_its_request_id_for_the_answer() -> None:
    with pytest.raises(ActionError) as caught:
        parse_action({"kind": "send", "text": 3, "request_id": "r9"})
    assert caught.value.request_id == "r9"


def test_a_request_id_that_is_not_a_string_is_rejected() -> None:
    with pytest.raises(ActionError, match="request_id must be a string"):
        parse_action({"kind": "stop", "request_id": 7})


ACTIONS_JS = Path(__file__).resolve().parents[2] / "js" / "widget" / "src" / "actions.js"


def js_action_table() -> dict[str, list[str]]:
    """`export const ACTIONS = { kind: ["field", ...], ... };` read from the front end's source."""
    source = ACTIONS_JS.read_text(encoding="utf-8")
    body = re.search(r"export const ACTIONS = \{(.*?)\};", source, re.S)
    assert body, "js/widget/src/actions.js has no `export const ACTIONS = {...};` table"
    rows = re.findall(r"^\s*([\w$]+|\"[^\"]+\")\s*:\s*\[([^\]]*)\]", body.group(1), re.M)
    return {kind.strip('"'): re.findall(r"\"([^\"]+)\"", fields) for kind, fields in rows}


def test_the_browsers_action_table_names_the_same_kinds_and_fields_as_the_kernels() -> None:
    assert js_action_table() == {kind: list(spec.fields) for kind, spec in ACTIONS.items()}


def test_every_action_kind_is_documented_in_the_widget_protocol() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "widget-protocol.md").read_text(encoding="utf-8")
    for kind, spec in ACTIONS.items():
        assert f"`{kind}`" in doc
        for name in spec.fields:
            assert f"`{name}`" in doc
