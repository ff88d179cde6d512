"""Which chats this kernel displayed, latest last: the ``%%chat`` magic sends to the latest by default."""

from __future__ import annotations

import weakref
from typing import Any

_displayed: list[weakref.ref[Any]] = []


def note_displayed(chat: Any) -> None:
    """``chat`` was just displayed (it becomes the latest)."""
    _displayed[:] = [ref for ref in _displayed if ref() is not None and ref() is not chat]
    _displayed.append(weakref.ref(chat))


def latest_displayed() -> Any | None:
    """The chat displayed last that still exists, or None."""
    for ref in reversed(_displayed):
        chat = ref()
        if chat is not None:
            return chat
    return None
