"""Drive a provider the way the engine does and keep what came back: chunks first, then the error if any."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..engine.errors import ProviderError
from ..engine.provider import CancelHandle, Provider


@dataclass
class Collected:
    chunks: list[dict[str, Any]] = field(default_factory=list)
    error: ProviderError | None = None

    @property
    def text(self) -> str:
        return "".join(self._delta_values("content"))

    @property
    def reasoning(self) -> str:
        return "".join(self._delta_values("reasoning_content"))

    @property
    def finish_reasons(self) -> list[str]:
        return [
            choice["finish_reason"]
            for chunk in self.chunks
            for choice in chunk.get("choices") or ()
            if choice.get("finish_reason")
        ]

    @property
    def usage(self) -> dict[str, Any] | None:
        return next((chunk["usage"] for chunk in reversed(self.chunks) if chunk.get("usage")), None)

    def tool_call_fragments(self) -> list[dict[str, Any]]:
        return [
            fragment
            for chunk in self.chunks
            for choice in chunk.get("choices") or ()
            for fragment in (choice.get("delta") or {}).get("tool_calls") or ()
        ]

    def _delta_values(self, key: str) -> list[str]:
        return [
            (choice.get("delta") or {}).get(key) or "" for chunk in self.chunks for choice in chunk.get("choices") or ()
        ]


async def collect(
    provider: Provider,
    body: dict[str, Any],
    *,
    cancel: CancelHandle | None = None,
    on_chunk: Callable[[int, CancelHandle], object] | None = None,
) -> Collected:
    """Call ``provider`` and read its whole answer; ``on_chunk(count, cancel)`` runs after each chunk."""
    cancel = cancel or CancelHandle()
    collected = Collected()
    try:
        result = await provider(body, cancel)
        if isinstance(result, dict):
            collected.chunks.append(result)
            return collected
        async for chunk in result:
            collected.chunks.append(chunk)
            if on_chunk is not None:
                on_chunk(len(collected.chunks), cancel)
    except ProviderError as error:
        collected.error = error
    return collected
