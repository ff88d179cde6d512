from __future__ import annotations

import asyncio
from typing import Any

import pytest

from notebook_chat.engine import Plugin, PluginContext
from notebook_chat.plugins.tools import TOOL_REJECT, TOOL_RESUME, ToolError
from notebook_chat.testing.scripted import ScriptedProvider

from .tool_helpers import Ledger, assert_every_request_is_valid, make_engine, statuses


def two_calls(provider: ScriptedProvider) -> ScriptedProvider:
    return provider.tool_calls([
        {"name": "lookup", "arguments": {"city": "Paris"}, "id": "c_lookup"},
        {"name": "delete_file", "arguments": {"path": "/tmp/x"}, "id": "c_delete"},
    ], fragments=2)


async def test_pauses_only_the_calls_that_need_approval() -> None:
    ledger = Ledger()
    provider = two_calls(ScriptedProvider())
    engine = make_engine(provider, ledger)
    await engine.send_message("weather and delete")
    assert engine.state.request_state == "paused"
    assert statuses(engine) == {"c_lookup": "success", "c_delete": "awaiting-approval"}
    assert ledger.runs == [("lookup", {"city": "Paris"})]
    assert [m["tool_call_id"] for m in engine.messages if m["role"] == "tool"] == ["c_lookup"]


async def test_should_pause_can_pause_a_tool_without_approval_flag() -> None:
    ledger = Ledger()
    provider = ScriptedProvider().tool_calls([{"name": "lookup", "arguments": {"city": "Rome"}, "id": "c1"}])
    engine = make_engine(provider, ledger, should_pause=lambda call, ctx: call["function"]["name"] == "lookup")
    await engine.send_message("weather")
    assert statuses(engine) == {"c1": "awaiting-approval"}
    assert ledger.runs == []


async def test_approving_runs_the_tool_and_continues_the_same_turn() -> None:
    ledger = Ledger()
    provider = two_calls(ScriptedProvider()).text("Done, file deleted.")
    engine = make_engine(provider, ledger)
    await engine.send_message("weather and delete")
    turn_id = engine.state.turn_id
    result = await engine.dispatch_command(TOOL_RESUME, {"tool_call_id": "c_delete"})
    assert result == {"status": "resumed", "tool_call_id": "c_delete"}
    assert ledger.runs[-1] == ("delete_file", {"path": "/tmp/x"})
    assert engine.state.request_state == "completed"
    assert engine.state.turn_id == turn_id
    assert len(engine.turns) == 1
    assert engine.messages[-1]["content"] == "Done, file deleted."
    last_request = provider.requests[-1]["messages"]
    assert [m["role"] for m in last_request] == ["user", "assistant", "tool", "tool"]
    assert_every_request_is_valid(provider)


async def test_resume_runs_the_turns_resume_hook_before_the_tool() -> None:
    ledger = Ledger()
    order: list[str] = []

    class Watch(Plugin):
        name = "watch"

        async def on_turn_resume(self, ctx: PluginContext) -> None:
            order.append(f"resume hook (runs so far: {len(ledger.runs)})")

    provider = two_calls(ScriptedProvider()).text("ok")
    engine = make_engine(provider, ledger, plugins=[Watch()],
                         on_tool_call_start=lambda call, ctx: order.append(f"start {call['id']}"))
    await engine.send_message("go")
    order.clear()
    await engine.dispatch_command(TOOL_RESUME, {"tool_call_id": "c_delete"})
    assert order == ["resume hook (runs so far: 1)", "start c_delete"]


async def test_does_not_execute_the_same_approval_twice_when_sent_concurrently() -> None:
    ledger = Ledger()
    provider = two_calls(ScriptedProvider()).text("ok")
    engine = make_engine(provider, ledger)
    await engine.send_message("go")
    results = await asyncio.gather(*(engine.dispatch_command(TOOL_RESUME, {"tool_call_id": "c_delete"})
                                     for _ in range(3)))
    assert sorted(r["status"] for r in results) == ["missing", "missing", "resumed"]
    assert [run for run in ledger.runs if run[0] == "delete_file"] == [("delete_file", {"path": "/tmp/x"})]


