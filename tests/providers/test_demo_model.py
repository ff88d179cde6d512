"""DemoModel: the offline provider streams deterministic OpenAI-shaped chunks, tool calls included."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any

import pytest
from openai.types.chat import ChatCompletionChunk

from notebook_chat.engine.errors import ProviderError
from notebook_chat.engine.provider import CancelHandle
from notebook_chat.plugins.tool_definition import tool
from notebook_chat.providers.demo import DemoModel


@tool
def get_weather(city: str, days: int = 1, unit: str = "celsius") -> str:
    """Get the current weather for a city."""
    return f"Sunny in {city}"


@tool
def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


@tool
def save_note(title: str, body: str, pinned: bool = False) -> str:
    """Store a note."""
    return "saved"


TOOLS = [get_weather.schema(), add.schema(), save_note.schema()]


@dataclass
class Streamed:
    chunks: list[dict[str, Any]]
    text: str = ""
    calls: dict[int, dict[str, Any]] = field(default_factory=dict)
    argument_fragments: dict[int, list[str]] = field(default_factory=dict)
    finish_reason: str | None = None


async def stream(body: dict[str, Any], *, cancel: CancelHandle | None = None, seed: int = 0) -> Streamed:
    chunks = [chunk async for chunk in await DemoModel(delay=0, seed=seed)(body, cancel or CancelHandle())]
    return collect(chunks)


def collect(chunks: list[dict[str, Any]]) -> Streamed:
    result = Streamed(chunks)
    for chunk in chunks:
        choice = chunk["choices"][0]
        result.text += choice["delta"].get("content") or ""
        for part in choice["delta"].get("tool_calls") or []:
            call = result.calls.setdefault(part["index"], {"arguments": ""})
            if "id" in part:
                call.update(id=part["id"], name=part["function"]["name"])
            else:
                result.argument_fragments.setdefault(part["index"], []).append(part["function"]["arguments"])
            call["arguments"] += part["function"]["arguments"]
        result.finish_reason = choice["finish_reason"] or result.finish_reason
    return result


def user(text: str, *, tools: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    offered = TOOLS if tools is None else tools
    return {"messages": [{"role": "user", "content": text}], "tools": offered, **extra}


def arguments(streamed: Streamed, index: int = 0) -> dict[str, Any]:
    return dict(json.loads(streamed.calls[index]["arguments"]))


def test_label_names_the_offline_demo_model() -> None:
    assert DemoModel().label == "DemoModel (offline)"


async def test_the_same_body_streams_the_same_chunks() -> None:
    body = user("hello there")
    assert (await stream(body)).chunks == (await stream(body)).chunks


async def test_every_chunk_is_a_valid_openai_chat_completion_chunk() -> None:
    for body in (user("hello"), user("weather in Oslo"), user("/demo markdown")):
        for chunk in (await stream(body)).chunks:
            assert ChatCompletionChunk.model_validate(chunk).object == "chat.completion.chunk"


async def test_the_first_chunk_carries_the_assistant_role() -> None:
    assert (await stream(user("hello"))).chunks[0]["choices"][0]["delta"]["role"] == "assistant"


async def test_a_plain_message_is_answered_in_markdown_listing_tools_and_a_code_block() -> None:
    streamed = await stream(user("hello there"))
    assert streamed.finish_reason == "stop"
    assert streamed.calls == {}
    assert "offline demo model" in streamed.text
    assert "- `get_weather` — Get the current weather for a city." in streamed.text
    assert "```python\n" in streamed.text


async def test_the_reply_streams_word_by_word() -> None:
    streamed = await stream(user("hello there"))
    contents = [chunk["choices"][0]["delta"].get("content") for chunk in streamed.chunks[:-1]]
    assert len(contents) > 20
    assert all(content and len(content.split()) == 1 for content in contents)


async def test_the_weather_question_calls_get_weather_with_city_and_days_from_the_text() -> None:
    streamed = await stream(user("What's the weather in Paris for 3 days?"))
    assert streamed.finish_reason == "tool_calls"
    assert streamed.calls[0]["name"] == "get_weather"
    assert arguments(streamed) == {"city": "Paris", "days": 3, "unit": "celsius"}


async def test_a_quoted_string_becomes_the_string_argument() -> None:
    streamed = await stream(user('save_note "Groceries" with "milk and eggs"'))
    assert arguments(streamed) == {"title": "Groceries", "body": "milk and eggs", "pinned": False}


async def test_arguments_missing_from_the_text_fall_back_to_defaults_or_plausible_values() -> None:
    streamed = await stream(user("how is the weather?"))
    assert arguments(streamed) == {"city": "Paris", "days": 1, "unit": "celsius"}


async def test_numbers_in_the_text_fill_number_parameters_in_order() -> None:
    streamed = await stream(user("please add 2 and 3.5"))
    assert (streamed.calls[0]["name"], arguments(streamed)) == ("add", {"a": 2, "b": 3.5})


async def test_a_tool_call_streams_its_name_first_then_two_or_three_argument_fragments() -> None:
    streamed = await stream(user("weather in Lima"))
    first = next(chunk for chunk in streamed.chunks if chunk["choices"][0]["delta"].get("tool_calls"))
    function = {"name": "get_weather", "arguments": ""}
    assert first["choices"][0]["delta"]["tool_calls"] == [
        {"index": 0, "id": "call_demo_1", "type": "function", "function": function}
    ]
    assert 2 <= len(streamed.argument_fragments[0]) <= 3
    assert streamed.chunks[-1]["choices"][0] == {"index": 0, "delta": {}, "finish_reason": "tool_calls"}


async def test_two_named_tools_are_called_in_parallel() -> None:
    streamed = await stream(user("weather in Rome, and add 4 and 5"))
    assert [(call["id"], call["name"]) for call in streamed.calls.values()] == [
        ("call_demo_1", "get_weather"),
        ("call_demo_2", "add"),
    ]
    assert arguments(streamed, 1) == {"a": 4, "b": 5}


async def test_tool_call_ids_stay_unique_across_the_conversation() -> None:
    earlier_call = {"id": "call_demo_1", "type": "function", "function": {"name": "add", "arguments": "{}"}}
    body = {
        "messages": [
            {"role": "user", "content": "add 1 and 2"},
            {"role": "assistant", "content": None, "tool_calls": [earlier_call]},
            {"role": "tool", "tool_call_id": "call_demo_1", "content": "3"},
            {"role": "assistant", "content": "It is 3."},
            {"role": "user", "content": "now add 5 and 6"},
        ],
        "tools": TOOLS,
    }
    assert (await stream(body)).calls[0]["id"] == "call_demo_2"


async def test_tool_choice_none_never_calls_tools() -> None:
    streamed = await stream(user("What's the weather in Paris?", tool_choice="none"))
    assert (streamed.calls, streamed.finish_reason) == ({}, "stop")


async def test_without_tools_a_tool_question_gets_a_plain_answer() -> None:
    streamed = await stream(user("What's the weather in Paris?", tools=[]))
    assert streamed.calls == {}
    assert "No tools are registered yet" in streamed.text


async def test_tool_choice_naming_a_function_calls_that_function() -> None:
    forced = {"type": "function", "function": {"name": "add"}}
    streamed = await stream(user("hello", tool_choice=forced))
    assert [call["name"] for call in streamed.calls.values()] == ["add"]


def after_tool_results(*results: tuple[str, str, str]) -> dict[str, Any]:
    calls = [{"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}
             for call_id, name, _ in results]
    return {
        "messages": [
            {"role": "user", "content": "do it"},
            {"role": "assistant", "content": None, "tool_calls": calls},
            *({"role": "tool", "tool_call_id": call_id, "content": text} for call_id, _, text in results),
        ],
        "tools": TOOLS,
    }


async def test_tool_results_are_summarized_and_the_turn_stops() -> None:
    streamed = await stream(after_tool_results(("call_demo_1", "get_weather", "Sunny in Paris")))
    assert streamed.text == "I called `get_weather` and got: `Sunny in Paris`"
    assert streamed.finish_reason == "stop"
    assert streamed.calls == {}


async def test_parallel_results_are_summarized_as_a_list() -> None:
    streamed = await stream(after_tool_results(("c1", "get_weather", "Sunny"), ("c2", "add", "9")))
    assert streamed.text == (
        "Here is what happened:\n\n- I called `get_weather` and got: `Sunny`\n- I called `add` and got: `9`\n"
    )


async def test_a_denied_call_is_acknowledged_politely() -> None:
    streamed = await stream(after_tool_results(("c1", "save_note", "Denied by the user: not now")))
    assert streamed.text.startswith(
        "The call to `save_note` did not run (Denied by the user: not now). No problem"
    )


async def test_demo_length_stops_with_finish_reason_length() -> None:
    streamed = await stream(user("/demo length"))
    assert streamed.finish_reason == "length"
    assert streamed.text.endswith("a page reload")


async def test_max_tokens_cuts_the_reply_with_finish_reason_length() -> None:
    streamed = await stream(user("hello", max_tokens=5))
    assert streamed.finish_reason == "length"
    assert len(streamed.text.split()) == 5


async def test_demo_error_raises_a_provider_error_after_some_chunks() -> None:
    received: list[dict[str, Any]] = []

    async def consume() -> None:
        async for chunk in await DemoModel(delay=0)(user("/demo error"), CancelHandle()):
            received.append(chunk)

    expected = r"simulated provider error \(you asked for /demo error\)"
    with pytest.raises(ProviderError, match=expected) as error:
        await consume()
    assert error.value.kind == "server"
    assert collect(received).text == "Let me think about this step by step. First, I will look at"


async def test_continue_after_a_length_cut_streams_the_rest() -> None:
    first = await stream(user("/demo length"))
    body = {
        "messages": [
            {"role": "user", "content": "/demo length"},
            {"role": "assistant", "content": first.text},
            {"role": "user", "content": "Your reply hit the length limit. Continue; do not repeat yourself."},
        ],
    }
    streamed = await stream(body)
    assert streamed.finish_reason == "stop"
    assert streamed.text.startswith("…and here is the rest: does not lose the conversation.")


async def test_continue_after_a_simulated_error_quoting_it_streams_the_rest_without_failing_again() -> None:
    continuation = (
        "The previous reply failed: DemoModel: simulated provider error (you asked for /demo error). "
        "Continue from where you stopped."
    )
    messages = [{"role": "user", "content": "/demo error"}, {"role": "user", "content": continuation}]
    streamed = await stream({"messages": messages})
    assert streamed.finish_reason == "stop"
    assert streamed.text.startswith("…and here is the rest: the question again")


async def test_demo_markdown_has_headings_a_table_code_and_math() -> None:
    text = (await stream(user("/demo markdown"))).text
    for expected in ("# Markdown showcase", "| tool |", "```python", "$e^{i\\pi}+1=0$", "$$\n\\int"):
        assert expected in text


async def test_cancel_stops_the_stream_early() -> None:
    cancel = CancelHandle()
    received = []
    async for chunk in await DemoModel(delay=0)(user("/demo slow"), cancel):
        received.append(chunk)
        if len(received) == 3:
            cancel.cancel()
    assert len(received) == 3
    assert all(chunk["choices"][0]["finish_reason"] is None for chunk in received)


async def test_cancel_wakes_a_waiting_stream_at_once() -> None:
    cancel = CancelHandle()
    chunks = await DemoModel(delay=30)(user("hello"), cancel)
    first = await anext(chunks)
    asyncio.get_running_loop().call_later(0.05, cancel.cancel)
    started = time.monotonic()
    rest = [chunk async for chunk in chunks]
    assert (first["choices"][0]["delta"]["role"], rest) == ("assistant", [])
    assert time.monotonic() - started < 2


async def test_the_seed_changes_the_wording_but_not_the_behaviour() -> None:
    replies = [await stream(user("hello"), seed=seed) for seed in range(8)]
    assert len({reply.text for reply in replies}) > 1
    assert {reply.finish_reason for reply in replies} == {"stop"}


async def test_the_demo_model_answers_injected_describe_results_by_what_they_describe() -> None:
    from notebook_chat.providers.demo_context import reply_to_mentions

    def pair(call_id: str, name: str, arguments: str, content: str) -> list[dict[str, Any]]:
        call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
        return [{"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": call_id, "content": content}]

    described = pair("c1", "describe", '{"name": "df"}',
                     "DataFrame df: 4 rows × 1 columns\n\n"
                     "Columns (dtype, non-null values):\n  price: float64, 3 non-null")
    reply = reply_to_mentions([{"role": "user", "content": "@df?"}, *described])
    assert reply is not None
    assert reply.startswith("**`df`** is a DataFrame with 4 rows × 1 columns: `price` (float64). "
                            "Missing values: `price` (1 of 4).")
    own_call = pair("c2", "lookup", "{}", "sunny")
    assert reply_to_mentions([{"role": "user", "content": "@df?"}, *described, *own_call]) is None
