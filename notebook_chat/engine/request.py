"""Turns engine messages into what a provider may see, and into what may be saved."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .conversation import ENGINE_ONLY_FIELDS, Message, awaiting_call_ids, stored_form
from .history import drop_temp, prepare_for_request
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
    stored limit truncated with a note (``conversation.stored_form``).

    A reply still streaming is kept as far as it got (its ``loading`` flag is cleared on restore)."""
    kept = [stored_form(m) for m in messages]
    return drop_temp(kept, pending=awaiting_call_ids(kept))

