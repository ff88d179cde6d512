from __future__ import annotations

import asyncio
import contextlib

import pytest

from notebook_chat.engine import EngineWarning, MessageEngine, ProviderError
from notebook_chat.testing.scripted import ScriptedProvider

from .conftest import Recorder, transitions


async def test_a_plain_turn_appends_the_user_message_and_the_streamed_reply(provider: ScriptedProvider) -> None:
    provider.text("Hello there, friend.", chunks=4)
    engine = MessageEngine(provider)
    await engine.send_message("  hi  ")
    assert [(m["role"], m["content"]) for m in engine.messages] == [
        ("user", "hi"), ("assistant", "Hello there, friend.")]
    assert engine.state.request_state == "completed"
    assert engine.messages[1]["state"]["finish_reason"] == "stop"
    assert engine.messages[1]["loading"] is False


async def test_empty_text_warns_and_starts_no_turn(provider: ScriptedProvider) -> None:
    engine = MessageEngine(provider)
    with pytest.warns(EngineWarning, match="empty message"):
        await engine.send_message("   ")
    assert engine.messages == []
    assert provider.requests == []
    assert engine.state.request_state == "idle"


async def test_a_second_send_while_a_turn_runs_warns_and_sends_nothing(provider: ScriptedProvider) -> None:
    provider.text("slow reply", chunks=5, delay=0.01)
    engine = MessageEngine(provider)
    first = asyncio.create_task(engine.send_message("one"))
    await asyncio.sleep(0.005)
    with pytest.warns(EngineWarning, match="processing"):
        await engine.send_message("two")
    await first
    assert [m["content"] for m in engine.messages if m["role"] == "user"] == ["one"]
    assert len(provider.requests) == 1


async def test_hooks_run_in_documented_order_for_a_plain_turn(provider: ScriptedProvider) -> None:
    log: list[str] = []
    provider.text("ab", chunks=2)
    engine = MessageEngine(provider, plugins=[Recorder(log)])
    await engine.send_message("hi")
    assert log == [
        "recorder.on_init", "recorder.on_turn_start", "recorder.on_before_request",
        "recorder.on_completion_chunk", "recorder.on_completion_chunk", "recorder.on_completion_chunk",
        "recorder.on_after_request", "recorder.on_turn_end", "recorder.on_finally",
    ]


async def test_hooks_run_in_documented_order_for_a_turn_with_a_follow_up_request(
        provider: ScriptedProvider) -> None:
    log: list[str] = []

    class FollowUpOnce(Recorder):
        async def on_after_request(self, ctx):  # type: ignore[no-untyped-def]
            await super().on_after_request(ctx)
            if len(provider.requests) == 1:
                ctx.request_next()

    provider.text("first").text("second")
    engine = MessageEngine(provider, plugins=[FollowUpOnce(log)])
    await engine.send_message("hi")
    assert [entry for entry in log if "chunk" not in entry] == [
        "recorder.on_init", "recorder.on_turn_start",
        "recorder.on_before_request", "recorder.on_after_request",
        "recorder.on_before_request", "recorder.on_after_request",
        "recorder.on_turn_end", "recorder.on_finally",
    ]
    assert [m["content"] for m in engine.messages] == ["hi", "first", "second"]


async def test_serial_hooks_follow_priority_then_registration_order(provider: ScriptedProvider) -> None:
    log: list[str] = []
    provider.text("x")
    plugins = [Recorder(log, "low", priority=-1), Recorder(log, "first", priority=5), Recorder(log, "second", 5)]
    engine = MessageEngine(provider, plugins=plugins)
    await engine.send_message("hi")
    assert [e for e in log if e.endswith("on_turn_start")] == [
        "first.on_turn_start", "second.on_turn_start", "low.on_turn_start"]


