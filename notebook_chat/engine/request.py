"""Turns engine messages into what a provider may see, and into what may be saved."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .messages import Message

ALWAYS_EXCLUDED: tuple[str, ...] = ("id", "temp", "state", "metadata", "loading")


def sanitize(messages: Iterable[Message], fields: tuple[str, ...] | None,
             exclude: tuple[str, ...]) -> list[dict[str, Any]]:
    """Provider-ready messages: engine-only fields dropped, then the history rules applied (rules 1-6, then rule 7's
    role alternation: :mod:`.request_shape`)."""
    from .history import prepare_for_request
    from .request_shape import alternate_roles

    drop = set(exclude) | {"id", "temp"}
    stripped: list[dict[str, Any]] = []
    for message in messages:
        items = message.items() if fields is None else ((k, v) for k, v in message.items() if k in fields)
        stripped.append({k: v for k, v in items if k not in drop})
    return alternate_roles(prepare_for_request(stripped, exclude=ALWAYS_EXCLUDED))


def for_saving(messages: Iterable[Message]) -> list[Message]:
    """Messages to persist: whole temp units dropped, pairing repaired, engine fields kept.

    A reply still streaming is kept as far as it got (its ``loading`` flag is cleared on restore)."""
    from .history import drop_temp

    kept = [dict(m) for m in messages]
    return drop_temp(kept, pending=awaiting_call_ids(kept))  # type: ignore[arg-type]


def awaiting_call_ids(messages: Iterable[Message]) -> set[str]:
    """Ids of tool calls waiting for a human decision (they may stay unanswered while a turn is paused)."""
    ids: set[str] = set()
    for message in messages:
        calls = (message.get("state") or {}).get("tool_calls") or {}
        ids.update(call_id for call_id, call in calls.items() if call.get("status") == "awaiting-approval")
    return ids
