"""Turns engine messages into what a provider may see, and into what may be saved."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .conversation import ENGINE_ONLY_FIELDS, Message, awaiting_call_ids, stored_form
from .history import drop_temp, prepare_for_request, validate
from .request_shape import alternate_roles


def sanitize(messages: Iterable[Message], fields: tuple[str, ...] | None,
             exclude: tuple[str, ...]) -> list[dict[str, Any]]:
    """Provider-ready messages: engine-only fields dropped, then the history rules applied (rules 1-6, then rule 7's
    role alternation: :mod:`.request_shape`)."""
    drop = set(exclude) | {"id", "temp"}
    stripped: list[dict[str, Any]] = []
    for message in messages:
        items = message.items() if fields is None else ((k, v) for k, v in message.items() if k in fields)
        stripped.append({k: v for k, v in items if k not in drop})
    return alternate_roles(prepare_for_request(stripped, exclude=ENGINE_ONLY_FIELDS))


def for_saving(messages: Iterable[Message]) -> list[Message]:
    """Messages to persist: whole temp units dropped, pairing repaired, engine fields kept, tool results over the
    stored limit truncated with a note (``conversation.stored_form``). A history that needs no repair is returned
    as it is (the live message dicts, not copies: stores copy or serialize what they keep).

    A reply still streaming is kept as far as it got (its ``loading`` flag is cleared on restore)."""
    kept = [stored_form(m) for m in messages]
    pending = awaiting_call_ids(kept)
    clean = [m for m in kept if not is_empty_reply(m)]
    if not any(m.get("temp") or odd_result(m) for m in clean) and not validate(clean, pending=pending):
        return clean  # nothing to repair (the usual case): O(n) checks, no copies
    return drop_temp(kept, pending=pending)


def is_empty_reply(message: Message) -> bool:
    """An assistant message with nothing in it (a reply that has not started): it is not saved, and repair drops it
    too. A reply that only reasoned is not empty: its reasoning is saved and shown after a restore (requests leave
    it out: ``history.prepare_for_request``)."""
    content = message.get("content")
    return (message.get("role") == "assistant" and not message.get("tool_calls")
            and (content is None or content == "" or content == []) and not message.get("reasoning_content"))


def odd_result(message: Message) -> bool:
    return message.get("role") == "tool" and not isinstance(message.get("content"), (str, list))

