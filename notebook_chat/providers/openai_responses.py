"""OpenAIResponses: the provider contract of :class:`OpenAIChat`, spoken over the OpenAI Responses API.

Stateless: every request replays the whole history as ``input`` items (``store=False``, no
``previous_response_id``). The stream's events are mapped back to Chat-shaped chunks
(:mod:`.openai_responses_events`), so the engine merges them like any other provider's.
"""

from __future__ import annotations

from typing import Any

from . import openai_stream
from .converters.responses import check_responses, to_responses_input, tools_to_responses
from .openai_chat import OpenAIChat, drop_tool_options_without_tools, provider_messages
from .openai_responses_events import ResponsesChunkMapper

RENAMED = {"max_tokens": "max_output_tokens", "max_completion_tokens": "max_output_tokens"}
DROPPED = ("stream_options", "n", "logprobs", "stream")


def _tool_choice(choice: Any) -> Any:
    """Chat's ``{"type": "function", "function": {"name": X}}`` → ``{"type": "function", "name": X}``."""
    if isinstance(choice, dict) and isinstance(choice.get("function"), dict):
        return {"type": "function", "name": choice["function"].get("name")}
    return choice


def _tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Flat function tools; ``strict`` is false unless asked (the Responses API would default it to true)."""
    return [{"strict": False, **tool} for tool in tools_to_responses(tools)]


def responses_request(model: str, options: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    """The JSON body sent to ``/responses`` for the engine's Chat-shaped ``body``."""
    merged = drop_tool_options_without_tools({**options, **body})
    request: dict[str, Any] = {"model": model}
    items = to_responses_input(provider_messages(list(merged.pop("messages", None) or [])))
    check_responses(items)
    request["input"] = items
    for key, value in merged.items():
        if key in DROPPED:
            continue
        if key == "tools":
            value = _tools(list(value or []))
        elif key == "tool_choice":
            value = _tool_choice(value)
        elif key == "reasoning_effort":
            key, value = "reasoning", {"effort": value, "summary": "auto"}
        request[RENAMED.get(key, key)] = value
    request.update(stream=True, store=False)
    return request


class OpenAIResponses(OpenAIChat):
    """Streams the Responses API as Chat-shaped chunks; errors, cancel and label as in OpenAIChat.

    A response that ends ``incomplete`` for ``max_output_tokens`` yields ``finish_reason="length"``; one
    that fails (``response.failed`` or an ``error`` event) raises :class:`ProviderError` after the chunks
    before it; a stream that ends with neither ``response.completed`` nor ``response.incomplete`` raises
    kind ``incomplete``. On cancel the stream is closed and the iterator ends normally.
    """

    api_name = "OpenAI Responses"

    def request_body(self, body: dict[str, Any]) -> dict[str, Any]:
        return responses_request(self.model, self.request_options, body)

    fixed_keys = ("model", "input", "stream", "store")

    def _create(self, fixed: dict[str, Any], extra: dict[str, Any]) -> Any:
        return self.client.responses.create(
            **fixed, extra_body=extra, extra_headers=openai_stream.request_headers(self.client))

    def _mapper(self) -> ResponsesChunkMapper:
        return ResponsesChunkMapper()
