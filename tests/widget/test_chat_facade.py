from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from notebook_chat import Chat, tool
from notebook_chat.engine import Plugin, PluginContext
from notebook_chat.persistence import FileStore
from notebook_chat.providers import DemoModel, OpenAIChat
from notebook_chat.testing import ScriptedProvider

from .widget_doubles import RecordingComm, active_conversation, drawn, notebook_entry


def sent(chat: Chat) -> list[dict[str, Any]]:
    comm = chat.widget.comm
    assert isinstance(comm, RecordingComm)
    return comm.sent


async def settle() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


def approval_chat(provider: ScriptedProvider, ran: list[str], **options: Any) -> Chat:
    @tool(approval=True)
    def drop_table(name: str) -> str:
        """Drop a table."""
        ran.append(name)
        return f"dropped {name}"

    return Chat(provider, tools=[drop_table], **options)


def test_without_an_api_key_the_chat_uses_the_offline_demo_model_and_says_so(
        monkeypatch: pytest.MonkeyPatch, recording_comms: list[RecordingComm]) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    chat = Chat()
    assert isinstance(chat.provider, DemoModel)
    assert chat.widget.header == "DemoModel (offline)"


def test_with_an_api_key_the_chat_uses_openai_and_the_header_names_the_model_without_the_key(
        monkeypatch: pytest.MonkeyPatch, recording_comms: list[RecordingComm]) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    chat = Chat(model="gpt-test")
    assert isinstance(chat.provider, OpenAIChat)
    assert "gpt-test" in chat.widget.header
    assert "sk-secret" not in chat.widget.header


def test_with_only_a_base_url_the_chat_uses_that_server_and_the_header_names_it_and_the_model(
        monkeypatch: pytest.MonkeyPatch, recording_comms: list[RecordingComm]) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")
    chat = Chat(model="gemma-local")
    assert isinstance(chat.provider, OpenAIChat)
    assert chat.widget.header == "OpenAI gemma-local @ http://127.0.0.1:8080"


async def test_send_runs_a_turn_and_the_reply_is_readable(recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider().text("Hello from the kernel"), system="be brief")
    await chat.send("hi")
    assert chat.reply == "Hello from the kernel"
    assert [m["role"] for m in chat.messages] == ["system", "user", "assistant"]
    assert chat.state.request_state == "completed"


async def test_pending_approvals_lists_the_paused_calls_and_approve_runs_the_tool_once(
        recording_comms: list[RecordingComm]) -> None:
    ran: list[str] = []
    provider = ScriptedProvider().tool_calls([{"name": "drop_table", "arguments": {"name": "t1"}, "id": "c1"}])
    chat = approval_chat(provider.text("gone"), ran)
    await chat.send("drop t1")
    assert chat.pending_approvals == [{"tool_call_id": "c1", "name": "drop_table", "arguments": '{"name": "t1"}'}]
    await chat.approve("c1")
    assert ran == ["t1"]
    assert chat.reply == "gone"
    with pytest.raises(ValueError, match="not waiting for a decision"):
        await chat.approve("c1")
    assert ran == ["t1"]


async def test_deny_with_a_reason_reaches_the_model(recording_comms: list[RecordingComm]) -> None:
    ran: list[str] = []
    provider = ScriptedProvider().tool_calls([{"name": "drop_table", "arguments": {"name": "t1"}, "id": "c1"}])
    chat = approval_chat(provider.text("ok"), ran)
    await chat.send("drop t1")
    await chat.deny("c1", "I still need it")
    assert ran == []
    assert "I still need it" in provider.requests[-1]["messages"][-1]["content"]


async def test_stop_then_continue_turn_sends_a_hidden_continuation(recording_comms: list[RecordingComm]) -> None:
    provider = ScriptedProvider().text("a long story that is cut", chunks=10, delay=0.01).text("the end")
    chat = Chat(provider)
    turn = chat.submit("story")
    await asyncio.sleep(0.03)
    await chat.stop()
    await turn
    assert chat.state.request_state == "aborted"
    view = chat.view_state()
    assert view["continue_offer"]["message_id"] == view["messages"][-1]["id"]
    await chat.continue_turn()
    assert chat.reply == "the end"
    assert [m["role"] for m in chat.view_state()["messages"]] == ["user", "assistant", "assistant"]


async def test_continue_after_a_completed_turn_raises_a_clear_error(recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider().text("done"))
    await chat.send("hi")
    with pytest.raises(ValueError, match="nothing to continue"):
        await chat.continue_turn()


