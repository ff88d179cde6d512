from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from notebook_chat.engine import MessageEngine, Plugin, PluginContext, ProviderError, TurnBlocked
from notebook_chat.persistence import ConversationAutosave, FileStore, MemoryStore, load_conversation
from notebook_chat.plugins import TURN_CONTINUE, ContinuationPlugin, ToolPlugin, continuation_text, continue_offer
from notebook_chat.providers import OpenAIChat
from notebook_chat.testing import ConnectionReset, FakeOpenAIServer, ScriptedProvider

from .tool_helpers import Ledger, statuses


def engine_with(provider: Any, *plugins: Any, **options: Any) -> MessageEngine:
    return MessageEngine(provider, plugins=[ContinuationPlugin(), *plugins], **options)


async def stop_mid_stream(engine: MessageEngine) -> None:
    got_text = asyncio.Event()
    unsubscribe = engine.subscribe(lambda e: got_text.set() if e.kind == "message" else None)
    turn = asyncio.create_task(engine.send_message("tell me a story"))
    await got_text.wait()
    await engine.abort()
    await turn
    unsubscribe()


# -- each end reason from a real path ----------------------------------------------------------------------------
async def test_stop_mid_stream_ends_the_turn_aborted_and_offers_continue_on_the_partial_reply() -> None:
    provider = ScriptedProvider().text("Once upon a time there was a kernel", chunks=8, delay=0.01)
    engine = engine_with(provider)
    await stop_mid_stream(engine)
    assert engine.turns[-1]["end_reason"] == "aborted"
    offer = continue_offer(engine)
    assert offer is not None
    assert offer["reason"] == "aborted"
    assert offer["message_id"] == engine.messages[-1]["id"]


@pytest.fixture
def server() -> Any:
    with FakeOpenAIServer() as fake:
        yield fake


async def test_a_server_error_ends_the_turn_error_with_the_providers_message(server: FakeOpenAIServer) -> None:
    server.enqueue_http_error(500, "upstream exploded")
    engine = engine_with(OpenAIChat("m", client=server.async_client()))
    with pytest.raises(ProviderError):
        await engine.send_message("hi")
    turn = engine.turns[-1]
    assert turn["end_reason"] == "error"
    assert "upstream exploded" in turn["detail"]
    offer = continue_offer(engine)
    assert offer is not None
    assert offer["message_id"] is None


async def test_a_connection_reset_mid_stream_ends_error_and_continue_sits_on_the_partial_reply(
        server: FakeOpenAIServer) -> None:
    server.enqueue_text("partial words arrive here", chunks=5, fault=ConnectionReset(after=2))
    engine = engine_with(OpenAIChat("m", client=server.async_client()))
    with pytest.raises(ProviderError, match=r"[Nn]etwork"):
        await engine.send_message("hi")
    reply = engine.messages[-1]
    assert reply["role"] == "assistant"
    assert reply["content"]
    assert continue_offer(engine)["message_id"] == reply["id"]  # type: ignore[index]


async def test_truncation_ends_max_tokens_and_continue_sends_the_token_limit_text(server: FakeOpenAIServer) -> None:
    server.enqueue_truncated("the first half of", chunks=2)
    server.enqueue_text("the second half.")
    engine = engine_with(OpenAIChat("m", client=server.async_client()))
    await engine.send_message("write")
    assert engine.turns[-1]["end_reason"] == "max-tokens"
    result = await engine.dispatch_command(TURN_CONTINUE, {})
    assert result["status"] == "continued"
    sent = server.requests[-1].body["messages"]
    assert "output-token limit" in sent[-1]["content"]
    assert engine.messages[-1]["content"] == "the second half."
    assert engine.turns[-1]["end_reason"] == "completed"


