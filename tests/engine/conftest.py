from __future__ import annotations

from typing import Any

import pytest

from notebook_chat.engine import EngineEvent, MessageEngine, Plugin, PluginContext
from notebook_chat.testing.scripted import ScriptedProvider


class Recorder(Plugin):
    """Records every hook call in order into a shared log."""

    name = "recorder"

    def __init__(self, log: list[str], name: str = "recorder", priority: int = 0) -> None:
        self.log = log
        self.label = name
        self.name = name
        self.priority = priority

    def _add(self, hook: str) -> None:
        self.log.append(f"{self.label}.{hook}")

    def on_init(self, ctx: PluginContext) -> None:
        self._add("on_init")

    async def on_turn_start(self, ctx: PluginContext) -> None:
        self._add("on_turn_start")

    async def on_before_request(self, ctx: PluginContext) -> None:
        self._add("on_before_request")

    def on_completion_chunk(self, ctx: PluginContext, chunk: dict[str, Any]) -> None:
        self._add("on_completion_chunk")

    async def on_after_request(self, ctx: PluginContext) -> None:
        self._add("on_after_request")

    async def on_turn_pause(self, ctx: PluginContext) -> None:
        self._add("on_turn_pause")

    async def on_turn_resume(self, ctx: PluginContext) -> None:
        self._add("on_turn_resume")

    async def on_turn_abort(self, ctx: PluginContext) -> None:
        self._add("on_turn_abort")

    async def on_turn_end(self, ctx: PluginContext) -> None:
        self._add("on_turn_end")

    async def on_error(self, ctx: PluginContext, error: BaseException) -> None:
        self._add("on_error")

    def on_finally(self, ctx: PluginContext) -> None:
        self._add("on_finally")


@pytest.fixture
def provider() -> ScriptedProvider:
    return ScriptedProvider()


def transitions(engine: MessageEngine) -> list[tuple[str, str | None]]:
    """Subscribes and returns a list that fills with every distinct (request_state, processing_state)."""
    seen: list[tuple[str, str | None]] = []

    def on_event(event: EngineEvent) -> None:
        current = (engine.state.request_state, engine.state.processing_state)
        if not seen or seen[-1] != current:
            seen.append(current)

    engine.subscribe(on_event)
    return seen
