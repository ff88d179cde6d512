"""History rule 7: every request satisfies the strictest common chat template (Gemma, Mistral, Llama-2 style).

Those templates raise "Conversation roles must alternate user/assistant/user/assistant/…" unless, after an
optional system message, the roles alternate starting with a user message. The stored conversation keeps what the
user saw; only the request is shaped, by :func:`alternate_roles`, a pure function applied after
:func:`~notebook_chat.engine.history.prepare_for_request`:

- consecutive user messages (an unanswered one — network error, server error, Stop before the first token — then
  the next one; a Continue's hidden message after its user message) become one user message, their texts joined
  by a blank line;
- consecutive assistant messages without tool results between them become one (texts joined; a tool-call list
  or reasoning is kept); an assistant(tool_calls) message and its tool results stay exactly as they are (rule 2);
- the first message after the system message is a user message: when the history starts otherwise (a greeting,
  or older turns left out for the context budget), :data:`OPENING_USER_TEXT` is put first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

OPENING_USER_TEXT = "(continuing the conversation)"
"""The user text put first when a request would otherwise start with an assistant or tool message."""

JOIN = "\n\n"


def alternate_roles(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A new list obeying rule 7; the input (a prepared, provider-ready history) is not changed."""
    out: list[dict[str, Any]] = []
    for raw in messages:
        message = dict(raw)
        role = message.get("role")
        previous = out[-1] if out else None
        if role == "system" and not out:
            out.append(message)
            continue
        if not _has_turn(out) and role != "user":
            out.append({"role": "user", "content": OPENING_USER_TEXT})
            previous = out[-1]
        if previous is not None and _joins(previous, role):
            out[-1] = _merged(previous, message)
        else:
            out.append(message)
    return out


def _joins(previous: Mapping[str, Any], role: Any) -> bool:
    """Two users in a row, or an assistant after an assistant that made no tool calls, become one message."""
    if role != previous.get("role"):
        return False
    return role == "user" or (role == "assistant" and not previous.get("tool_calls"))


def _has_turn(out: list[dict[str, Any]]) -> bool:
    return any(message.get("role") != "system" for message in out)


def _merged(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """``first`` then ``second`` as one message: contents joined, ``tool_calls`` and other fields of ``second``
    kept, reasoning joined."""
    merged = {**first, **second}
    merged["content"] = _join_content(first.get("content"), second.get("content"))
    reasoning = [r for r in (first.get("reasoning_content"), second.get("reasoning_content")) if r]
    if reasoning:
        merged["reasoning_content"] = JOIN.join(str(r) for r in reasoning)
    return merged


def _join_content(first: Any, second: Any) -> Any:
    if _empty(first):
        return second
    if _empty(second):
        return first
    if isinstance(first, str) and isinstance(second, str):
        return f"{first}{JOIN}{second}"
    return [*_parts(first), {"type": "text", "text": JOIN}, *_parts(second)]


def _parts(content: Any) -> list[Any]:
    if isinstance(content, list):
        return list(content)
    return [{"type": "text", "text": "" if content is None else str(content)}]


def _empty(content: Any) -> bool:
    return content is None or content == "" or content == []