async def test_does_not_execute_the_same_approval_twice_when_sent_later() -> None:
    ledger = Ledger()
    provider = two_calls(ScriptedProvider()).text("ok")
    engine = make_engine(provider, ledger)
    await engine.send_message("go")
    await engine.dispatch_command(TOOL_RESUME, {"tool_call_id": "c_delete"})
    again = await engine.dispatch_command(TOOL_RESUME, {"tool_call_id": "c_delete"})
    assert again == {"status": "missing", "tool_call_id": "c_delete"}
    assert len([run for run in ledger.runs if run[0] == "delete_file"]) == 1


async def test_the_first_decision_wins_an_approve_deny_race() -> None:
    ledger = Ledger()
    provider = two_calls(ScriptedProvider()).text("ok")
    engine = make_engine(provider, ledger)
    await engine.send_message("go")
    deny, approve = await asyncio.gather(
        engine.dispatch_command(TOOL_REJECT, {"tool_call_id": "c_delete", "reason": "no"}),
        engine.dispatch_command(TOOL_RESUME, {"tool_call_id": "c_delete"}))
    assert (deny["status"], approve["status"]) == ("denied", "missing")
    assert statuses(engine)["c_delete"] == "denied"
    assert all(run[0] != "delete_file" for run in ledger.runs)


async def test_rejecting_one_of_two_awaiting_calls_keeps_the_turn_paused() -> None:
    ledger = Ledger()
    provider = ScriptedProvider().tool_calls([
        {"name": "delete_file", "arguments": {"path": "a"}, "id": "c_a"},
        {"name": "send_mail", "arguments": {"to": "bob"}, "id": "c_b"}])
    engine = make_engine(provider, ledger)
    await engine.send_message("go")
    result = await engine.dispatch_command(TOOL_REJECT, {"tool_call_id": "c_a"})
    assert result == {"status": "denied", "tool_call_id": "c_a"}
    assert engine.state.request_state == "paused"
    assert statuses(engine) == {"c_a": "denied", "c_b": "awaiting-approval"}
    assert len(provider.requests) == 1


async def test_a_denial_reason_reaches_the_model() -> None:
    ledger = Ledger()
    provider = two_calls(ScriptedProvider()).text("understood")
    engine = make_engine(provider, ledger)
    await engine.send_message("go")
    await engine.dispatch_command(TOOL_REJECT, {"tool_call_id": "c_delete", "reason": "keep my files"})
    sent = provider.requests[-1]["messages"]
    denied = next(m for m in sent if m.get("tool_call_id") == "c_delete")
    assert denied["content"] == "Denied by the user. Reason: keep my files"
    assert engine.state.request_state == "completed"
    assert_every_request_is_valid(provider)


class BrokenRegistry(Plugin):
    name = "broken"

    def __init__(self) -> None:
        self.broken = False

    def provide_tools(self, ctx: PluginContext) -> list[Any]:
        if self.broken:
            raise RuntimeError("tool registry unavailable")
        return []


async def test_a_failure_while_resolving_tools_on_resume_keeps_the_turn_paused_and_raises() -> None:
    broken = BrokenRegistry()
    provider = two_calls(ScriptedProvider())
    engine = make_engine(provider, Ledger(), plugins=[broken])
    await engine.send_message("go")
    broken.broken = True
    with pytest.raises(RuntimeError, match="tool registry unavailable"):
        await engine.dispatch_command(TOOL_RESUME, {"tool_call_id": "c_delete"})
    assert engine.state.request_state == "paused"
    assert statuses(engine)["c_delete"] == "awaiting-approval"


async def test_reject_works_when_the_tools_cannot_be_resolved() -> None:
    broken = BrokenRegistry()
    provider = ScriptedProvider().tool_calls([
        {"name": "delete_file", "arguments": {"path": "a"}, "id": "c_a"},
        {"name": "send_mail", "arguments": {"to": "bob"}, "id": "c_b"}])
    engine = make_engine(provider, Ledger(), plugins=[broken])
    await engine.send_message("go")
    broken.broken = True
    result = await engine.dispatch_command(TOOL_REJECT, {"tool_call_id": "c_a", "reason": "no"})
    assert result == {"status": "denied", "tool_call_id": "c_a"}
    assert statuses(engine) == {"c_a": "denied", "c_b": "awaiting-approval"}
    assert engine.state.request_state == "paused"


