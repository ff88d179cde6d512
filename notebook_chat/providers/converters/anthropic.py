"""Anthropic Messages payload: hoisted system, `tool_use` / `tool_result` blocks, alternating roles."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from notebook_chat.engine.errors import HistoryError
from notebook_chat.engine.history import arguments_object
from notebook_chat.engine.messages import content_text
from notebook_chat.providers.converters._common import CONTINUATION_PLACEHOLDER, function_spec

MISSING_RESULTS = (
    "messages.{index}: `tool_use` ids were found without `tool_result` blocks immediately after: {ids}. "
    "Each `tool_use` block must have a corresponding `tool_result` block in the next message."
)
UNEXPECTED_RESULT = (
    "messages.{index}.content.{block}: unexpected `tool_use_id` found in `tool_result` blocks: {id}. "
    "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
)
RESULTS_FIRST = "messages.{index}: `tool_result` blocks must come first in the user message's content."
NOT_ALTERNATING = (
    'messages: roles must alternate between "user" and "assistant", '
    'but found multiple "{role}" roles in a row'
)
FIRST_USER = 'messages: first message must use the "user" role'
EMPTY_TEXT = "messages.{index}.content.{block}: text content blocks must contain non-whitespace text"
INPUT_NOT_OBJECT = "messages.{index}.content.{block}.input: Input should be a valid dictionary"


def to_anthropic(messages: Sequence[Mapping[str, Any]]) -> tuple[str | None, list[dict[str, Any]]]:
    """`(system, messages)`. Tool results become `tool_result` blocks first in the next user message
    (consecutive results and a following user text share it); same-role neighbours merge; the first message
    is the user's (a placeholder is put first when needed). Reasoning is not replayed (it needs signed
    blocks)."""
    system: str | None = None
    out: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        if role == "system":
            system = content_text(message.get("content"))
            continue
        blocks = _blocks(message)
        if not blocks:
            continue
        role = "assistant" if role == "assistant" else "user"
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    if out and out[0]["role"] != "user":
        out.insert(0, {"role": "user", "content": [{"type": "text", "text": CONTINUATION_PLACEHOLDER}]})
    return system, out


def _blocks(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    if message.get("role") == "tool":
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": message["tool_call_id"]}
        text = content_text(message.get("content"))
        if text.strip():
            result["content"] = text
        return [result]
    text = content_text(message.get("content"))
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text.strip() else []
    for call in message.get("tool_calls") or ():
        blocks.append({"type": "tool_use", "id": call["id"], "name": call["function"]["name"],
                       "input": arguments_object(call["function"].get("arguments"))})
    return blocks


def tools_to_anthropic(tools: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Chat function tools → `{name, description, input_schema}`."""
    out: list[dict[str, Any]] = []
    for position, tool in enumerate(tools):
        spec = function_spec(tool, position)
        item: dict[str, Any] = {"name": spec["name"]}
        if spec.get("description"):
            item["description"] = spec["description"]
        item["input_schema"] = spec.get("parameters") or {"type": "object", "properties": {}}
        out.append(item)
    return out


def check_anthropic(system: str | None, messages: Sequence[Mapping[str, Any]]) -> None:
    """Raise HistoryError with Anthropic's text when the Messages API would reject this payload."""
    if system is not None and not isinstance(system, str):
        raise HistoryError("system: Input should be a valid string")
    if messages and messages[0].get("role") != "user":
        raise HistoryError(FIRST_USER)
    seen_ids: set[str] = set()
    previous_uses: list[str] = []
    for index, message in enumerate(messages):
        if index and messages[index - 1]["role"] == message["role"]:
            raise HistoryError(NOT_ALTERNATING.format(role=message["role"]))
        results = _check_blocks(index, message, previous_uses, seen_ids)
        if previous_uses and sorted(results) != sorted(previous_uses):
            missing = [use for use in previous_uses if use not in results]
            raise HistoryError(MISSING_RESULTS.format(index=index - 1, ids=", ".join(missing)))
        previous_uses = [block["id"] for block in message["content"] if block.get("type") == "tool_use"]
    if previous_uses:
        raise HistoryError(MISSING_RESULTS.format(index=len(messages) - 1, ids=", ".join(previous_uses)))


def _check_blocks(
    index: int, message: Mapping[str, Any], previous_uses: list[str], seen_ids: set[str],
) -> list[str]:
    """Check one message's blocks; returns the `tool_use_id`s of its `tool_result` blocks."""
    results: list[str] = []
    other_seen = False
    for block_index, block in enumerate(message["content"]):
        kind = block.get("type")
        if kind == "tool_result":
            use_id = block["tool_use_id"]
            if use_id not in previous_uses or use_id in results:
                raise HistoryError(UNEXPECTED_RESULT.format(index=index, block=block_index, id=use_id))
            if other_seen:
                raise HistoryError(RESULTS_FIRST.format(index=index))
            results.append(use_id)
            continue
        other_seen = True
        if kind == "text" and not str(block.get("text", "")).strip():
            raise HistoryError(EMPTY_TEXT.format(index=index, block=block_index))
        if kind == "tool_use":
            if message["role"] != "assistant" or block["id"] in seen_ids or not block.get("id"):
                raise HistoryError(f"messages.{index}.content.{block_index}: `tool_use` ids must be unique")
            if not isinstance(block.get("input"), dict):
                raise HistoryError(INPUT_NOT_OBJECT.format(index=index, block=block_index))
            seen_ids.add(block["id"])
    return results