async def test_after_request_hooks_run_concurrently(provider: ScriptedProvider) -> None:
    provider.text("x")
    both_started = asyncio.Event()
    started: list[str] = []

    class Waits(Recorder):
        async def on_after_request(self, ctx):  # type: ignore[no-untyped-def]
            started.append(self.label)
            if len(started) == 2:
                both_started.set()
            await asyncio.wait_for(both_started.wait(), timeout=1)  # deadlocks if run one after the other

    engine = MessageEngine(provider, plugins=[Waits([], "a"), Waits([], "b")])
    await engine.send_message("hi")
    assert sorted(started) == ["a", "b"]
    assert engine.state.request_state == "completed"


async def test_a_pause_beats_request_next(provider: ScriptedProvider) -> None:
    provider.text("x").text("never requested")
    log: list[str] = []

    class Next(Recorder):
        async def on_after_request(self, ctx):  # type: ignore[no-untyped-def]
            ctx.request_next()

    class Pause(Recorder):
        async def on_after_request(self, ctx):  # type: ignore[no-untyped-def]
            ctx.pause()
            assert ctx.state.request_state == "processing"
            assert ctx.state.processing_state == "pausing"

    engine = MessageEngine(provider, plugins=[Next(log, "next"), Pause(log, "pause")])
    seen = transitions(engine)
    await engine.send_message("hi")
    assert len(provider.requests) == 1
    assert engine.state.request_state == "paused"
    assert seen[-2:] == [("processing", "pausing"), ("paused", None)]


async def test_paused_is_published_only_after_every_pause_hook_finished(provider: ScriptedProvider) -> None:
    provider.text("x")
    states_during_pause_hooks: list[str] = []

    class Pause(Recorder):
        async def on_after_request(self, ctx):  # type: ignore[no-untyped-def]
            ctx.set_request_state("paused")

        async def on_turn_pause(self, ctx):  # type: ignore[no-untyped-def]
            await asyncio.sleep(0)
            states_during_pause_hooks.append(ctx.state.request_state)

    engine = MessageEngine(provider, plugins=[Pause([], "a"), Pause([], "b")])
    await engine.send_message("hi")
    assert states_during_pause_hooks == ["processing", "processing"]
    assert engine.state.is_paused
    assert not engine.state.is_processing
    assert not engine.state.can_start_turn


async def test_subscribers_see_every_transition_of_a_turn(provider: ScriptedProvider) -> None:
    provider.text("hello", chunks=3)
    engine = MessageEngine(provider)
    seen = transitions(engine)
    await engine.send_message("hi")
    assert seen == [("processing", "requesting"), ("processing", "completing"), ("completed", None)]


async def test_unsubscribe_stops_the_events(provider: ScriptedProvider) -> None:
    provider.text("a").text("b")
    engine = MessageEngine(provider)
    events: list[str] = []
    unsubscribe = engine.subscribe(lambda event: events.append(event.kind))
    await engine.send_message("one")
    count = len(events)
    unsubscribe()
    await engine.send_message("two")
    assert count > 0
    assert len(events) == count


async def test_message_events_carry_only_the_appended_text(provider: ScriptedProvider) -> None:
    provider.text("abcdef", chunks=3)
    engine = MessageEngine(provider)
    appended: list[tuple[str | None, str]] = []
    engine.subscribe(lambda e: appended.append((e.field, e.text)) if e.kind == "message" else None)
    await engine.send_message("hi")
    assert appended == [("content", "ab"), ("content", "cd"), ("content", "ef")]


async def test_abort_mid_stream_keeps_the_partial_text_and_ends_aborted(provider: ScriptedProvider) -> None:
    provider.text("one two three four five six", chunks=6, delay=0.02)
    log: list[str] = []
    engine = MessageEngine(provider, plugins=[Recorder(log)])
    got_text = asyncio.Event()
    engine.subscribe(lambda e: got_text.set() if e.kind == "message" else None)
    turn = asyncio.create_task(engine.send_message("hi"))
    await got_text.wait()
    await engine.abort()
    await turn
    reply = engine.messages[-1]
    assert engine.state.request_state == "aborted"
    assert reply["role"] == "assistant"
    assert reply["content"].startswith("one")
    assert reply["content"] != "one two three four five six"
    assert reply["state"]["interrupted"] is True
    assert engine.turns[-1]["end_reason"] == "aborted"
    assert engine.turns[-1]["detail"] == "user"
    assert log[-2:] == ["recorder.on_turn_abort", "recorder.on_finally"]


