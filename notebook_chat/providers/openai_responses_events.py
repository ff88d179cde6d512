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
from ..engine.wire import optional_dict, optional_str
from .error_text import is_context_length, provider_error, server_words

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
        kind = optional_str(event.get("type"), "event.type") or ""
        if kind in ("response.created", "response.in_progress"):
            response = optional_dict(event.get("response"), f"{kind}.response") or {}
            self.response_id = optional_str(response.get("id"), "response.id") or self.response_id
            self.model = optional_str(response.get("model"), "response.model") or self.model
            return None
        if kind in TEXT_DELTAS:
            return self._chunk({"content": event.get("delta", "")})
        if kind in REASONING_DELTAS:
            return self._chunk({"reasoning_content": event.get("delta", "")})
        if kind == "response.output_item.added":
            return self._call_started(optional_dict(event.get("item"), f"{kind}.item") or {})
        if kind == "response.function_call_arguments.delta":
            return self._arguments(event)
        if kind == "response.completed":
            return self._finish(event, "tool_calls" if self._call_index else "stop")
        if kind == "response.incomplete":
            return self._incomplete(event)
        if kind == "response.failed":
            response = optional_dict(event.get("response"), f"{kind}.response") or {}
            error: dict[str, Any] = response["error"] if isinstance(response.get("error"), dict) else {}
            raise _failure(_text(error.get("message")) or "the response failed", _text(error.get("code")))
        if kind == "error":
            raise _failure(_text(event.get("message")) or "the server sent an error event", _text(event.get("code")))
        return None

    def _call_started(self, item: dict[str, Any]) -> Chunk | None:
        if item.get("type") != "function_call":
            return None
        index = len(self._call_index)
        call_id = optional_str(item.get("call_id"), "function_call.call_id")
        item_id = optional_str(item.get("id"), "function_call.id")
        self._call_index[item_id or call_id or ""] = index
        function = {"name": item.get("name"), "arguments": item.get("arguments") or ""}
        call = {"index": index, "id": call_id, "type": "function", "function": function}
        return self._chunk({"tool_calls": [call]})

    def _arguments(self, event: dict[str, Any]) -> Chunk | None:
        index = self._call_index.get(optional_str(event.get("item_id"), "arguments.item_id") or "")
        if index is None:
            raise provider_error(
                "stream-error", f"The Responses stream sent arguments for an unknown item {event.get('item_id')!r}"
            )
        return self._chunk(
            {"tool_calls": [{"index": index, "function": {"arguments": event.get("delta", "")}}]}
        )

    def _finish(self, event: dict[str, Any], finish_reason: str) -> Chunk:
        self.finished = True
        chunk = self._chunk({}, finish_reason)
        response = optional_dict(event.get("response"), "response") or {}
        usage = response.get("usage")
        if isinstance(usage, dict):
            chunk["usage"] = {
                "prompt_tokens": usage.get("input_tokens", 0),
                "completion_tokens": usage.get("output_tokens", 0),
                "total_tokens": usage.get("total_tokens", 0),
            }
        return chunk

    def _incomplete(self, event: dict[str, Any]) -> Chunk:
        response = optional_dict(event.get("response"), "response") or {}
        details = optional_dict(response.get("incomplete_details"), "response.incomplete_details") or {}
        reason = _text(details.get("reason")) or "unknown"
        if reason not in INCOMPLETE_REASONS:
            raise provider_error("incomplete", f"The response ended incomplete ({reason})")
        return self._finish(event, INCOMPLETE_REASONS[reason])


def _text(value: Any) -> str | None:
    """A server's error wording, when it is text (an error report of the wrong type is still an error)."""
    return value[:2000] if isinstance(value, str) else None


def _failure(message: str, code: str | None) -> ProviderError:
    text = server_words(str(message))
    kind: ProviderErrorKind = FAILURE_KINDS.get(code or "", "stream-error")
    if is_context_length(text, code):
        kind = "context-length"
    suffix = f" ({code})" if code else ""
    return provider_error(kind, f"The server reported an error mid-stream{suffix}: {text}")
