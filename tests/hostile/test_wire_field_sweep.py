"""Every field of a streamed Chat Completions reply, one at a time, set to every wrong JSON value (members of the wire
class nobody listed: ``role``, ``refusal``, ``index``, ``usage`` counts, ``created``, ``model``, ``object``, ...).
Whatever the field, ``chat.send`` does not raise, the turn ends ``completed`` or ``error`` (never stuck), nothing runs
without approval, the live and saved histories keep the rules, and the next turn completes.

The base reply is real wire data through the real openai client and FakeOpenAIServer: a role chunk, two text chunks,
one tool call in two fragments (a tool that needs approval), a finish chunk with usage.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from notebook_chat.testing import FakeOpenAIServer, Reply, raw_json
from tests.plugins.tool_helpers import Ledger

from .chats import assert_history_sound, assert_next_turn_completes, openai_chat


def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"id": "chatcmpl-sweep", "object": "chat.completion.chunk", "created": 1, "model": "gpt-test",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}], **extra}


BASE: list[dict[str, Any]] = [
    chunk({"role": "assistant", "content": ""}),
    chunk({"content": "Hello, "}),
    chunk({"content": "world", "refusal": None}),
    chunk({"tool_calls": [{"index": 0, "id": "call_sweep", "type": "function",
                           "function": {"name": "delete_file", "arguments": '{"path": '}}]}),
    chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"/tmp/x"}'}}]}),
    chunk({}, "tool_calls", usage={"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8}),
]

WRONG: dict[str, Any] = {
    "null": None, "true": True, "negative": -1, "huge": 2**70, "empty text": "", "text": "x", "empty list": [],
    "empty object": {},
}


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*prefix, key)
            yield from paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield (*prefix, index)
            yield from paths(item, (*prefix, index))


def cases() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    seen: set[str] = set()
    for number, event in enumerate(BASE):
        for path in paths(event):
            where = f"chunk {number} " + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
            for name, value in WRONG.items():
                parent = event
                for step in path[:-1]:
                    parent = parent[step]
                current = parent[path[-1]]
                if type(current) is type(value) and current == value:
                    continue
                changed = copy.deepcopy(BASE)
                target = changed[number]
                for step in path[:-1]:
                    target = target[step]
                target[path[-1]] = value
                label = f"{where} = {name}"
                if label not in seen:
                    seen.add(label)
                    yield label, changed


CASES = list(cases())


@pytest.mark.parametrize(("name", "events"), CASES, ids=[name for name, _ in CASES])
async def test_a_wrong_value_in_any_field_of_the_stream_never_raises_sticks_or_runs_a_tool(
        server: FakeOpenAIServer, tmp_path: Path, name: str, events: list[dict[str, Any]]) -> None:
    ledger = Ledger()
    path = tmp_path / "chats.json"
    chat = openai_chat(server, "chat", path, ledger)
    server.enqueue(Reply(tuple(raw_json(event) for event in events)))

    await chat.send("hi")  # never raises for a provider failure

    assert chat.state.request_state in ("completed", "error", "paused"), chat.state
    assert ledger.runs == []
    assert_history_sound(chat, path)
    if chat.state.is_paused:
        await chat.stop()
    await assert_next_turn_completes(chat, server)
    assert ledger.runs == []
    assert_history_sound(chat, path)


def test_the_sweep_covers_every_field_of_every_chunk() -> None:
    assert len(CASES) >= 500