async def test_the_view_folds_tool_results_into_their_cards(recording_comms: list[RecordingComm]) -> None:
    ran: list[str] = []
    provider = ScriptedProvider().tool_calls([{"name": "drop_table", "arguments": {"name": "t1"}, "id": "c1"}])
    chat = approval_chat(provider.text("gone"), ran)
    await chat.send("drop t1")
    card = chat.view_state()["messages"][1]["tool_calls"][0]
    assert card == {"id": "c1", "name": "drop_table", "arguments": '{\n  "name": "t1"\n}',
                    "status": "awaiting-approval"}
    await chat.approve("c1", arguments='{"name": "t2"}')
    card = chat.view_state()["messages"][1]["tool_calls"][0]
    assert card["status"] == "success"
    assert card["result"].endswith("dropped t2")
    assert card["edited_arguments"] == '{\n  "name": "t2"\n}'
    assert all(m["role"] != "tool" for m in chat.view_state()["messages"])


async def record_paused_on_drop_table(ran: list[str]) -> dict[str, Any]:
    """What a kernel writes to the notebook's metadata (key "cell-1") once drop_table waits for approval."""
    first = approval_chat(ScriptedProvider().tool_calls(
        [{"name": "drop_table", "arguments": {"name": "t1"}, "id": "c1"}]), ran, key="cell-1")
    await first.restore(None, {"notebook": True, "cell_id": "cell-1"})
    await first.send("drop t1")
    return notebook_entry(sent(first))  # type: ignore[no-any-return]


async def test_the_browser_restores_a_paused_turn_from_notebook_metadata_and_approve_runs_once(
        recording_comms: list[RecordingComm]) -> None:
    ran: list[str] = []
    record = await record_paused_on_drop_table(ran)
    assert active_conversation(record)["paused_turn"]["tool_call_ids"] == ["c1"]

    restarted: list[str] = []
    second = approval_chat(ScriptedProvider().text("dropped it"), restarted, key="cell-1")
    await second.restore(record, {"notebook": True, "cell_id": "cell-1"})
    assert second.state.is_paused
    assert second.pending_approvals[0]["tool_call_id"] == "c1"
    await second.approve("c1")
    assert restarted == ["t1"]
    assert ran == []
    final = notebook_entry([{"kind": "persist", "key": "cell-1", "revision": record["revision"], "base": None,
                             "ops": [{"op": "set", "path": [], "value": record}]}, *sent(second)])
    final = active_conversation(final)
    assert final["paused_turn"] is None
    assert final["turns"][-1]["end_reason"] == "completed"


async def test_the_kernels_live_state_beats_the_metadata_of_a_re_rendered_view(
        recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider().text("one").text("two"), key="k")
    await chat.restore(None, {"notebook": True, "cell_id": "k"})
    await chat.send("first")
    stale = notebook_entry(sent(chat))
    await chat.send("second")
    await chat.restore(stale, {"notebook": True, "cell_id": "k"})
    assert [m["content"] for m in chat.messages if m["role"] == "user"] == ["first", "second"]


async def test_hostile_metadata_is_refused_with_a_visible_reason_and_never_overwritten(
        recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider().text("fresh"), key="k")
    hostile = {"version": 1, "messages": [{"role": "user", "content": "<script>alert(1)</script>",
                                           "api_key": "sk-stolen"}],
               "turns": [], "paused_turn": None, "updated_at": "2026-01-01T00:00:00Z"}
    await chat.restore(hostile, {"notebook": True, "cell_id": "k"})
    assert "can't be used" in str(chat.state.notice)
    assert chat.view_state()["notice"] == chat.state.notice
    await chat.send("hello")
    assert all(m["kind"] != "persist" for m in sent(chat))
    assert chat.messages[0]["content"] == "hello"


async def test_without_a_notebook_the_chat_says_so_and_keeps_the_conversation_in_the_given_store(
        tmp_path: Path, recording_comms: list[RecordingComm]) -> None:
    store = FileStore(tmp_path / "chat.json")
    chat = Chat(ScriptedProvider().text("kept"), key="k", store=store)
    await chat.restore(None, {"notebook": False, "cell_id": None})
    assert "No notebook document is reachable" in str(chat.view_state()["notice"])
    assert "FileStore" in str(chat.state.notice)
    await chat.send("hi")
    assert [m["content"] for m in store.load("k")["messages"]] == ["hi", "kept"]
    again = Chat(ScriptedProvider(), key="k", store=FileStore(tmp_path / "chat.json"))
    assert [m["content"] for m in again.messages] == ["hi", "kept"]


async def test_a_ready_from_the_browser_is_answered_with_a_snapshot_of_the_conversation(
        recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider().text("hello"), key="k")
    await chat.send("hi")
    chat.widget._handle_custom_msg({"kind": "ready", "notebook": True, "cell_id": "k", "record": None}, [])
    await settle()
    snapshot = next(m for m in reversed(sent(chat)) if m["kind"] == "snapshot")
    assert [m["content"] for m in snapshot["view"]["messages"]] == ["hi", "hello"]


