from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from notebook_chat.engine import MessageEngine
from notebook_chat.engine.history import validate
from notebook_chat.persistence import FileStore
from notebook_chat.plugins.tools import TOOL_REJECT, TOOL_RESUME, ToolError, ToolPlugin
from notebook_chat.testing.scripted import ScriptedProvider

from .tool_helpers import Ledger, make_engine, roundtrip, statuses


def lookup_call(call_id: str) -> list[dict[str, Any]]:
    return [{"name": "lookup", "arguments": {"city": "Oslo"}, "id": call_id}]


async def test_past_max_tool_rounds_the_batch_is_cancelled_and_a_closing_request_has_no_tools() -> None:
    ledger = Ledger()
    limits: list[int] = []
    provider = (ScriptedProvider().tool_calls(lookup_call("r1")).tool_calls(lookup_call("r2"))
                .tool_calls(lookup_call("r3")).text("Here is what I found."))
    engine = make_engine(provider, ledger, max_tool_rounds=2,
                         on_limit_exceeded=lambda ctx: limits.append(ctx.custom_context["tool_round_count"]))
    await engine.send_message("go")
    assert len(ledger.runs) == 2
    assert statuses(engine)["r3"] == "cancelled"
    cancelled = next(m for m in engine.messages if m.get("tool_call_id") == "r3")
    assert "limit of 2 tool rounds" in cancelled["content"]
    assert limits == [3]
    closing = provider.requests[-1]
    assert "tools" not in closing
    assert closing["tool_choice"] == "none"
    assert "tools" in provider.requests[0]
    assert engine.messages[-1]["content"] == "Here is what I found."
    assert engine.state.request_state == "completed"


async def test_tool_calls_returned_in_the_closing_request_are_an_error() -> None:
    provider = (ScriptedProvider().tool_calls(lookup_call("r1")).tool_calls(lookup_call("r2")))
    engine = make_engine(provider, Ledger(), max_tool_rounds=0)
    provider.tool_calls(lookup_call("r3"))
    with pytest.raises(ToolError, match="closing request"):
        await engine.send_message("go")
    assert engine.state.request_state == "error"


def store_path(tmp_path: Path) -> Path:
    return tmp_path / "conversations.json"


async def pause_and_save(tmp_path: Path, ledger: Ledger, *, key: str = "conv") -> list[Any]:
    """A turn paused on c_delete (c_lookup ran), its record saved in a FileStore; returns its messages as JSON."""
    provider = ScriptedProvider().tool_calls([
        {"name": "lookup", "arguments": {"city": "Paris"}, "id": "c_lookup"},
        {"name": "delete_file", "arguments": {"path": "/tmp/x"}, "id": "c_delete"}])
    engine = make_engine(provider, ledger)
    await engine.send_message("go")
    assert engine.state.is_paused
    FileStore(store_path(tmp_path)).save(key, engine.export_record())
    return roundtrip(engine.messages)


def fresh_engine(tmp_path: Path, ledger: Ledger, messages: list[Any], provider: ScriptedProvider,
                 *, key: str = "conv", tools: Any = None) -> MessageEngine:
    """A new kernel's engine holding `messages` and the stored record's turn log and paused turn (unchecked, as the
    plugin must check it itself)."""
    record = FileStore(store_path(tmp_path)).load(key)
    assert record is not None
    plugin = ToolPlugin(ledger.tools() if tools is None else tools)
    engine = MessageEngine(provider, plugins=[plugin])
    engine.load({**record, "messages": messages})
    return engine