async def test_a_decision_while_no_turn_is_paused_or_for_an_unknown_id_is_missing() -> None:
    ledger = Ledger()
    provider = two_calls(ScriptedProvider())
    engine = make_engine(provider, ledger)
    assert await engine.dispatch_command(TOOL_RESUME, {"tool_call_id": "c_delete"}) == {
        "status": "missing", "tool_call_id": "c_delete"}
    await engine.send_message("go")
    assert (await engine.dispatch_command(TOOL_RESUME, {"tool_call_id": "nope"}))["status"] == "missing"
    assert (await engine.dispatch_command(TOOL_REJECT, {"tool_call_id": "c_lookup"}))["status"] == "missing"
    assert engine.state.request_state == "paused"


async def test_abort_while_paused_denies_every_awaiting_call() -> None:
    ledger = Ledger()
    provider = ScriptedProvider().tool_calls([
        {"name": "delete_file", "arguments": {"path": "a"}, "id": "c_a"},
        {"name": "send_mail", "arguments": {"to": "bob"}, "id": "c_b"}])
    engine = make_engine(provider, ledger)
    await engine.send_message("go")
    await engine.abort()
    assert engine.state.request_state == "aborted"
    assert statuses(engine) == {"c_a": "denied", "c_b": "denied"}
    results = {m["tool_call_id"]: m["content"] for m in engine.messages if m["role"] == "tool"}
    assert set(results) == {"c_a", "c_b"}
    assert all("Cancelled by the user" in text for text in results.values())
    assert engine.turns[-1]["end_reason"] == "aborted"
    assert ledger.runs == []


async def test_abort_while_another_tool_of_the_batch_still_runs() -> None:
    ledger = Ledger()
    provider = ScriptedProvider().tool_calls([
        {"name": "slow", "arguments": {"seconds": 5}, "id": "c_slow"},
        {"name": "delete_file", "arguments": {"path": "a"}, "id": "c_del"}])
    engine = make_engine(provider, ledger)
    turn = asyncio.create_task(engine.send_message("go"))
    await asyncio.wait_for(ledger.slow_started.wait(), timeout=5)
    await engine.abort()
    await turn
    assert engine.state.request_state == "aborted"
    assert statuses(engine) == {"c_slow": "cancelled", "c_del": "denied"}
    results = {m["tool_call_id"]: m["content"] for m in engine.messages if m["role"] == "tool"}
    assert results["c_slow"] == "cancelled — outcome unknown"
    assert "Cancelled by the user" in results["c_del"]
    from notebook_chat.engine.history import validate
    assert validate(engine.messages) == []


async def test_edited_arguments_reach_the_tool_and_the_history() -> None:
    ledger = Ledger()
    provider = two_calls(ScriptedProvider()).text("ok")
    engine = make_engine(provider, ledger)
    await engine.send_message("go")
    await engine.dispatch_command(TOOL_RESUME, {"tool_call_id": "c_delete", "arguments": '{"path": "/tmp/y"}'})
    assert ledger.runs[-1] == ("delete_file", {"path": "/tmp/y"})
    call_message = next(m for m in engine.messages if m.get("tool_calls"))
    entry = call_message["state"]["tool_calls"]["c_delete"]
    assert entry["original_arguments"] == '{"path": "/tmp/x"}'
    assert entry["arguments_edited"] == '{"path": "/tmp/y"}'
    sent = provider.requests[-1]["messages"]
    sent_call = next(c for m in sent for c in m.get("tool_calls") or [] if c["id"] == "c_delete")
    assert sent_call["function"]["arguments"] == '{"path": "/tmp/y"}'
    result = next(m for m in sent if m.get("tool_call_id") == "c_delete")
    assert "edited the arguments" in result["content"]
    assert "deleted /tmp/y" in result["content"]