async def test_a_record_saved_mid_turn_and_loaded_as_after_a_crash_is_interrupted(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "chat.json")
    provider = ScriptedProvider().text("streaming and then the kernel dies", chunks=6, delay=0.01)
    engine = engine_with(provider)
    autosave = ConversationAutosave(engine, store, "conv", min_interval=0.0)
    turn = asyncio.create_task(engine.send_message("go"))
    saved_partial = asyncio.Event()
    engine.subscribe(lambda e: saved_partial.set() if "kernel" in json.dumps(store.load("conv") or {}) else None)
    await asyncio.wait_for(saved_partial.wait(), 5)
    turn.cancel()  # nothing after this point reaches the store: like a dead kernel
    autosave.close()
    with pytest.raises(asyncio.CancelledError):
        await turn
    loaded = load_conversation(store, "conv")
    assert loaded.refused is None
    revived = MessageEngine(ScriptedProvider(), plugins=[ContinuationPlugin()])
    revived.load(loaded.record)
    assert revived.turns[-1]["end_reason"] == "interrupted"
    assert revived.state.request_state == "idle"
    assert "kernel" in revived.messages[-1]["content"]
    assert revived.messages[-1]["loading"] is False
    assert continue_offer(revived)["reason"] == "interrupted"  # type: ignore[index]


async def test_a_blocked_turn_ends_blocked_and_is_not_continuable() -> None:
    class Guard(Plugin):
        name = "guard"

        async def on_turn_start(self, ctx: PluginContext) -> None:
            raise TurnBlocked("the notebook is read-only")

    provider = ScriptedProvider()
    engine = engine_with(provider, Guard())
    await engine.send_message("hi")
    assert engine.turns[-1]["end_reason"] == "blocked"
    assert engine.turns[-1]["detail"] == "the notebook is read-only"
    assert provider.requests == []
    assert continue_offer(engine) is None


# -- when Continue is offered -------------------------------------------------------------------------------------
async def test_continue_is_refused_after_a_completed_turn_and_nothing_is_sent() -> None:
    provider = ScriptedProvider().text("all done")
    engine = engine_with(provider)
    await engine.send_message("hi")
    result = await engine.dispatch_command(TURN_CONTINUE, {})
    assert result == {"status": "refused",
                      "reason": "the latest turn completed normally: there is nothing to continue"}
    assert len(provider.requests) == 1


async def test_continue_is_refused_while_a_turn_runs() -> None:
    provider = ScriptedProvider().text("slow", chunks=4, delay=0.02)
    engine = engine_with(provider)
    turn = asyncio.create_task(engine.send_message("hi"))
    await asyncio.sleep(0.01)
    result = await engine.dispatch_command(TURN_CONTINUE, {})
    await turn
    assert result["status"] == "refused"
    assert "a turn is running" in result["reason"]
    assert len(provider.requests) == 1


async def test_continue_is_refused_when_there_is_no_turn_and_while_paused() -> None:
    ledger = Ledger()
    provider = ScriptedProvider().tool_calls([{"name": "delete_file", "arguments": {"path": "p"}, "id": "c1"}])
    engine = engine_with(provider, ToolPlugin(ledger.tools()))
    assert (await engine.dispatch_command(TURN_CONTINUE, {}))["reason"] == "there is no turn to continue yet"
    await engine.send_message("delete")
    paused = await engine.dispatch_command(TURN_CONTINUE, {})
    assert "waiting for a tool approval" in paused["reason"]
    assert continue_offer(engine) is None


async def test_a_new_user_message_clears_the_offer() -> None:
    provider = ScriptedProvider().text("cut", finish_reason="length").text("fresh answer")
    engine = engine_with(provider)
    await engine.send_message("one")
    assert continue_offer(engine) is not None
    await engine.send_message("something else")
    assert continue_offer(engine) is None


