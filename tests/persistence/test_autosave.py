from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from notebook_chat.engine import CancelHandle, MessageEngine
from notebook_chat.persistence import ConversationAutosave, FileStore, MemoryStore, load_conversation
from notebook_chat.plugins import ToolPlugin, tool
from notebook_chat.testing import ScriptedProvider


async def test_the_user_message_is_saved_before_the_model_answers() -> None:
    store = MemoryStore()
    seen_at_request: list[Any] = []

    async def provider(body: dict[str, Any], cancel: CancelHandle) -> dict[str, Any]:
        seen_at_request.append(store.load("k"))
        return {"choices": [{"message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}]}

    engine = MessageEngine(provider)
    ConversationAutosave(engine, store, "k")
    await engine.send_message("remember me")
    saved = seen_at_request[0]
    assert [m["content"] for m in saved["messages"]] == ["remember me"]
    assert saved["turns"][-1]["end_reason"] is None


async def test_the_end_of_a_turn_is_saved_with_its_reply_and_end_reason() -> None:
    store = MemoryStore()
    engine = MessageEngine(ScriptedProvider().text("answer"))
    ConversationAutosave(engine, store, "k")
    await engine.send_message("q")
    saved = store.load("k")
    assert [m["content"] for m in saved["messages"]] == ["q", "answer"]
    assert saved["turns"][-1]["end_reason"] == "completed"


async def test_a_paused_turn_is_saved_with_its_snapshot_and_an_approval_clears_it_before_the_tool_runs() -> None:
    store = MemoryStore()
    stored_when_tool_ran: list[Any] = []

    @tool(approval=True)
    def drop_table(name: str) -> str:
        """Drop a table."""
        stored_when_tool_ran.append(store.load("k"))
        return "dropped"

    provider = ScriptedProvider().tool_calls([{"name": "drop_table", "arguments": {"name": "t"}, "id": "c1"}])
    engine = MessageEngine(provider.text("ok"), plugins=[ToolPlugin([drop_table])])
    ConversationAutosave(engine, store, "k")
    await engine.send_message("drop it")
    assert store.load("k")["paused_turn"]["tool_call_ids"] == ["c1"]
    await engine.dispatch_command("tool.resume", {"tool_call_id": "c1"})
    during = stored_when_tool_ran[0]
    assert during["paused_turn"] is None
    assert during["messages"][1]["state"]["tool_calls"]["c1"]["status"] == "running"
    assert store.load("k")["paused_turn"] is None


async def test_streaming_saves_are_throttled_and_keep_the_partial_reply() -> None:
    class CountingStore(MemoryStore):
        def __init__(self) -> None:
            super().__init__()
            self.partials: list[str] = []

        def save(self, key: str, record: dict[str, Any], conversation_id: str | None = None, *,
                 active: bool = False) -> None:
            super().save(key, record, conversation_id, active=active)
            last = record["messages"][-1]
            if last["role"] == "assistant":
                self.partials.append(last.get("content") or "")

    store = CountingStore()
    provider = ScriptedProvider().text("x" * 400, chunks=200, delay=0.001)
    engine = MessageEngine(provider)
    autosave = ConversationAutosave(engine, store, "k", min_interval=0.05)
    await engine.send_message("go")
    assert autosave.saves < 30
    assert any(0 < len(text) < 400 for text in store.partials)
    assert store.partials[-1] == "x" * 400


async def test_a_reply_that_only_reasons_so_far_costs_no_whole_record_save_while_it_streams() -> None:
    class PatchingStore(MemoryStore):
        """Like the notebook store: saves only the given messages when it holds them, else asks for a whole save."""

        def __init__(self) -> None:
            super().__init__()
            self.whole_saves = 0

        def save(self, key: str, record: dict[str, Any], conversation_id: str | None = None, *,
                 active: bool = False) -> None:
            super().save(key, record, conversation_id, active=active)
            self.whole_saves += 1

        def save_messages(self, key: str, messages: list[dict[str, Any]], updated_at: str,
                          conversation_id: str | None = None) -> bool:
            stored = {m["id"] for m in self.load(key, conversation_id)["messages"]}
            return all(m["id"] in stored for m in messages)

    store = PatchingStore()
    provider = ScriptedProvider().text("", reasoning="thinking " * 50, chunks=100, delay=0.002)
    engine = MessageEngine(provider)
    autosave = ConversationAutosave(engine, store, "k", min_interval=0.005)
    await engine.send_message("go")
    assert autosave.saves > 20  # the throttle fired while it reasoned
    assert store.whole_saves <= 5  # the turn's boundaries only, not one per throttled save (45 of them before)


async def test_a_record_round_trips_through_a_file_store_byte_stable(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    engine = MessageEngine(ScriptedProvider().text("Grüße — ünïcode ✓", chunks=3))
    ConversationAutosave(engine, FileStore(path), "k")
    await engine.send_message("hi")
    first = path.read_bytes()
    loaded = load_conversation(FileStore(path), "k")
    revived = MessageEngine(ScriptedProvider())
    revived.load(loaded.record)
    FileStore(path).save("k", loaded.record)
    assert path.read_bytes() == first
    assert revived.messages == engine.messages
    assert revived.turns == engine.turns


async def test_a_corrupt_record_is_refused_with_a_reason_and_left_untouched_on_disk(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps({"version": 1, "conversations": {"k": {
        "version": 1, "messages": [{"role": "wizard", "content": 3}], "turns": [], "paused_turn": None,
        "updated_at": "2026-01-01T00:00:00Z"}}}))
    before = path.read_bytes()
    loaded = load_conversation(FileStore(path), "k")
    assert loaded.record is None
    assert loaded.refused is not None
    assert "role" in loaded.refused
    assert path.read_bytes() == before


async def test_a_future_version_record_is_refused_with_a_reason_and_left_untouched_on_disk(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps({"version": 1, "conversations": {"k": {
        "version": 7, "messages": [], "turns": [], "paused_turn": None, "updated_at": "2026-01-01T00:00:00Z"}}}))
    before = path.read_bytes()
    loaded = load_conversation(FileStore(path), "k")
    assert loaded.record is None
    assert "version" in (loaded.refused or "")
    assert path.read_bytes() == before


async def test_a_value_that_is_not_json_in_custom_context_is_reported_not_raised() -> None:
    errors: list[Exception] = []
    store = MemoryStore()
    from notebook_chat.engine import Plugin, PluginContext

    class Sloppy(Plugin):
        name = "sloppy"

        async def on_turn_start(self, ctx: PluginContext) -> None:
            ctx.custom_context["handler"] = print

    @tool(approval=True)
    def act() -> str:
        """Act."""
        return "ok"

    provider = ScriptedProvider().tool_calls([{"name": "act", "arguments": {}, "id": "c1"}])
    engine = MessageEngine(provider, plugins=[Sloppy(), ToolPlugin([act])])
    ConversationAutosave(engine, store, "k", on_error=errors.append)
    await engine.send_message("go")
    assert engine.state.is_paused
    assert any("custom_context" in str(error) for error in errors)
    await asyncio.sleep(0)
