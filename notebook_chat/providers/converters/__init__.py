"""Payload converters: a prepared Chat-shaped history (see `engine.history.prepare_for_request`) → what each
API accepts, plus a `check_*` per API that applies that provider's own pairing rules (with its error text)."""

from collections.abc import Mapping, Sequence
from typing import Any

from notebook_chat.providers.converters.anthropic import check_anthropic, to_anthropic, tools_to_anthropic
from notebook_chat.providers.converters.chat import check_chat, to_chat_messages
from notebook_chat.providers.converters.gemini import check_gemini, to_gemini, tools_to_gemini
from notebook_chat.providers.converters.responses import (
    check_responses,
    to_responses_input,
    tools_to_responses,
)


def check_every_provider(messages: Sequence[Mapping[str, Any]]) -> None:
    """Raises with the provider's own error text unless OpenAI Chat, OpenAI Responses, Anthropic and Gemini would
    all accept this (prepared) history."""
    check_chat(to_chat_messages(messages, include_reasoning=True))
    check_responses(to_responses_input(messages))
    check_anthropic(*to_anthropic(messages))
    check_gemini(*to_gemini(messages))


__all__ = [
    "check_anthropic",
    "check_chat",
    "check_every_provider",
    "check_gemini",
    "check_responses",
    "to_anthropic",
    "to_chat_messages",
    "to_gemini",
    "to_responses_input",
    "tools_to_anthropic",
    "tools_to_gemini",
    "tools_to_responses",
]
