"""Gemini `generateContent` payload: `user` / `model` turns, `functionCall` and `functionResponse` parts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from notebook_chat.engine.errors import HistoryError
from notebook_chat.engine.history import arguments_object
from notebook_chat.engine.messages import content_text
from notebook_chat.providers.converters._common import (
    CONTINUATION_PLACEHOLDER,
    call_names,
    function_spec,
)

COUNT_MISMATCH = (
    "Please ensure that the number of function response parts is equal to the number of function call parts "
    "of the function call turn."
)
RESPONSE_PLACEMENT = "Please ensure that function response turn comes immediately after a function call turn."
NOT_ALTERNATING = "Please ensure that multiturn requests alternate between user and model."
FIRST_USER = "Please ensure that the first turn of a multiturn request is a user turn."
EMPTY_TEXT = "Unable to submit request because it has an empty text parameter."
UNSUPPORTED_SCHEMA_KEYS = frozenset({"additionalProperties", "$schema", "strict"})
"""JSON-Schema keys Gemini's `parameters` (an OpenAPI subset) rejects; removed from tool schemas."""


def to_gemini(messages: Sequence[Mapping[str, Any]]) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """`(system_instruction, contents)`. A result's function name comes from its call (else
    `metadata.tool_name`, else the message's `name`); results share one `user` turn right after the call turn,
    a following user text joins it; same-role neighbours merge; the first turn is the user's."""
    names = call_names(messages)
    system: dict[str, Any] | None = None
    contents: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        if role == "system":
            text = content_text(message.get("content"))
            system = {"parts": [{"text": text}]} if text else None
            continue
        parts = _parts(message, names)
        if not parts:
            continue
        turn_role = "model" if role == "assistant" else "user"
        if contents and contents[-1]["role"] == turn_role:
            contents[-1]["parts"].extend(parts)
        else:
            contents.append({"role": turn_role, "parts": parts})
    if contents and contents[0]["role"] != "user":
        contents.insert(0, {"role": "user", "parts": [{"text": CONTINUATION_PLACEHOLDER}]})
    return system, contents


def _parts(message: Mapping[str, Any], names: dict[str, str]) -> list[dict[str, Any]]:
    text = content_text(message.get("content"))
    if message.get("role") == "tool":
        metadata = message.get("metadata")
        name = names.get(message.get("tool_call_id", "")) or (
            metadata.get("tool_name") if isinstance(metadata, Mapping) else None
        ) or message.get("name")
        if not name:
            call_id = message.get("tool_call_id")
            raise HistoryError(f"no function name for the result of tool call {call_id!r}")
        return [{"functionResponse": {"name": name, "response": {"output": text}}}]
    parts: list[dict[str, Any]] = [{"text": text}] if text.strip() else []
    for call in message.get("tool_calls") or ():
        parts.append({"functionCall": {"name": call["function"]["name"],
                                       "args": arguments_object(call["function"].get("arguments"))}})
    return parts


def tools_to_gemini(tools: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Chat function tools → one `{"functionDeclarations": [...]}` tool. Schemas lose the keys Gemini rejects;
    a function without parameters gets none (Gemini refuses an OBJECT schema with no properties)."""
    declarations: list[dict[str, Any]] = []
    for position, tool in enumerate(tools):
        spec = function_spec(tool, position)
        declaration: dict[str, Any] = {"name": spec["name"]}
        if spec.get("description"):
            declaration["description"] = spec["description"]
        parameters = spec.get("parameters")
        if isinstance(parameters, Mapping) and parameters.get("properties"):
            declaration["parameters"] = _gemini_schema(parameters)
        declarations.append(declaration)
    return [{"functionDeclarations": declarations}] if declarations else []


def _gemini_schema(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_gemini_schema(item) for item in schema]
    if not isinstance(schema, Mapping):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in UNSUPPORTED_SCHEMA_KEYS:
            continue
        if key == "properties" and isinstance(value, Mapping):
            out[key] = {name: _gemini_schema(item) for name, item in value.items()}
        else:
            out[key] = _gemini_schema(value)
    return out


def check_gemini(system_instruction: Mapping[str, Any] | None, contents: Sequence[Mapping[str, Any]]) -> None:
    """Raise HistoryError with Gemini's text when `generateContent` would reject this payload."""
    if system_instruction is not None:
        for part in system_instruction.get("parts", ()):
            _check_part(part)
    if contents and contents[0].get("role") != "user":
        raise HistoryError(FIRST_USER)
    calls: Counter[str] = Counter()
    for index, turn in enumerate(contents):
        if turn.get("role") not in ("user", "model"):
            raise HistoryError(f"contents[{index}].role: Please use a valid role: user, model.")
        if index and contents[index - 1]["role"] == turn["role"]:
            raise HistoryError(NOT_ALTERNATING)
        responses: Counter[str] = Counter()
        for part in turn["parts"]:
            _check_part(part)
            if "functionResponse" in part:
                responses[part["functionResponse"]["name"]] += 1
        if responses and not calls:
            raise HistoryError(RESPONSE_PLACEMENT)
        if calls and responses != calls:
            raise HistoryError(COUNT_MISMATCH)
        calls = Counter(part["functionCall"]["name"] for part in turn["parts"] if "functionCall" in part)
    if calls:
        raise HistoryError(COUNT_MISMATCH)


def _check_part(part: Mapping[str, Any]) -> None:
    if "text" in part and not str(part["text"]).strip():
        raise HistoryError(EMPTY_TEXT)
    for key, field in (("functionCall", "args"), ("functionResponse", "response")):
        if key in part:
            if not part[key].get("name"):
                raise HistoryError(f"{key}.name: Name cannot be empty.")
            if not isinstance(part[key].get(field), dict):
                raise HistoryError(f"{key}.{field}: Proto field is not repeating, cannot start list.")
