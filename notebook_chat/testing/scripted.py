"""ScriptedProvider: replays queued replies and records every request body it received."""

from __future__ import annotations

import asyncio
import copy
import json
from collections import deque
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..engine.provider import CancelHandle


@dataclass
class ScriptedReply:
    chunks: list[dict[str, Any]] = field(default_factory=list)
    delay: float = 0.0
    """Seconds to sleep before each chunk."""
    error: BaseException | None = None
    error_at: int | None = None
    """Raise ``error`` before chunk ``error_at`` (None: after the last chunk; with no chunks: at once)."""
    complete: dict[str, Any] | None = None
    """Return this whole completion instead of a stream."""


def _chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish_reason}
    return {"object": "chat.completion.chunk", "choices": [choice]}


def split(text: str, parts: int) -> list[str]:
    parts = max(1, min(parts, len(text) or 1))
    size = -(-len(text) // parts) if text else 0
    return [text[i:i + size] for i in range(0, len(text), size)] if text else [""]


class ScriptedProvider:
    """``provider.text("hi", chunks=3)``, ``provider.tool_calls([...])``, then hand it to the engine."""

    def __init__(self, *replies: ScriptedReply, label: str = "ScriptedProvider") -> None:
        self.replies: deque[ScriptedReply] = deque(replies)
        self.requests: list[dict[str, Any]] = []
        self.label = label

    # -- scripting ---------------------------------------------------------------------------------------------
    def add(self, reply: ScriptedReply) -> ScriptedProvider:
        self.replies.append(reply)
        return self

    def text(self, text: str, *, chunks: int = 1, finish_reason: str | None = "stop", delay: float = 0.0,
             reasoning: str | None = None, error: BaseException | None = None,
             error_at: int | None = None) -> ScriptedProvider:
        stream = [_chunk({"reasoning_content": piece}) for piece in split(reasoning, chunks)] if reasoning else []
        stream += [_chunk({"content": piece}) for piece in split(text, chunks) if piece]
        if finish_reason:
            stream.append(_chunk({}, finish_reason))
        return self.add(ScriptedReply(stream, delay=delay, error=error, error_at=error_at))

    def tool_calls(self, calls: Iterable[dict[str, Any]], *, fragments: int = 1, with_index: bool = True,
                   content: str | None = None, finish_reason: str | None = "tool_calls",
                   delay: float = 0.0) -> ScriptedProvider:
        """``calls``: ``{"name": ..., "arguments": dict | str, "id": optional}``."""
        stream = [_chunk({"content": content})] if content else []
        for index, call in enumerate(calls):
            arguments = call.get("arguments", {})
            text = arguments if isinstance(arguments, str) else json.dumps(arguments)
            call_id = call.get("id") or f"call_{index}_{len(self.requests)}_{len(self.replies)}"
            for number, piece in enumerate(split(text, fragments)):
                fragment: dict[str, Any] = {"function": {"arguments": piece}}
                if number == 0:
                    fragment.update(id=call_id, type="function")
                    fragment["function"]["name"] = call["name"]
                if with_index:
                    fragment["index"] = index
                stream.append(_chunk({"tool_calls": [fragment]}))
        if finish_reason:
            stream.append(_chunk({}, finish_reason))
        return self.add(ScriptedReply(stream, delay=delay))

    def completion(self, message: dict[str, Any], finish_reason: str = "stop") -> ScriptedProvider:
        body = {"object": "chat.completion", "choices": [{"index": 0, "message": message,
                                                          "finish_reason": finish_reason}]}
        return self.add(ScriptedReply(complete=body))

    def failure(self, error: BaseException) -> ScriptedProvider:
        return self.add(ScriptedReply(error=error, error_at=0))

    # -- the provider protocol -------------------------------------------------------------------------------------
    async def __call__(self, body: dict[str, Any], cancel: CancelHandle) -> Any:
        self.requests.append(copy.deepcopy(body))
        if not self.replies:
            raise AssertionError("ScriptedProvider: no reply queued for this request")
        reply = self.replies.popleft()
        if reply.complete is not None:
            if reply.error is not None:
                raise reply.error
            return copy.deepcopy(reply.complete)
        if reply.error is not None and reply.error_at == 0 and not reply.delay:
            raise reply.error
        return self._stream(reply, cancel)

    @staticmethod
    async def _stream(reply: ScriptedReply, cancel: CancelHandle) -> AsyncIterator[dict[str, Any]]:
        for number, chunk in enumerate(reply.chunks):
            if reply.error is not None and reply.error_at == number:
                raise reply.error
            if reply.delay:
                await asyncio.sleep(reply.delay)
            if cancel.cancelled:
                return
            yield copy.deepcopy(chunk)
        if reply.error is not None and (reply.error_at is None or reply.error_at >= len(reply.chunks)):
            raise reply.error
