"""Marks an assistant message as thinking while its reasoning streams, open until the answer starts."""

from __future__ import annotations

from typing import Any

from ..engine import Plugin, PluginContext


class ThinkingPlugin(Plugin):
    name = "thinking"

    def on_completion_chunk(self, ctx: PluginContext, chunk: dict[str, Any]) -> None:
        choices = chunk.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices else None
        delta = choice.get("delta") if isinstance(choice, dict) else None
        if not isinstance(delta, dict):
            return  # nothing to mark (a malformed chunk is the stream accumulator's to refuse, not ours)
        message = ctx.streaming_message
        if message is None:
            return
        state = message.setdefault("state", {})
        if delta.get("reasoning_content") or delta.get("reasoning"):
            if not state.get("thinking"):
                state["thinking"] = True
                state["thinking_open"] = True
                ctx.notify()
        elif state.get("thinking") and (delta.get("content") or delta.get("tool_calls")):
            state["thinking"] = False
            state["thinking_open"] = False
            ctx.notify()

    async def on_after_request(self, ctx: PluginContext) -> None:
        self._close(ctx)

    def on_finally(self, ctx: PluginContext) -> None:
        self._close(ctx)  # a stop or a failure mid-reasoning skips on_after_request

    @staticmethod
    def _close(ctx: PluginContext) -> None:
        message = ctx.streaming_message
        if message is not None and (message.get("state") or {}).get("thinking"):
            message["state"]["thinking"] = False
            message["state"]["thinking_open"] = False
            ctx.notify()
