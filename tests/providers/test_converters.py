"""Payload converters: one prepared history → OpenAI Chat, OpenAI Responses, Anthropic and Gemini payloads."""

from __future__ import annotations

from typing import Any

import pytest

from notebook_chat.engine.errors import HistoryError
from notebook_chat.engine.history import OUTCOME_UNKNOWN, prepare_for_request
from notebook_chat.providers.converters import (
    check_anthropic,
    check_chat,
    check_gemini,
    check_responses,
    to_anthropic,
    to_chat_messages,
    to_gemini,
    to_responses_input,
    tools_to_anthropic,
    tools_to_gemini,
    tools_to_responses,
)
from notebook_chat.providers.converters._common import CONTINUATION_PLACEHOLDER

Msg = dict[str, Any]


def call(call_id: str, name: str, arguments: str = "{}") -> Msg:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


# Parallel calls, consecutive results, user text right after the results, a second round, an answer.
HISTORY: list[Msg] = [
    {"role": "system", "content": "You analyse data."},
    {"role": "user", "content": "Describe df and plot it"},
    {"role": "assistant", "content": "Looking.", "reasoning_content": "two tools",
     "tool_calls": [call("c1", "describe", '{"name": "df"}'), call("c2", "plot", "{}")]},
    {"role": "tool", "tool_call_id": "c1", "content": "3 rows"},
    {"role": "tool", "tool_call_id": "c2", "content": "figure 1"},
    {"role": "user", "content": "also the mean"},
    {"role": "assistant", "content": None, "tool_calls": [call("c3", "mean", '{"column": "x"}')]},
    {"role": "tool", "tool_call_id": "c3", "content": "2.5"},
    {"role": "assistant", "content": "Mean is 2.5."},
]

TOOLS: list[Msg] = [
    {"type": "function", "function": {
        "name": "describe", "description": "Describe a frame",
        "parameters": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"],
                       "additionalProperties": False},
        "strict": True,
    }},
    {"type": "function", "function": {"name": "plot", "parameters": {"type": "object", "properties": {}}}},
]


# ------------------------------------------------------------------------------------------------------ chat


def test_chat_messages_are_the_prepared_history_without_reasoning_by_default() -> None:
    expected = [dict(message) for message in HISTORY]
    expected[2].pop("reasoning_content")
    assert to_chat_messages(HISTORY) == expected


def test_chat_keeps_reasoning_content_only_on_assistant_messages_when_asked() -> None:
    history = [{"role": "user", "content": "q", "reasoning_content": "x"}, *HISTORY[2:5]]
    converted = to_chat_messages(history, include_reasoning=True)
    assert [message.get("reasoning_content") for message in converted] == [None, "two tools", None, None]


def test_check_chat_reports_unanswered_calls_with_openais_text() -> None:
    with pytest.raises(HistoryError, match="The following tool_call_ids did not have response messages: c2"):
        check_chat([HISTORY[1], HISTORY[2], HISTORY[3], HISTORY[5]])


def test_check_chat_reports_a_tool_message_without_a_call_with_openais_text() -> None:
    with pytest.raises(HistoryError, match="must be a response to a preceeding message with 'tool_calls'"):
        check_chat([HISTORY[1], HISTORY[3]])


# ------------------------------------------------------------------------------------------------- responses


def test_responses_input_has_typed_message_items_then_one_item_per_call_and_per_output() -> None:
    assert to_responses_input(HISTORY) == [
        {"type": "message", "role": "developer", "content": "You analyse data."},
        {"type": "message", "role": "user", "content": "Describe df and plot it"},
        {"type": "message", "role": "assistant", "content": "Looking."},
        {"type": "function_call", "call_id": "c1", "name": "describe", "arguments": '{"name": "df"}'},
        {"type": "function_call", "call_id": "c2", "name": "plot", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "3 rows"},
        {"type": "function_call_output", "call_id": "c2", "output": "figure 1"},
        {"type": "message", "role": "user", "content": "also the mean"},
        {"type": "function_call", "call_id": "c3", "name": "mean", "arguments": '{"column": "x"}'},
        {"type": "function_call_output", "call_id": "c3", "output": "2.5"},
        {"type": "message", "role": "assistant", "content": "Mean is 2.5."},
    ]


