"""Map Responses API stream events back to Chat-Completions-shaped chunks (what the engine merges).

text deltas → ``delta.content``; reasoning (summary) deltas → ``delta.reasoning_content``; each
``function_call`` item → ``delta.tool_calls`` with ``index`` in output order and ``id = call_id``; argument
deltas (keyed by ``item_id``) → that call's index; ``response.completed`` → ``finish_reason`` ``stop`` /
``tool_calls`` plus usage; ``response.incomplete`` → ``length`` (max_output_tokens) or ``content_filter``;
``response.failed`` / ``error`` → :class:`ProviderError`.
"""

from __future__ import annotations

from typing import Any

from ..engine.errors import ProviderError, ProviderErrorKind

Chunk = dict[str, Any]

TEXT_DELTAS = ("response.output_text.delta", "response.refusal.delta")
REASONING_DELTAS = ("response.reasoning_summary_text.delta", "response.reasoning_text.delta")
INCOMPLETE_REASONS = {"max_output_tokens": "length", "content_filter": "content_filter"}
FAILURE_KINDS: dict[str, ProviderErrorKind] = {"rate_limit_exceeded": "rate-limit"}


class ResponsesChunkMapper:
    def __init__(self) -> None:
        self.response_id = ""
        self.model = ""
        self.finished = False
        self._call_index: dict[str, int] = {}

    def _chunk(self, delta: dict[str, Any], finish_reason: str | None = None) -> Chunk:
        choice = {"index": 0, "delta": delta, "finish_reason": finish_reason}
        return {
            "id": self.response_id,
            "object": "chat.completion.chunk",
            "model": self.model,
            "choices": [choice],
        }

    def map(self, event: dict[str, Any]) -> Chunk | None:
        """The chunk for one event (``None`` when the event carries nothing the engine needs)."""
        kind = event.get("type", "")
        if kind in ("response.created", "response.in_progress"):
            response = event.get("response") or {}
            self.response_id = response.get("id", self.response_id)
            self.model = response.get("model", self.model)
            return None
        if kind in TEXT_DELTAS:
            return self._chunk({"content": event.get("delta", "")})
        if kind in REASONING_DELTAS:
            return self._chunk({"reasoning_content": event.get("delta", "")})
        if kind == "response.output_item.added":
            return self._call_started(event.get("item") or {})
        if kind == "response.function_call_arguments.delta":
            return self._arguments(event)
        if kind == "response.completed":
            return self._finish(event, "tool_calls" if self._call_index else "stop")
        if kind == "response.incomplete":
            return self._incomplete(event)
        if kind == "response.failed":
            error = (event.get("response") or {}).get("error") or {}
            raise _failure(error.get("message") or "the response failed", error.get("code"))
        if kind == "error":
            raise _failure(event.get("message") or "the server sent an error event", event.get("code"))
        return None

    def _call_started(self, item: dict[str, Any]) -> Chunk | None:
        if item.get("type") != "function_call":
            return None
        index = len(self._call_index)
        self._call_index[item.get("id") or item.get("call_id", "")] = index
        function = {"name": item.get("name", ""), "arguments": item.get("arguments") or ""}
        call = {"index": index, "id": item.get("call_id", ""), "type": "function", "function": function}
        return self._chunk({"tool_calls": [call]})

    def _arguments(self, event: dict[str, Any]) -> Chunk | None:
        index = self._call_index.get(event.get("item_id", ""))
        if index is None:
            raise ProviderError(
                f"The Responses stream sent arguments for an unknown item {event.get('item_id')!r}.",
                kind="stream-error",
            )
        return self._chunk(
            {"tool_calls": [{"index": index, "function": {"arguments": event.get("delta", "")}}]}
        )

    def _finish(self, event: dict[str, Any], finish_reason: str) -> Chunk:
        self.finished = True
        chunk = self._chunk({}, finish_reason)
        usage = (event.get("response") or {}).get("usage")
        if usage:
            chunk["usage"] = {
                "prompt_tokens": usage.get("input_tokens", 0),
                "completion_tokens": usage.get("output_tokens", 0),
                "total_tokens": usage.get("total_tokens", 0),
            }
        return chunk

    def _incomplete(self, event: dict[str, Any]) -> Chunk:
        details = (event.get("response") or {}).get("incomplete_details") or {}
        reason = details.get("reason") or "unknown"
        if reason not in INCOMPLETE_REASONS:
            raise ProviderError(f"The response ended incomplete ({reason}).", kind="incomplete")
        return self._finish(event, INCOMPLETE_REASONS[reason])


def _failure(message: str, code: str | None) -> ProviderError:
    kind = FAILURE_KINDS.get(code or "", "stream-error")
    suffix = f" ({code})" if code else ""
    return ProviderError(f"The server reported an error mid-stream{suffix}: {message}", kind=kind)
