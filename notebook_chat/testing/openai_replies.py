"""Scripted replies for :class:`~notebook_chat.testing.FakeOpenAIServer`, as plain data.

A :class:`Reply` is a list of *pieces* (text, reasoning, tool-call fragments) plus how the stream ends: a
``finish_reason`` or a :data:`Fault`. The server renders the same reply for Chat Completions (one SSE chunk
per piece) and for the Responses API (one or more events per piece), streaming or not.
A fault's ``after`` counts pieces delivered before it strikes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Reasoning:
    text: str


@dataclass(frozen=True)
class ToolCallFragment:
    """One piece of a tool call; the first fragment of a call carries ``id`` and ``name``."""

    index: int
    arguments: str
    id: str | None = None
    name: str | None = None
    with_index: bool = True


@dataclass(frozen=True)
class RawEvent:
    """One SSE ``data:`` line sent verbatim (streaming only): a server that breaks the wire contract.

    ``data`` is the text after ``data: `` (e.g. ``'{not json'`` or ``'[1,2,3]'``). A non-streaming reply
    ignores it. Build one per API with :func:`raw_json`.
    """

    data: str


Piece = Text | Reasoning | ToolCallFragment | RawEvent


@dataclass(frozen=True)
class HttpError:
    """Answer with an HTTP error status and an OpenAI-shaped error body instead of a stream."""

    status: int
    message: str
    type: str = "invalid_request_error"
    code: str | None = None


@dataclass(frozen=True)
class StreamError:
    """After ``after`` pieces send an error frame and end the stream.

    Chat Completions: ``data: {"error": {...}}``. Responses: a ``response.failed`` event (or an ``error``
    event when ``responses_event="error"``).
    """

    message: str
    after: int = 0
    code: str = "server_error"
    responses_event: Literal["response.failed", "error"] = "response.failed"


@dataclass(frozen=True)
class ConnectionReset:
    """After ``after`` pieces reset the TCP connection (RST), mid-stream."""

    after: int = 0


@dataclass(frozen=True)
class Stall:
    """After ``after`` pieces wait ``seconds`` (ends early if the client goes away), then go on."""

    after: int
    seconds: float


@dataclass(frozen=True)
class StreamEnds:
    """After ``after`` pieces (default: all) end the stream cleanly: no finish reason, no ``[DONE]``."""

    after: int | None = None


Fault = HttpError | StreamError | ConnectionReset | Stall | StreamEnds

FinishReason = Literal["stop", "length", "tool_calls", "content_filter"]


@dataclass(frozen=True)
class Reply:
    """One scripted answer; ``finish_reason=None`` means ``tool_calls`` if it has tool calls, else ``stop``.

    ``delay`` is the pause (seconds) before each piece, for tests that stop a stream halfway.
    """

    pieces: tuple[Piece, ...] = ()
    finish_reason: FinishReason | None = None
    fault: Fault | None = None
    usage: dict[str, int] | None = None
    delay: float = 0.0

    @property
    def finish(self) -> FinishReason:
        if self.finish_reason is not None:
            return self.finish_reason
        has_calls = any(isinstance(piece, ToolCallFragment) for piece in self.pieces)
        return "tool_calls" if has_calls else "stop"

    @property
    def token_usage(self) -> dict[str, int]:
        """The reply's usage as sent: ``usage`` when given (``{}``: the server reports none), else made-up counts."""
        if self.usage is not None:
            return dict(self.usage)
        completion = max(1, len(self.pieces))
        return {"prompt_tokens": 12, "completion_tokens": completion, "total_tokens": 12 + completion}


@dataclass(frozen=True)
class ToolCallSpec:
    """A tool call to script: ``arguments`` may be a dict (sent as JSON) or a raw string."""

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    id: str | None = None

    def arguments_json(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments)


def raw_json(value: Any) -> RawEvent:
    """A data line holding ``value`` as JSON (lone surrogates are written as ``\\udXXX`` escapes)."""
    return RawEvent(json.dumps(value))


def split(text: str, parts: int) -> list[str]:
    """Split ``text`` into ``parts`` non-empty pieces (fewer when the text is shorter)."""
    if not text:
        return []
    parts = max(1, min(parts, len(text)))
    size, extra = divmod(len(text), parts)
    pieces, start = [], 0
    for number in range(parts):
        end = start + size + (1 if number < extra else 0)
        pieces.append(text[start:end])
        start = end
    return pieces


def text_pieces(text: str, chunks: int) -> list[Piece]:
    return [Text(part) for part in split(text, chunks)]


def reasoning_pieces(text: str, chunks: int) -> list[Piece]:
    return [Reasoning(part) for part in split(text, chunks)]


def tool_call_pieces(
    calls: list[ToolCallSpec], *, fragments: int, with_index: bool, interleave: bool
) -> list[Piece]:
    """Fragments of each call; ``interleave`` sends the calls' fragments round-robin, as parallel calls do."""
    per_call: list[list[Piece]] = []
    for index, call in enumerate(calls):
        call_id = call.id or f"call_{index}_{call.name}"
        arguments = split(call.arguments_json(), fragments) or [""]
        pieces: list[Piece] = [
            ToolCallFragment(index, arguments[0], id=call_id, name=call.name, with_index=with_index)
        ]
        pieces += [ToolCallFragment(index, part, with_index=with_index) for part in arguments[1:]]
        per_call.append(pieces)
    if not interleave:
        return [piece for pieces in per_call for piece in pieces]
    ordered: list[Piece] = []
    for row in range(max((len(pieces) for pieces in per_call), default=0)):
        ordered += [pieces[row] for pieces in per_call if row < len(pieces)]
    return ordered
