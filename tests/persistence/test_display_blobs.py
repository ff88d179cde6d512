"""Images from tool results are stored once per conversation, by content hash: the record keeps a reference in each
display and the text once in ``blobs``; they load back whole. A stored reference is untrusted: every class of bad
reference (missing, forged, of the wrong type, into a ``blobs`` that is not an object) is dropped from its display
with a notice, and everything else of the conversation loads."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

import pytest

from notebook_chat import Chat
from notebook_chat.persistence import MemoryStore, read_record
from notebook_chat.persistence.blobs import BLOBS, REF, pack
from notebook_chat.plugins import ToolResult, tool
from notebook_chat.testing import ScriptedProvider

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40).decode()
OTHER_PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(255, -1, -1)) * 40).decode()


@tool
def plot(name: str) -> ToolResult:
    """Draws the same chart."""
    return ToolResult(content=f"plotted {name}", display={"image/png": PNG, "text/plain": "<Figure>"})


@tool
def gallery() -> ToolResult:
    """Two charts."""
    return ToolResult(content="two charts", display={"image/png": [PNG, OTHER_PNG]})


async def chat_with_three_charts(store: MemoryStore) -> Chat:
    provider = (ScriptedProvider()
                .tool_calls([{"name": "plot", "arguments": {"name": "a"}, "id": "c1"}]).text("one")
                .tool_calls([{"name": "plot", "arguments": {"name": "b"}, "id": "c2"}]).text("two")
                .tool_calls([{"name": "gallery", "arguments": {}, "id": "c3"}]).text("three"))
    chat = Chat(provider, tools=[plot, gallery], key="k", store=store)
    for question in ("chart a", "chart b", "both"):
        await chat.send(question)
    return chat


def displays(messages: list[dict[str, Any]]) -> list[Any]:
    return [m["metadata"]["display"] for m in messages if m["role"] == "tool"]


async def test_the_same_image_in_several_tool_results_is_stored_once_and_referenced() -> None:
    store = MemoryStore()
    await chat_with_three_charts(store)
    stored = store.load("k")
    assert stored is not None

    assert sorted(stored[BLOBS]) == sorted({hashlib.sha256(PNG.encode()).hexdigest(),
                                            hashlib.sha256(OTHER_PNG.encode()).hexdigest()})
    assert json.dumps(stored).count(PNG) == 1
    key = hashlib.sha256(PNG.encode()).hexdigest()
    assert displays(stored["messages"])[0] == {"image/png": {REF: key}, "text/plain": "<Figure>"}


async def test_a_chat_loaded_from_the_store_shows_every_image_as_it_was() -> None:
    store = MemoryStore()
    live = await chat_with_three_charts(store)

    again = Chat(ScriptedProvider(), key="k", store=store)

    assert displays(again.messages) == displays(live.messages)
    assert again.engine.state.notice is None


async def test_a_conversation_without_large_display_data_is_stored_without_blobs() -> None:
    store = MemoryStore()
    chat = Chat(ScriptedProvider().text("hi"), key="k", store=store)
    await chat.send("hello")
    stored = store.load("k")
    assert stored is not None
    assert BLOBS not in stored


def stored_record() -> dict[str, Any]:
    record = {"version": 1, "updated_at": "2026-01-01T00:00:00Z", "turns": [], "paused_turn": None, "messages": [
        {"id": "u1", "role": "user", "content": "draw"},
        {"id": "a1", "role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "plot", "arguments": "{}"}},
            {"id": "c2", "type": "function", "function": {"name": "plot", "arguments": "{}"}}],
         "state": {"tool_calls": {"c1": {"status": "success"}, "c2": {"status": "success"}}}},
        {"id": "t1", "role": "tool", "tool_call_id": "c1", "content": "plotted",
         "metadata": {"display": {"image/png": PNG, "text/plain": "<Figure 1>"}}},
        {"id": "t2", "role": "tool", "tool_call_id": "c2", "content": "plotted",
         "metadata": {"display": {"image/png": [PNG, OTHER_PNG]}}},
        {"id": "a2", "role": "assistant", "content": "Here are your charts."}]}
    return json.loads(json.dumps(pack(record)))  # type: ignore[no-any-return]


def forge(record: dict[str, Any], how: str) -> dict[str, Any]:
    """One class of bad reference, applied to the first image reference (t1's image/png)."""
    key = record["messages"][2]["metadata"]["display"]["image/png"][REF]
    ref_holder = record["messages"][2]["metadata"]["display"]
    if how == "dangling":
        ref_holder["image/png"] = {REF: "0" * 64}
    elif how == "forged data":
        record[BLOBS][key] = OTHER_PNG  # the text no longer hashes to its name
    elif how == "blob not text":
        record[BLOBS][key] = {"data": PNG}
    elif how == "name not text":
        ref_holder["image/png"] = {REF: 42}
    elif how == "extra fields":
        ref_holder["image/png"] = {REF: key, "src": "https://example.com/x.png"}
    elif how == "blobs not an object":
        record[BLOBS] = [PNG, OTHER_PNG]
    elif how == "blobs missing":
        del record[BLOBS]
    return record


BAD_REFERENCES = ["dangling", "forged data", "blob not text", "name not text", "extra fields",
                  "blobs not an object", "blobs missing"]


@pytest.mark.parametrize("how", BAD_REFERENCES)
def test_a_bad_reference_is_dropped_with_a_notice_and_everything_else_loads(how: str) -> None:
    record = forge(stored_record(), how)

    loaded = read_record(record)

    assert loaded.record is not None
    assert loaded.refused is None
    assert loaded.notice is not None
    assert "could not be restored" in loaded.notice
    messages = loaded.record["messages"]
    assert [m["id"] for m in messages] == ["u1", "a1", "t1", "t2", "a2"]
    assert messages[-1]["content"] == "Here are your charts."
    assert messages[2]["metadata"]["display"] == {"text/plain": "<Figure 1>"}  # only the bad image is gone
    assert REF not in json.dumps(loaded.record)
    assert BLOBS not in loaded.record
    second = messages[3]["metadata"].get("display")
    if how in ("blobs not an object", "blobs missing"):  # no image can be found: the display is gone
        assert second is None
    elif how in ("forged data", "blob not text"):  # t2 shared the broken image; its other image is kept
        assert second == {"image/png": [OTHER_PNG]}
    else:
        assert second == {"image/png": [PNG, OTHER_PNG]}


def test_a_chat_restored_from_a_record_with_a_bad_reference_says_so_and_keeps_the_conversation() -> None:
    store = MemoryStore()
    store.save("k", forge(stored_record(), "dangling"))

    chat = Chat(ScriptedProvider(), key="k", store=store)

    assert [m["id"] for m in chat.messages] == ["u1", "a1", "t1", "t2", "a2"]
    assert "could not be restored" in (chat.engine.state.notice or "")


def test_a_valid_stored_record_loads_every_image_without_a_notice() -> None:
    loaded = read_record(stored_record())

    assert loaded.notice is None
    assert loaded.record is not None
    assert displays(loaded.record["messages"]) == [{"image/png": PNG, "text/plain": "<Figure 1>"},
                                                   {"image/png": [PNG, OTHER_PNG]}]