async def test_a_send_action_from_the_browser_streams_deltas_and_ends_with_a_view_patch(
        recording_comms: list[RecordingComm]) -> None:
    text = "word " * 300
    chat = Chat(ScriptedProvider().text(text, chunks=300, delay=0.0005), key="k")
    done = asyncio.Event()
    chat.subscribe(lambda event: done.set() if chat.state.request_state == "completed" else None)
    chat.widget._handle_custom_msg({"kind": "send", "text": "go", "request_id": "r1"}, [])
    await asyncio.wait_for(done.wait(), 10)
    await settle()
    chat.widget.flush()
    messages = sent(chat)
    deltas = [m for m in messages if m["kind"] == "delta"]
    assert len(messages) < 200
    assert [m["kind"] for m in messages if m["kind"] in ("snapshot", "view_patch")][-1] == "view_patch"
    assert drawn(messages)["messages"][-1]["content"] == text
    assert any(r["kind"] == "action_result" and r["request_id"] == "r1" and r["ok"] for r in messages)
    assert deltas


async def test_sending_while_a_turn_waits_for_approval_is_refused_with_a_clear_error(
        recording_comms: list[RecordingComm]) -> None:
    ran: list[str] = []
    provider = ScriptedProvider().tool_calls([{"name": "drop_table", "arguments": {"name": "t1"}, "id": "c1"}])
    chat = approval_chat(provider, ran)
    await chat.send("drop t1")
    with pytest.raises(ValueError, match="waits for an approval"):
        await chat.send("something else")
    assert len(provider.requests) == 1


def test_ask_from_a_script_returns_the_reply_or_the_pending_approvals(
        recording_comms: list[RecordingComm]) -> None:
    ran: list[str] = []
    provider = ScriptedProvider().text("plain answer").tool_calls(
        [{"name": "drop_table", "arguments": {"name": "t1"}, "id": "c1"}])
    chat = approval_chat(provider, ran)
    assert chat.ask("a question") == "plain answer"
    assert chat.ask("drop t1") == [{"tool_call_id": "c1", "name": "drop_table", "arguments": '{"name": "t1"}'}]
    assert ran == []


async def test_a_command_right_after_display_waits_for_the_notebooks_record_and_continues_it(
        recording_comms: list[RecordingComm]) -> None:
    ran: list[str] = []
    record = await record_paused_on_drop_table(ran)

    again = approval_chat(ScriptedProvider().text("dropped"), ran, key="cell-1")
    again._repr_mimebundle_()  # Run All after a restart: the cell shows the chat ...
    approving = asyncio.ensure_future(again.approve("c1"))  # ... and the next cell approves at once
    await asyncio.sleep(0.05)
    await again.restore(record, {"notebook": True, "cell_id": "cell-1"})  # the browser answers a moment later
    result = await approving
    assert result["status"] == "resumed"
    assert ran == ["t1"]


async def test_without_a_front_end_a_displayed_chat_waits_only_once_for_it(
        recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider().text("one").text("two"), restore_timeout=0.05)
    chat._repr_mimebundle_()
    await chat.send("first")
    assert chat._front_end_answered.is_set()
    await chat.send("second")
    assert chat.reply == "two"


class Counting(Plugin):
    """A user plugin that keeps its context (as plugins may) and counts the hooks it hears."""

    name = "counting"

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.ctx: PluginContext | None = None

    def on_init(self, ctx: PluginContext) -> None:
        self.calls.append("init")
        self.ctx = ctx

    def on_load(self, ctx: PluginContext) -> None:
        self.calls.append(f"load:{len(ctx.messages)}")

    async def on_turn_start(self, ctx: PluginContext) -> None:
        self.calls.append("turn")


async def test_a_notebook_restore_loads_into_the_same_engine_so_user_plugins_and_subscribers_stay_valid(
        recording_comms: list[RecordingComm]) -> None:
    record = await record_paused_on_drop_table([])
    plugin = Counting()
    chat = Chat(ScriptedProvider().text("dropped it").text("and more"), tools=[], plugins=[plugin], key="cell-1")
    engine = chat.engine
    events: list[str] = []
    chat.subscribe(lambda event: events.append(event.kind))
    await chat.restore(record, {"notebook": True, "cell_id": "cell-1"})
    assert chat.engine is engine
    assert plugin.ctx is not None
    assert plugin.ctx.engine is chat.engine
    assert plugin.calls == ["init", f"load:{len(active_conversation(record)['messages'])}"]
    assert chat.state.is_paused
    assert events  # the restore reached the one subscriber
    await chat.deny("c1")
    await chat.send("go on")
    assert plugin.calls == ["init", f"load:{len(active_conversation(record)['messages'])}", "turn"]
    assert plugin.ctx.messages[-1]["content"] == "and more"
