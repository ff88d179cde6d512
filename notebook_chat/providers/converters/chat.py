"""OpenAI Chat Completions payload: the prepared history, nearly as is."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from notebook_chat.engine.conversation import ENGINE_ONLY_FIELDS
from notebook_chat.engine.errors import HistoryError

MISSING_RESULTS = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
    "'tool_call_id'. The following tool_call_ids did not have response messages: {ids}"
)
ORPHAN_RESULT = (
    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with "
    "'tool_calls'."
)


def to_chat_messages(
    messages: Sequence[Mapping[str, Any]], *, include_reasoning: bool = False,
) -> list[dict[str, Any]]:
    """Chat messages from a prepared history; `reasoning_content` stays on assistant messages if asked."""
    out: list[dict[str, Any]] = []
    for message in messages:
        item = {key: value for key, value in message.items() if key not in ENGINE_ONLY_FIELDS}
        if not include_reasoning or item.get("role") != "assistant":
            item.pop("reasoning_content", None)
        out.append(item)
    return out


def check_chat(messages: Sequence[Mapping[str, Any]]) -> None:
    """Raise HistoryError with OpenAI's own text when Chat Completions would reject the pairing."""
    index = 0
    while index < len(messages):
        message = messages[index]
        if message.get("role") == "tool":
            raise HistoryError(f"messages[{index}]: {ORPHAN_RESULT}")
        index += 1
        if message.get("role") != "assistant" or not message.get("tool_calls"):
            continue
        waiting = [call["id"] for call in message["tool_calls"]]
        while index < len(messages) and messages[index].get("role") == "tool":
            if messages[index].get("tool_call_id") not in waiting:
                raise HistoryError(f"messages[{index}]: {ORPHAN_RESULT}")
            waiting.remove(messages[index]["tool_call_id"])
            index += 1
        if waiting:
            raise HistoryError(MISSING_RESULTS.format(ids=", ".join(waiting)))
