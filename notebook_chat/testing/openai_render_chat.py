"""Render a scripted :class:`Reply` as Chat Completions JSON: one SSE chunk per piece, or one completion."""

from __future__ import annotations

from typing import Any

from .openai_replies import RawEvent, Reasoning, Reply, StreamError, Text, ToolCallFragment

RAW = "_raw"
"""An event dict ``{RAW: text}`` is written to the stream verbatim as ``data: text``."""

CREATED = 1_700_000_000


def _chunk(model: str, delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


def _piece_delta(piece: Text | Reasoning | ToolCallFragment) -> dict[str, Any]:
    if isinstance(piece, Text):
        return {"content": piece.text}
    if isinstance(piece, Reasoning):
        return {"reasoning_content": piece.text}
    call: dict[str, Any] = {"function": {"arguments": piece.arguments}}
    if piece.with_index:
        call["index"] = piece.index
    if piece.id is not None:
        call.update(id=piece.id, type="function")
        call["function"]["name"] = piece.name
    return {"tool_calls": [call]}


def piece_events(reply: Reply, model: str) -> list[dict[str, Any]]:
    """One chunk per piece; the first also carries ``role``."""
    chunks = []
    for number, piece in enumerate(reply.pieces):
        if isinstance(piece, RawEvent):
            chunks.append({RAW: piece.data})
            continue
        delta = _piece_delta(piece)
        if number == 0:
            delta = {"role": "assistant", **delta}
        chunks.append(_chunk(model, delta))
    return chunks


def closing_events(reply: Reply, model: str, include_usage: bool) -> list[dict[str, Any]]:
    """The finish chunk, then the usage chunk when the request asked for it (the server adds ``[DONE]``)."""
    events = [_chunk(model, {} if reply.pieces else {"role": "assistant", "content": ""}, reply.finish)]
    if include_usage and reply.token_usage:  # usage={}: a server that reports none sends no usage chunk
        events.append({**_chunk(model, {}), "choices": [], "usage": reply.token_usage})
    return events


def error_event(fault: StreamError) -> dict[str, Any]:
    return {"error": {"message": fault.message, "type": "server_error", "code": fault.code}}


def completion(reply: Reply, model: str) -> dict[str, Any]:
    """The whole reply as one non-streaming chat completion."""
    message: dict[str, Any] = {"role": "assistant", "content": None}
    text = "".join(piece.text for piece in reply.pieces if isinstance(piece, Text))
    reasoning = "".join(piece.text for piece in reply.pieces if isinstance(piece, Reasoning))
    calls: dict[int, dict[str, Any]] = {}
    for piece in reply.pieces:
        if isinstance(piece, ToolCallFragment):
            call = calls.setdefault(
                piece.index, {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
            )
            if piece.id is not None:
                call["id"], call["function"]["name"] = piece.id, piece.name
            call["function"]["arguments"] += piece.arguments
    if text:
        message["content"] = text
    if reasoning:
        message["reasoning_content"] = reasoning
    if calls:
        message["tool_calls"] = [calls[index] for index in sorted(calls)]
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": CREATED,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": reply.finish}],
        **({"usage": reply.token_usage} if reply.token_usage else {}),
    }