async def test_a_paused_turn_restored_from_a_file_store_in_a_fresh_engine_runs_the_approved_tool_once(
        tmp_path: Path) -> None:
    first_kernel = Ledger()
    messages = await pause_and_save(tmp_path, first_kernel)
    stored = json.loads(store_path(tmp_path).read_text())["conversations"]["conv"]["items"]["main"]
    assert stored["paused_turn"]["tool_call_ids"] == ["c_delete"]
    second_kernel = Ledger()
    provider = ScriptedProvider().text("deleted it")
    engine = fresh_engine(tmp_path, second_kernel, messages, provider)
    assert engine.state.request_state == "paused"
    assert engine.state.notice is None
    result = await engine.dispatch_command(TOOL_RESUME, {"tool_call_id": "c_delete"})
    again = await engine.dispatch_command(TOOL_RESUME, {"tool_call_id": "c_delete"})
    assert (result["status"], again["status"]) == ("resumed", "missing")
    assert second_kernel.runs == [("delete_file", {"path": "/tmp/x"})]
    assert first_kernel.runs == [("lookup", {"city": "Paris"})]
    assert engine.state.request_state == "completed"
    assert validate(provider.requests[-1]["messages"]) == []
    assert engine.export_record()["paused_turn"] is None


async def test_a_finished_turn_clears_its_snapshot_so_a_second_restore_runs_nothing(tmp_path: Path) -> None:
    messages = await pause_and_save(tmp_path, Ledger())
    engine = fresh_engine(tmp_path, Ledger(), messages, ScriptedProvider().text("ok"))
    await engine.dispatch_command(TOOL_RESUME, {"tool_call_id": "c_delete"})
    FileStore(store_path(tmp_path)).save("conv", engine.export_record())
    third = Ledger()
    again = fresh_engine(tmp_path, third, roundtrip(engine.messages), ScriptedProvider())
    assert again.state.request_state == "idle"
    assert (await again.dispatch_command(TOOL_RESUME, {"tool_call_id": "c_delete"}))["status"] == "missing"
    assert third.runs == []


def refused(engine: MessageEngine, ledger: Ledger, phrase: str) -> None:
    assert engine.state.request_state == "idle"
    assert engine.state.notice is not None
    assert phrase in engine.state.notice
    assert "Nothing was run" in engine.state.notice
    assert ledger.runs == []


async def test_restore_is_refused_when_no_message_has_the_snapshots_turn_id(tmp_path: Path) -> None:
    messages = await pause_and_save(tmp_path, Ledger())
    for message in messages:
        if message.get("state", {}).get("turn_id"):
            message["state"]["turn_id"] = "turn_other"
    ledger = Ledger()
    engine = fresh_engine(tmp_path, ledger, messages, ScriptedProvider())
    refused(engine, ledger, "no assistant message of turn")
    kept = engine.messages[:len(messages)]
    assert [(m["id"], m.get("content")) for m in kept] == [(m["id"], m.get("content")) for m in messages]
    unanswered = engine.messages[len(messages):]
    assert [(m["tool_call_id"], m["content"]) for m in unanswered] == [("c_delete", "cancelled — outcome unknown")]
    assert statuses(engine)["c_delete"] == "cancelled"


async def test_restore_is_refused_when_the_awaiting_set_differs(tmp_path: Path) -> None:
    messages = await pause_and_save(tmp_path, Ledger())
    calls = next(m for m in messages if m.get("tool_calls"))["state"]["tool_calls"]
    calls["c_lookup"]["status"] = "awaiting-approval"
    ledger = Ledger()
    engine = fresh_engine(tmp_path, ledger, messages, ScriptedProvider())
    refused(engine, ledger, "the awaiting calls differ")


async def test_restore_is_refused_when_the_arguments_changed(tmp_path: Path) -> None:
    messages = await pause_and_save(tmp_path, Ledger())
    call = next(c for m in messages for c in m.get("tool_calls") or [] if c["id"] == "c_delete")
    call["function"]["arguments"] = '{"path": "/"}'
    ledger = Ledger()
    engine = fresh_engine(tmp_path, ledger, messages, ScriptedProvider())
    refused(engine, ledger, "the arguments of call 'c_delete' changed")
    assert (await engine.dispatch_command(TOOL_RESUME, {"tool_call_id": "c_delete"}))["status"] == "missing"
    assert ledger.runs == []