def test_tools_become_flat_responses_function_tools() -> None:
    assert tools_to_responses(TOOLS) == [
        {"type": "function", "name": "describe", "description": "Describe a frame",
         "parameters": TOOLS[0]["function"]["parameters"], "strict": True},
        {"type": "function", "name": "plot", "parameters": {"type": "object", "properties": {}}},
    ]


def test_a_tool_that_is_not_a_function_is_refused_with_its_position() -> None:
    with pytest.raises(ValueError, match=r"tools\[1\] is not a function tool"):
        tools_to_anthropic([TOOLS[0], {"type": "web_search"}])


def test_check_responses_reports_a_call_without_output_with_the_apis_text() -> None:
    items = to_responses_input(HISTORY[:4])
    with pytest.raises(HistoryError, match="No tool output found for function call c2"):
        check_responses(items)


def test_check_responses_reports_an_output_without_call_with_the_apis_text() -> None:
    with pytest.raises(HistoryError, match="No tool call found for function call output with call_id c9"):
        check_responses([{"role": "user", "content": "q"},
                         {"type": "function_call_output", "call_id": "c9", "output": "x"}])


# ------------------------------------------------------------------------------------------------- anthropic


def test_anthropic_hoists_the_system_and_puts_results_first_in_one_user_message() -> None:
    system, messages = to_anthropic(HISTORY)
    assert system == "You analyse data."
    assert messages == [
        {"role": "user", "content": [{"type": "text", "text": "Describe df and plot it"}]},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Looking."},
            {"type": "tool_use", "id": "c1", "name": "describe", "input": {"name": "df"}},
            {"type": "tool_use", "id": "c2", "name": "plot", "input": {}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "c1", "content": "3 rows"},
            {"type": "tool_result", "tool_use_id": "c2", "content": "figure 1"},
            {"type": "text", "text": "also the mean"},
        ]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "c3", "name": "mean", "input": {"column": "x"}},
        ]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c3", "content": "2.5"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Mean is 2.5."}]},
    ]


def test_anthropic_merges_consecutive_same_role_messages() -> None:
    _, messages = to_anthropic([{"role": "user", "content": "a"}, {"role": "user", "content": "b"},
                                {"role": "assistant", "content": "c"}, {"role": "assistant", "content": "d"}])
    assert [(m["role"], [block["text"] for block in m["content"]]) for m in messages] == [
        ("user", ["a", "b"]), ("assistant", ["c", "d"]),
    ]


def test_anthropic_starts_with_a_user_message_even_when_the_history_does_not() -> None:
    history = [{"role": "system", "content": "s"}, {"role": "assistant", "content": "Hello!"}]
    _, messages = to_anthropic(history)
    assert messages[0] == {"role": "user", "content": [{"type": "text", "text": CONTINUATION_PLACEHOLDER}]}


def test_tools_become_anthropic_tools_with_an_input_schema() -> None:
    assert tools_to_anthropic(TOOLS) == [
        {"name": "describe", "description": "Describe a frame",
         "input_schema": TOOLS[0]["function"]["parameters"]},
        {"name": "plot", "input_schema": {"type": "object", "properties": {}}},
    ]


def test_check_anthropic_reports_tool_use_without_results_immediately_after() -> None:
    _, messages = to_anthropic(HISTORY[1:3])
    messages.append({"role": "user", "content": [{"type": "text", "text": "hm"}]})
    expected = (r"`tool_use` ids were found without `tool_result` blocks immediately after: c1, c2\. "
                r"Each `tool_use` block must have a corresponding")
    with pytest.raises(HistoryError, match=expected):
        check_anthropic(None, messages)


