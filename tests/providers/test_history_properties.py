"""Property: whatever stops, crashes and plugins did to a history, the prepared history is valid and every
provider's own pairing rules accept its conversion."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from notebook_chat.engine.conversation import ENGINE_ONLY_FIELDS
from notebook_chat.engine.history import OUTCOME_UNKNOWN, drop_temp, prepare_for_request, repair, validate
from notebook_chat.providers.converters import check_every_provider

Msg = dict[str, Any]
NAMES = st.sampled_from(["describe", "plot", "mean"])
BAD_ARGUMENTS = st.sampled_from(["", None, "   ", "[1]", "not json", "3", '{"x": '])
MUTATIONS = st.sampled_from([
    "drop", "cut", "duplicate-result", "move-result", "temp-unit", "bad-arguments", "repeat-id",
    "late-system", "empty-assistant", "unknown-role",
])


def assistant_with_calls(ids: list[str], names: list[str], text: str | None) -> Msg:
    calls = [{"id": call_id, "type": "function", "function": {"name": name, "arguments": '{"x": 1}'}}
             for call_id, name in zip(ids, names, strict=True)]
    return {"role": "assistant", "content": text, "tool_calls": calls}


@st.composite
def valid_histories(draw: st.DrawFn) -> list[Msg]:
    history: list[Msg] = [{"role": "system", "content": "sys"}] if draw(st.booleans()) else []
    serial = 0
    for turn in range(draw(st.integers(0, 4))):
        history.append({"role": "user", "content": f"question {turn}"})
        for _ in range(draw(st.integers(0, 3))):
            count = draw(st.integers(1, 3))
            ids = [f"call_{serial + k}" for k in range(count)]
            serial += count
            names = [draw(NAMES) for _ in ids]
            history.append(assistant_with_calls(ids, names, draw(st.sampled_from([None, "", "Looking."]))))
            for call_id in draw(st.permutations(ids)):
                history.append({"role": "tool", "tool_call_id": call_id, "content": f"result of {call_id}"})
        if draw(st.booleans()):
            history.append({"role": "assistant", "content": f"answer {turn}", "reasoning_content": "thought"})
    return history


def mutate(draw: st.DrawFn, history: list[Msg], mutation: str) -> None:
    position = draw(st.integers(0, len(history)))
    tools = [i for i, m in enumerate(history) if m.get("role") == "tool"]
    callers = [i for i, m in enumerate(history) if m.get("tool_calls")]
    if mutation == "drop" and history:
        del history[min(position, len(history) - 1)]
    elif mutation == "cut":
        del history[position:]
    elif mutation == "duplicate-result" and tools:
        history.insert(position, dict(history[draw(st.sampled_from(tools))]))
    elif mutation == "move-result" and tools:
        moved = history.pop(draw(st.sampled_from(tools)))
        history.insert(draw(st.integers(0, len(history))), moved)
    elif mutation == "temp-unit":
        users = [i for i, m in enumerate(history) if m.get("role") == "user"]
        at = users[-1] + 1 if users else 0
        call_id = f"temp_{position}_{len(history)}"
        unit = [{**assistant_with_calls([call_id], ["context"], None), "temp": True},
                {"role": "tool", "tool_call_id": call_id, "content": "injected", "temp": True}]
        history[at:at] = unit
    elif mutation == "bad-arguments" and callers:
        calls = history[draw(st.sampled_from(callers))]["tool_calls"]
        calls[draw(st.integers(0, len(calls) - 1))]["function"]["arguments"] = draw(BAD_ARGUMENTS)
    elif mutation == "repeat-id" and len(callers) > 1:
        first, second = history[callers[0]]["tool_calls"][0], history[callers[-1]]["tool_calls"][0]
        second["id"] = first["id"]
    elif mutation == "late-system":
        history.insert(position, {"role": "system", "content": "later instruction"})
    elif mutation == "empty-assistant":
        history.insert(position, {"role": "assistant", "content": ""})
    elif mutation == "unknown-role":
        history.insert(position, {"role": "function", "content": "legacy"})


@st.composite
def damaged_histories(draw: st.DrawFn) -> list[Msg]:
    history = copy.deepcopy(draw(valid_histories()))
    for mutation in draw(st.lists(MUTATIONS, max_size=6)):
        mutate(draw, history, mutation)
    for number, message in enumerate(history):
        message.update(id=f"m{number}", metadata={"n": number})
    return history


def contents_of_results(messages: list[Msg]) -> set[Any]:
    return {message.get("content") for message in messages if message.get("role") == "tool"}


@settings(max_examples=300, deadline=None)
@given(damaged_histories())
def test_prepared_histories_are_valid_and_every_provider_accepts_them(history: list[Msg]) -> None:
    before = copy.deepcopy(history)
    prepared = prepare_for_request(history)

    assert history == before
    assert validate(prepared) == []
    assert not any(key in message for message in prepared for key in ENGINE_ONLY_FIELDS)
    assert prepare_for_request(prepared) == prepared
    assert contents_of_results(prepared) <= contents_of_results(history) | {OUTCOME_UNKNOWN}
    check_every_provider(prepared)


@settings(max_examples=150, deadline=None)
@given(damaged_histories())
def test_repaired_and_temp_free_histories_are_valid_and_keep_message_ids(history: list[Msg]) -> None:
    repaired = repair(history)
    saved = drop_temp(history)

    assert validate(repaired) == []
    assert validate(saved) == []
    assert not any(message.get("temp") for message in saved)
    real_ids = {m["id"] for m in repaired if not m.get("metadata", {}).get("synthetic")}
    assert real_ids <= {m["id"] for m in history}
    assert {m["id"] for m in saved} <= {m["id"] for m in repaired}