async def test_restore_is_refused_for_an_unknown_snapshot_version(tmp_path: Path) -> None:
    messages = await pause_and_save(tmp_path, Ledger())
    path = store_path(tmp_path)
    data = json.loads(path.read_text())
    data["conversations"]["conv"]["items"]["main"]["paused_turn"]["version"] = 99
    path.write_text(json.dumps(data))
    ledger = Ledger()
    engine = fresh_engine(tmp_path, ledger, messages, ScriptedProvider())
    refused(engine, ledger, "can't be read")


async def test_a_restored_call_whose_tool_is_not_registered_cannot_be_approved_but_can_be_denied(
        tmp_path: Path) -> None:
    messages = await pause_and_save(tmp_path, Ledger())
    ledger = Ledger()
    provider = ScriptedProvider().text("ok, not deleting")
    engine = fresh_engine(tmp_path, ledger, messages, provider, tools=[ledger.tools()[0]])
    assert engine.state.is_paused
    result = await engine.dispatch_command(TOOL_RESUME, {"tool_call_id": "c_delete"})
    assert result["status"] == "unavailable"
    assert "'delete_file' is not registered in this kernel" in result["error"]
    assert engine.state.is_paused
    denied = await engine.dispatch_command(TOOL_REJECT, {"tool_call_id": "c_delete"})
    assert denied["status"] == "denied"
    assert engine.state.request_state == "completed"
    assert ledger.runs == []
    assert validate(provider.requests[-1]["messages"]) == []


async def test_two_conversations_may_reuse_a_tool_call_id_without_mixing_up(tmp_path: Path) -> None:
    store = FileStore(store_path(tmp_path))
    for key, path in (("a", "/tmp/a"), ("b", "/tmp/b")):
        provider = ScriptedProvider().tool_calls([{"name": "delete_file", "arguments": {"path": path},
                                                   "id": "call_same"}])
        engine = MessageEngine(provider, plugins=[ToolPlugin(Ledger().tools())])
        await engine.send_message("go")
        store.save(key, engine.export_record())
    ledger = Ledger()
    restored_b = fresh_engine(tmp_path, ledger, store.load("b")["messages"], ScriptedProvider().text("ok"), key="b")
    await restored_b.dispatch_command(TOOL_RESUME, {"tool_call_id": "call_same"})
    assert ledger.runs == [("delete_file", {"path": "/tmp/b"})]
    other = Ledger()
    restored_a = fresh_engine(tmp_path, other, store.load("a")["messages"], ScriptedProvider().text("ok"), key="a")
    assert restored_a.state.is_paused
    await restored_a.dispatch_command(TOOL_RESUME, {"tool_call_id": "call_same"})
    assert other.runs == [("delete_file", {"path": "/tmp/a"})]


async def test_an_engine_restored_from_its_own_export_record_is_paused_on_the_same_calls() -> None:
    ledger = Ledger()
    provider = ScriptedProvider().tool_calls([{"name": "delete_file", "arguments": {"path": "p"}, "id": "c1"}])
    engine = make_engine(provider, ledger)
    await engine.send_message("go")
    record = json.loads(json.dumps(engine.export_record()))
    assert record["paused_turn"]["tool_call_ids"] == ["c1"]
    assert [m["role"] for m in record["messages"]] == ["user", "assistant"]
    again = MessageEngine(ScriptedProvider().text("done"), plugins=[ToolPlugin(ledger.tools())])
    again.load(record)
    assert again.state.is_paused
    assert again.turns[-1]["end_reason"] is None
    await again.dispatch_command(TOOL_RESUME, {"tool_call_id": "c1"})
    assert ledger.runs == [("delete_file", {"path": "p"})]
    assert again.turns[-1]["end_reason"] == "completed"
