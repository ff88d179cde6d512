"""A request stays under the model's context budget: the oldest whole turns are left out (the system message and
tool-call units stay whole, the latest turn always goes), and the reply says how many were not sent."""

from __future__ import annotations

from typing import Any

from notebook_chat.engine import MessageEngine
from notebook_chat.engine.budget import ContextBudget
from notebook_chat.engine.history import validate
from notebook_chat.providers.converters import check_every_provider
from notebook_chat.testing import ScriptedProvider

SYSTEM = {"role": "system", "content": "s" * 40}


def turn(n: int, size: int = 400, *, tool: bool = False) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": f"q{n} " + "x" * size}]
    if tool:
        call = {"id": f"c{n}", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        messages += [{"role": "assistant", "content": "", "tool_calls": [call]},
                     {"role": "tool", "tool_call_id": f"c{n}", "content": "y" * size}]
    messages.append({"role": "assistant", "content": f"a{n} " + "z" * size})
    return messages


def history(turns: int, **options: Any) -> list[dict[str, Any]]:
    return [SYSTEM] + [m for n in range(turns) for m in turn(n, **options)]


def test_without_a_window_everything_is_sent() -> None:
    fitted = ContextBudget().fit(history(20), None)
    assert (len(fitted.messages), fitted.left_out_turns) == (41, 0)


def test_the_oldest_whole_turns_are_left_out_until_the_estimate_fits() -> None:
    budget = ContextBudget(reserve=0)
    fitted = budget.fit(history(10), context_window=1000)
    assert fitted.left_out_turns > 0
    assert fitted.estimated_tokens <= 1000
    assert fitted.messages[0] == SYSTEM
    assert fitted.messages[1]["content"].startswith(f"q{fitted.left_out_turns} ")
    assert fitted.messages[-1]["content"].startswith("a9 ")


def test_tool_call_units_are_never_split_and_every_provider_accepts_what_is_left() -> None:
    for window in range(200, 4000, 150):
        fitted = ContextBudget(reserve=0).fit(history(8, tool=True), context_window=window)
        assert validate(fitted.messages) == []
        check_every_provider(fitted.messages)


def test_the_latest_turn_is_sent_even_when_it_alone_is_over_the_budget() -> None:
    fitted = ContextBudget(reserve=0).fit([SYSTEM, *turn(0, size=10_000)], context_window=100)
    assert fitted.left_out_turns == 0
    assert len(fitted.messages) == 3


def test_the_reported_prompt_tokens_correct_the_characters_per_token_estimate() -> None:
    budget = ContextBudget()
    budget.fit(history(2), None)
    chars = sum(len(m["content"]) for m in history(2))
    budget.observe({"prompt_tokens": chars // 2 + 4, "completion_tokens": 3})
    assert 1.9 < budget.chars_per_token < 2.1


def test_usage_without_prompt_tokens_changes_nothing() -> None:
    budget = ContextBudget()
    budget.fit(history(2), None)
    budget.observe({"completion_tokens": 3})
    budget.observe(None)
    assert budget.chars_per_token == 4.0


def test_shorten_halves_the_budget_of_the_last_request_even_without_a_window() -> None:
    budget = ContextBudget()
    first = budget.fit(history(10), None)
    budget.shorten()
    second = budget.fit(history(10), None)
    assert second.estimated_tokens <= first.estimated_tokens / 2
    assert second.left_out_turns > 0


class WindowedProvider(ScriptedProvider):
    context_window = 600


async def test_the_engine_sends_the_fitted_request_and_notes_the_left_out_turns_on_the_reply() -> None:
    provider = WindowedProvider().text("fine")
    engine = MessageEngine(provider, initial_messages=history(6))  # type: ignore[arg-type]

    await engine.send_message("and now?")

    sent = provider.requests[0]["messages"]
    reply = engine.messages[-1]
    left_out = reply["metadata"]["left_out_turns"]
    assert left_out > 0
    assert sent[0] == SYSTEM
    assert len(sent) == 1 + 2 * (6 - left_out) + 1
    assert len(engine.messages) == 1 + 12 + 2  # the stored conversation keeps everything