def test_check_anthropic_reports_results_that_are_not_first_in_the_user_message() -> None:
    _, messages = to_anthropic(HISTORY[1:5])
    messages[2]["content"].insert(0, {"type": "text", "text": "first"})
    with pytest.raises(HistoryError, match="`tool_result` blocks must come first"):
        check_anthropic(None, messages)


def test_check_anthropic_reports_two_user_messages_in_a_row() -> None:
    with pytest.raises(HistoryError, match='found multiple "user" roles in a row'):
        check_anthropic(None, [{"role": "user", "content": [{"type": "text", "text": "a"}]},
                               {"role": "user", "content": [{"type": "text", "text": "b"}]}])


# ---------------------------------------------------------------------------------------------------- gemini


def test_gemini_results_carry_the_function_name_of_their_call() -> None:
    system, contents = to_gemini(HISTORY)
    assert system == {"parts": [{"text": "You analyse data."}]}
    assert contents == [
        {"role": "user", "parts": [{"text": "Describe df and plot it"}]},
        {"role": "model", "parts": [
            {"text": "Looking."},
            {"functionCall": {"name": "describe", "args": {"name": "df"}}},
            {"functionCall": {"name": "plot", "args": {}}},
        ]},
        {"role": "user", "parts": [
            {"functionResponse": {"name": "describe", "response": {"output": "3 rows"}}},
            {"functionResponse": {"name": "plot", "response": {"output": "figure 1"}}},
            {"text": "also the mean"},
        ]},
        {"role": "model", "parts": [{"functionCall": {"name": "mean", "args": {"column": "x"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "mean", "response": {"output": "2.5"}}}]},
        {"role": "model", "parts": [{"text": "Mean is 2.5."}]},
    ]


def test_gemini_takes_the_name_from_metadata_when_the_call_is_not_in_the_list() -> None:
    _, contents = to_gemini([{"role": "tool", "tool_call_id": "x", "content": "r",
                              "metadata": {"tool_name": "lookup"}}])
    assert contents == [{"role": "user", "parts": [{"functionResponse": {"name": "lookup",
                                                                         "response": {"output": "r"}}}]}]


def test_a_synthetic_result_is_named_after_its_call_for_gemini() -> None:
    prepared = prepare_for_request([HISTORY[1], {**HISTORY[6], "id": "m"}])
    _, contents = to_gemini(prepared)
    assert contents[-1] == {"role": "user", "parts": [
        {"functionResponse": {"name": "mean", "response": {"output": OUTCOME_UNKNOWN}}},
    ]}


def test_gemini_tools_drop_unsupported_schema_keys_and_empty_parameters() -> None:
    assert tools_to_gemini(TOOLS) == [{"functionDeclarations": [
        {"name": "describe", "description": "Describe a frame",
         "parameters": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}},
        {"name": "plot"},
    ]}]


def test_check_gemini_reports_fewer_responses_than_calls_with_geminis_text() -> None:
    _, contents = to_gemini(HISTORY[1:5])
    contents[2]["parts"].pop(1)
    with pytest.raises(HistoryError, match="number of function response parts is equal to the number"):
        check_gemini(None, contents)


def test_check_gemini_reports_a_response_turn_that_does_not_follow_a_call_turn() -> None:
    contents = [{"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"output": ""}}}]}]
    with pytest.raises(HistoryError, match="response turn comes immediately after a function call turn"):
        check_gemini(None, contents)


# ------------------------------------------------------------------------------------------- all providers


def test_every_provider_check_accepts_the_converted_history() -> None:
    check_chat(to_chat_messages(HISTORY))
    check_responses(to_responses_input(HISTORY))
    check_anthropic(*to_anthropic(HISTORY))
    check_gemini(*to_gemini(HISTORY))
    sizes = [len(to_chat_messages(HISTORY)), len(to_anthropic(HISTORY)[1]), len(to_gemini(HISTORY)[1])]
    assert sizes == [9, 6, 6]