async def test_abort_before_the_first_token_leaves_no_empty_reply(provider: ScriptedProvider) -> None:
    provider.text("late", delay=0.5)
    engine = MessageEngine(provider)
    turn = asyncio.create_task(engine.send_message("hi"))
    await asyncio.sleep(0.01)
    await engine.abort()
    await turn
    assert [m["role"] for m in engine.messages] == ["user"]
    assert engine.state.request_state == "aborted"


async def test_cancelling_the_caller_of_send_aborts_the_turn_as_disposed(provider: ScriptedProvider) -> None:
    provider.text("never finishes", chunks=5, delay=0.05)
    engine = MessageEngine(provider)
    turn = asyncio.create_task(engine.send_message("hi"))
    await asyncio.sleep(0.02)
    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn
    assert engine.state.request_state == "aborted"
    assert engine.turns[-1]["detail"] == "disposed"


async def test_a_provider_error_ends_the_turn_in_error_and_reaches_the_caller(provider: ScriptedProvider) -> None:
    provider.text("partial answer", chunks=2, error=ProviderError("rate limited: slow down", kind="rate-limit"),
                  error_at=2)
    log: list[str] = []
    engine = MessageEngine(provider, plugins=[Recorder(log)])
    with pytest.raises(ProviderError, match="rate limited"):
        await engine.send_message("hi")
    assert engine.state.request_state == "error"
    assert engine.state.error == "rate limited: slow down"
    assert engine.messages[-1]["content"] == "partial answer"
    assert engine.messages[-1]["state"]["error"] == "rate limited: slow down"
    assert engine.turns[-1]["end_reason"] == "error"
    assert engine.turns[-1]["detail"] == "rate limited: slow down"
    assert log[-2:] == ["recorder.on_error", "recorder.on_finally"]


async def test_a_new_turn_after_an_error_clears_it(provider: ScriptedProvider) -> None:
    provider.failure(ProviderError("boom")).text("fine")
    engine = MessageEngine(provider)
    with pytest.raises(ProviderError):
        await engine.send_message("one")
    await engine.send_message("two")
    assert engine.state.error is None
    assert engine.state.request_state == "completed"


async def test_a_complete_completion_is_accepted_instead_of_a_stream(provider: ScriptedProvider) -> None:
    provider.completion({"role": "assistant", "content": "whole"}, finish_reason="stop")
    engine = MessageEngine(provider)
    await engine.send_message("hi")
    assert engine.messages[-1]["content"] == "whole"
    assert engine.messages[-1]["state"]["finish_reason"] == "stop"


async def test_finish_reason_length_ends_the_turn_as_max_tokens(provider: ScriptedProvider) -> None:
    provider.text("cut here", finish_reason="length")
    engine = MessageEngine(provider)
    await engine.send_message("hi")
    assert engine.state.request_state == "completed"
    assert engine.turns[-1]["end_reason"] == "max-tokens"


async def test_abort_ends_aborted_even_when_the_provider_swallows_the_cancellation() -> None:
    from collections.abc import AsyncIterator
    from typing import Any

    from notebook_chat.engine import CancelHandle

    started = asyncio.Event()

    async def stubborn(body: dict[str, Any], cancel: CancelHandle) -> AsyncIterator[dict[str, Any]]:
        async def stream() -> AsyncIterator[dict[str, Any]]:
            yield {"choices": [{"index": 0, "delta": {"content": "partial"}, "finish_reason": None}]}
            started.set()
            while not cancel.cancelled:
                with contextlib.suppress(asyncio.CancelledError):  # lost, as wait_for can lose it on 3.11
                    await asyncio.sleep(0.01)
            yield {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}

        return stream()

    engine = MessageEngine(stubborn)
    turn = asyncio.create_task(engine.send_message("hi"))
    await started.wait()
    await engine.abort()
    await turn
    assert engine.state.request_state == "aborted"
    assert engine.turns[-1]["end_reason"] == "aborted"
    assert engine.messages[-1]["content"] == "partial"