async def test_the_continuation_message_is_sent_to_the_model_but_flagged_hidden_and_starts_a_new_turn() -> None:
    provider = ScriptedProvider().text("cut", finish_reason="length").text("rest")
    engine = engine_with(provider)
    await engine.send_message("one")
    first_turn = engine.state.turn_id
    await engine.dispatch_command(TURN_CONTINUE, {"instruction": "shorter please"})
    hidden = [m for m in engine.messages if (m.get("metadata") or {}).get("hidden")]
    assert len(hidden) == 1
    assert hidden[0]["metadata"]["continuation"] == "max-tokens"
    assert provider.requests[-1]["messages"][-1] == {"role": "user", "content": hidden[0]["content"]}
    assert "shorter please" in hidden[0]["content"]
    assert engine.state.turn_id != first_turn
    assert engine.messages[-1]["content"] == "rest"
    assert engine.messages[-1]["id"] != engine.messages[1]["id"]


@pytest.mark.parametrize(("reason", "phrase"), [
    ("aborted", "stopped by the user"), ("error", "request to the model failed"),
    ("max-tokens", "output-token limit"), ("interrupted", "kernel died")])
def test_each_reason_has_its_own_first_sentence_and_the_shared_rules(reason: str, phrase: str) -> None:
    text = continuation_text(reason, "HTTP 500: upstream exploded", "use pandas")
    first = text.split("\n\n")[0]
    assert phrase in first
    assert "do not repeat what is already visible" in text
    assert "verify the outcome of an interrupted tool call before retrying anything with side effects" in text
    assert text.endswith("The user adds: use pandas")
    assert ("HTTP 500: upstream exploded" in text) == (reason == "error")


async def test_the_error_continuation_carries_the_recorded_failure_text() -> None:
    provider = ScriptedProvider().failure(ProviderError("quota exceeded for model m")).text("ok")
    engine = engine_with(provider)
    with pytest.raises(ProviderError):
        await engine.send_message("hi")
    await engine.dispatch_command(TURN_CONTINUE, {})
    assert "The error was: quota exceeded for model m" in provider.requests[-1]["messages"][-1]["content"]


async def test_nothing_continues_by_itself_after_an_interruption() -> None:
    provider = ScriptedProvider().text("cut", finish_reason="length")
    engine = engine_with(provider)
    await engine.send_message("hi")
    await asyncio.sleep(0.05)
    assert len(provider.requests) == 1


# -- a crash inside a tool round ---------------------------------------------------------------------------------
async def test_a_crash_inside_a_tool_round_yields_outcome_unknown_results_and_no_tool_re_runs() -> None:
    ledger = Ledger()
    store = MemoryStore()
    provider = ScriptedProvider().tool_calls([
        {"name": "slow", "arguments": {"seconds": 5}, "id": "c_slow"},
        {"name": "lookup", "arguments": {"city": "Rome"}, "id": "c_fast"}])
    engine = engine_with(provider, ToolPlugin(ledger.tools()))
    autosave = ConversationAutosave(engine, store, "k", min_interval=0.0)
    turn = asyncio.create_task(engine.send_message("go"))
    await asyncio.wait_for(ledger.slow_started.wait(), 5)
    autosave.save_now()
    autosave.close()  # the kernel dies here: nothing more is saved
    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn
    runs_before = list(ledger.runs)
    next_kernel = ScriptedProvider().text("checked")
    revived = MessageEngine(next_kernel, plugins=[ContinuationPlugin(), ToolPlugin(ledger.tools())])
    revived.load(load_conversation(store, "k").record)
    results = {m["tool_call_id"]: m["content"] for m in revived.messages if m["role"] == "tool"}
    assert results["c_slow"] == "cancelled — outcome unknown"
    assert statuses(revived)["c_slow"] == "cancelled"
    await revived.dispatch_command(TURN_CONTINUE, {})
    assert ledger.runs == runs_before
    sent = next_kernel.requests[0]["messages"]
    assert any(m.get("tool_call_id") == "c_slow" and "outcome unknown" in m["content"] for m in sent)


def test_an_abort_that_was_not_the_users_says_so_in_the_first_sentence() -> None:
    assert continuation_text("aborted", "disposed").startswith(
        "Your previous reply was cut off before it was finished: the chat was closed")
    assert "stopped by the user" in continuation_text("aborted", "user")
