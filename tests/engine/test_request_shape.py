"""History rule 7: every request satisfies the strictest common chat template — after the system message, user and
assistant alternate starting with a user — while the stored conversation keeps what the user saw."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from notebook_chat.engine import MessageEngine, ProviderError
from notebook_chat.engine.history import prepare_for_request, validate
from notebook_chat.engine.request_shape import OPENING_USER_TEXT, alternate_roles
from notebook_chat.providers.converters import check_every_provider
from notebook_chat.testing import ScriptedProvider


def collapsed_roles(messages: Sequence[Mapping[str, Any]]) -> list[str]:
    """Roles as a strict template sees them: a tool round (assistant(calls), results, assistant, …) is one turn."""
    roles: list[str] = []
    for message in messages:
        role = message["role"]
        if role == "system":
            continue
        if role in ("tool", "assistant") and roles and roles[-1] == "assistant":
            continue
        roles.append("assistant" if role == "tool" else role)
    return roles


def assert_strict(messages: Sequence[Mapping[str, Any]]) -> None:
    assert [m["role"] for m in messages].count("system") <= 1
    assert all(m["role"] != "system" for m in messages[1:])
    roles = collapsed_roles(messages)
    assert roles[:1] == ["user"], messages
    assert all(role == ("user" if i % 2 == 0 else "assistant") for i, role in enumerate(roles)), roles
    for previous, message in itertools.pairwise(messages):
        assert not (previous["role"] == message["role"] == "assistant" and not previous.get("tool_calls")), messages


# ---------------------------------------------------------------------------------------- generated histories

def _call_unit(n: int, answered: bool) -> list[dict[str, Any]]:
    call = {"id": f"c{n}", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    unit: list[dict[str, Any]] = [{"role": "assistant", "content": "", "tool_calls": [call]}]
    if answered:
        unit.append({"role": "tool", "tool_call_id": f"c{n}", "content": f"result {n}"})
    return unit


PIECES = st.sampled_from(["user", "hidden-continue", "assistant", "assistant-empty", "tool-round", "tool-unanswered",
                          "system-later", "reasoning"])


def build(pieces: list[str], with_system: bool) -> list[dict[str, Any]]:
    history: list[dict[str, Any]] = [{"role": "system", "content": "sys"}] if with_system else []
    for n, piece in enumerate(pieces):
        if piece == "user":
            history.append({"role": "user", "content": f"u{n}"})
        elif piece == "hidden-continue":
            history.append({"role": "user", "content": f"continue {n}", "metadata": {"hidden": True}})
        elif piece == "assistant":
            history.append({"role": "assistant", "content": f"a{n}"})
        elif piece == "assistant-empty":
            history.append({"role": "assistant", "content": ""})
        elif piece == "tool-round":
            history.extend(_call_unit(n, answered=True))
        elif piece == "tool-unanswered":
            history.extend(_call_unit(n, answered=False))
        elif piece == "system-later":
            history.append({"role": "system", "content": f"note {n}"})
        else:
            history.append({"role": "assistant", "content": f"a{n}", "reasoning_content": f"r{n}"})
    return history


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, min_size=1, max_size=12), st.booleans())
def test_any_history_becomes_a_request_that_strict_templates_and_every_provider_accept(
    pieces: list[str], with_system: bool
) -> None:
    history = build([*pieces, "user"], with_system)  # a request is sent for a user message (or a tool round's)

    request = alternate_roles(prepare_for_request(history))

    assert validate(request) == []
    check_every_provider(request)
    assert_strict(request)
    texts = "".join(str(m.get("content") or "") for m in request)
    for message in prepare_for_request(history):
        assert str(message.get("content") or "") in texts


def test_an_unanswered_user_message_and_the_next_one_are_sent_as_one() -> None:
    request = alternate_roles([{"role": "user", "content": "first"}, {"role": "user", "content": "second"}])
    assert request == [{"role": "user", "content": "first\n\nsecond"}]


def test_a_history_that_starts_with_an_assistant_message_gets_a_user_message_first() -> None:
    request = alternate_roles([{"role": "system", "content": "s"}, {"role": "assistant", "content": "Hi!"},
                               {"role": "user", "content": "hello"}])
    assert [m["role"] for m in request] == ["system", "user", "assistant", "user"]
    assert request[1]["content"] == OPENING_USER_TEXT


def test_assistant_text_then_a_tool_call_becomes_one_assistant_message_with_the_call() -> None:
    unit = _call_unit(1, answered=True)
    request = alternate_roles([{"role": "user", "content": "u"}, {"role": "assistant", "content": "partial"}, *unit])
    assert request[1] == {"role": "assistant", "content": "partial", "tool_calls": unit[0]["tool_calls"]}
    assert request[2]["role"] == "tool"


def test_content_part_lists_are_joined_as_parts() -> None:
    parts = [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "data:x"}}]
    request = alternate_roles([{"role": "user", "content": parts}, {"role": "user", "content": "and this"}])
    assert request[0]["content"] == [*parts, {"type": "text", "text": "\n\n"}, {"type": "text", "text": "and this"}]


async def test_after_a_failed_turn_the_next_request_alternates_and_the_stored_history_keeps_both_messages() -> None:
    provider = ScriptedProvider().failure(ProviderError("server down", kind="server")).text("hello")
    engine = MessageEngine(provider, initial_messages=[{"role": "system", "content": "s"}])
    with pytest.raises(ProviderError):
        await engine.send_message("are you there?")
    await engine.send_message("hello?")

    assert [m["role"] for m in provider.requests[1]["messages"]] == ["system", "user"]
    assert provider.requests[1]["messages"][1]["content"] == "are you there?\n\nhello?"
    assert [m["content"] for m in engine.messages if m["role"] == "user"] == ["are you there?", "hello?"]