async def test_edited_arguments_that_are_not_a_json_object_are_refused_and_nothing_runs() -> None:
    ledger = Ledger()
    provider = two_calls(ScriptedProvider())
    engine = make_engine(provider, ledger)
    await engine.send_message("go")
    result = await engine.dispatch_command(TOOL_RESUME, {"tool_call_id": "c_delete", "arguments": "[1, 2]"})
    assert result["status"] == "invalid-arguments"
    assert engine.state.request_state == "paused"
    assert statuses(engine)["c_delete"] == "awaiting-approval"


async def test_two_calls_approved_one_after_the_other_both_run_and_the_turn_continues_once() -> None:
    ledger = Ledger()
    provider = ScriptedProvider().tool_calls([
        {"name": "delete_file", "arguments": {"path": "a"}, "id": "c_a"},
        {"name": "send_mail", "arguments": {"to": "bob"}, "id": "c_b"}]).text("both done")
    engine = make_engine(provider, ledger)
    await engine.send_message("go")
    await asyncio.gather(engine.dispatch_command(TOOL_RESUME, {"tool_call_id": "c_a"}),
                         engine.dispatch_command(TOOL_RESUME, {"tool_call_id": "c_b"}))
    assert sorted(run[0] for run in ledger.runs) == ["delete_file", "send_mail"]
    assert len(provider.requests) == 2
    assert engine.state.request_state == "completed"
    assert_every_request_is_valid(provider)


async def test_a_tool_that_raises_gives_a_failed_result_and_the_turn_goes_on() -> None:
    from notebook_chat.engine import MessageEngine
    from notebook_chat.plugins.tool_definition import tool
    from notebook_chat.plugins.tools import ToolPlugin

    @tool
    def explode() -> str:
        """Always fails."""
        raise ValueError("bad input")

    provider = ScriptedProvider().tool_calls([{"name": "explode", "arguments": {}, "id": "c1"}]).text("sorry")
    engine = MessageEngine(provider, plugins=[ToolPlugin([explode])])
    await engine.send_message("go")
    result = next(m for m in engine.messages if m["role"] == "tool")
    assert "ValueError: bad input" in result["content"]
    assert statuses(engine) == {"c1": "failed"}
    assert engine.state.request_state == "completed"


async def test_an_unknown_tool_name_from_the_model_gives_a_failed_result() -> None:
    ledger = Ledger()
    provider = ScriptedProvider().tool_calls([{"name": "nope", "arguments": {}, "id": "c1"}]).text("ok")
    engine = make_engine(provider, ledger)
    await engine.send_message("go")
    result = next(m for m in engine.messages if m["role"] == "tool")
    assert "unknown tool 'nope'" in result["content"]


def test_two_tools_with_the_same_name_are_an_error() -> None:
    ledger = Ledger()
    tools = ledger.tools()
    from notebook_chat.plugins.tools import ToolPlugin
    with pytest.raises(ToolError, match="two tools are named 'lookup'"):
        ToolPlugin([tools[0], tools[0]])


async def test_tools_from_another_plugins_provide_tools_are_offered_and_run() -> None:
    from notebook_chat.plugins.tool_definition import tool

    ran: list[str] = []

    @tool
    def ping() -> str:
        """Ping."""
        ran.append("ping")
        return "pong"

    class Provides(Plugin):
        name = "provides"

        def provide_tools(self, ctx: PluginContext) -> list[Any]:
            return [ping]

    provider = ScriptedProvider().tool_calls([{"name": "ping", "arguments": {}, "id": "c1"}]).text("ok")
    engine = make_engine(provider, Ledger(), plugins=[Provides()])
    await engine.send_message("go")
    assert "ping" in [t["function"]["name"] for t in provider.requests[0]["tools"]]
    assert ran == ["ping"]


async def test_a_duplicate_name_between_own_and_provided_tools_is_an_error() -> None:
    ledger = Ledger()

    class Provides(Plugin):
        name = "provides"

        def provide_tools(self, ctx: PluginContext) -> list[Any]:
            return [ledger.tools()[0]]

    provider = ScriptedProvider().text("ok")
    engine = make_engine(provider, ledger, plugins=[Provides()])
    with pytest.raises(ToolError, match="two tools are named 'lookup'"):
        await engine.send_message("go")
