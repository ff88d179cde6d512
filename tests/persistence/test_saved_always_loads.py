"""Property: whatever the engine saves loads back equal — modulo the documented truncation of tool results over
MAX_TOOL_RESULT_CHARS — for generated conversations (big results, over-long provider ids, unicode, many turns)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from notebook_chat.engine import MessageEngine, ProviderError
from notebook_chat.engine.conversation import MAX_ID_CHARS, MAX_TOOL_RESULT_CHARS
from notebook_chat.persistence import MemoryStore, read_record
from notebook_chat.plugins import ToolPlugin, tool
from notebook_chat.testing import ScriptedProvider


@tool
def blob(size: int, text: str) -> str:
    """A text of `size` characters made of `text`."""
    return (text * (size // max(len(text), 1) + 1))[:size]


unicode_text = st.text(min_size=1, max_size=40)
reply = st.tuples(st.just("text"), unicode_text)
tool_round = st.tuples(
    st.just("tool"),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_-", min_size=1, max_size=MAX_ID_CHARS + 60),
    st.sampled_from([0, 7, MAX_TOOL_RESULT_CHARS, MAX_TOOL_RESULT_CHARS + 1, MAX_TOOL_RESULT_CHARS + 4_321]),
    unicode_text,
)
conversations = st.lists(st.one_of(reply, tool_round), min_size=1, max_size=8)


def script(turns: list[tuple[Any, ...]]) -> ScriptedProvider:
    provider = ScriptedProvider()
    for turn in turns:
        if turn[0] == "text":
            provider.text(turn[1], chunks=2)
        else:
            _, call_id, size, text = turn
            provider.tool_calls([{"name": "blob", "arguments": {"size": size, "text": text}, "id": call_id}])
            if len(call_id) <= MAX_ID_CHARS:  # an over-long id ends the turn in error: no follow-up request
                provider.text(f"done {text}")
    return provider


def assert_equal_modulo_truncation(loaded: list[dict[str, Any]], live: list[dict[str, Any]]) -> None:
    live_by_id = {message["id"]: json.loads(json.dumps(message)) for message in live}
    assert [m["id"] for m in loaded] == [m["id"] for m in live if not m.get("temp")]
    for message in loaded:
        original = live_by_id[message["id"]]
        truncated = (message.get("metadata") or {}).get("truncated")
        if truncated is None:
            assert message == original
            continue
        assert truncated == {"chars": len(original["content"])}
        assert len(original["content"]) > MAX_TOOL_RESULT_CHARS
        assert message["content"].startswith(original["content"][:MAX_TOOL_RESULT_CHARS])
        assert f"was {len(original['content'])} characters long" in message["content"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conversations)
def test_every_record_the_engine_saves_loads_back_equal_modulo_truncation(turns: list[tuple[Any, ...]]) -> None:
    async def run() -> None:
        engine = MessageEngine(script(turns), plugins=[ToolPlugin([blob])])
        store = MemoryStore()
        for number, turn in enumerate(turns):
            with contextlib.suppress(ProviderError):
                await engine.send_message(f"turn {number}: {turn[-1]}")
            record = engine.export_record()
            store.save("k", record)  # never refused: the save runs the load's check
            loaded = read_record(store.load("k"))
            assert loaded.refused is None
            assert loaded.record == json.loads(json.dumps(record))
            assert_equal_modulo_truncation(loaded.record["messages"], engine.messages)
            stored_results = [m["content"] for m in loaded.record["messages"] if m["role"] == "tool"]
            assert all(len(text) < MAX_TOOL_RESULT_CHARS + 200 for text in stored_results)
            if turn[0] == "tool" and len(turn[1]) > MAX_ID_CHARS:
                assert engine.turns[-1]["end_reason"] == "error"
                assert "tool call id" in str(engine.turns[-1]["detail"])
            again = MessageEngine(ScriptedProvider(), plugins=[ToolPlugin([blob])])
            again.load(loaded.record)
            assert again.export_record()["messages"] == loaded.record["messages"]  # truncated once, noted once

    asyncio.run(run())
