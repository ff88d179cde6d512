"""The engine's observable state and the events subscribers receive."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from .conversation import Message

RequestState = Literal["idle", "processing", "paused", "completed", "aborted", "error"]
"""Turn-level state. ``processing_state`` refines ``processing``: requesting | completing | calling-tools | pausing."""


@dataclass
class EngineState:
    request_state: RequestState = "idle"
    processing_state: str | None = None
    messages: list[Message] = field(default_factory=list)
    turn_id: str | None = None
    error: str | None = None
    notice: str | None = None
    """The one user-visible notice: a sentence that is not an error (why a stored paused turn was not restored, why
    nothing is saved). Set through ``engine.set_notice``; the view carries it; a new turn clears it."""

    @property
    def is_processing(self) -> bool:
        return self.request_state == "processing"

    @property
    def is_paused(self) -> bool:
        return self.request_state == "paused"

    @property
    def can_start_turn(self) -> bool:
        return self.request_state not in ("processing", "paused")


class EngineEvent(NamedTuple):
    """``state``: anything changed (state, message list). ``message``: one message grew while streaming.

    For ``message`` events ``field`` names what grew (``content``, ``reasoning_content`` or
    ``args:<tool_call_id>``) and ``text`` is the appended text, so listeners never need the whole message.
    A named tuple: one is made per streamed chunk, and a frozen dataclass cost four times as much to make.
    """

    kind: Literal["state", "message"]
    message_id: str | None = None
    field: str | None = None
    text: str = ""

