"""The browser's copy of the view, and how kernel→browser messages change it.

A browser keeps the last view it drew. The kernel keeps the same copy (``ViewStream``): a turn boundary then sends only
what changed — a ``view_patch`` of the copy at revision ``base`` into revision ``revision`` (the ops of
``persistence.patches``) — and a whole ``snapshot`` only when a browser has no copy yet (its ``ready``) or says its
copy is not the one the patch needs (``view_resync``). Streamed ``delta`` ops change both copies the same way.

:class:`BrowserViewCopy` is the reference for ``js/widget/src/view_copy.js`` (the browser's twin); tests drive both
with the same messages and compare with the whole view.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..persistence.patches import PatchError, apply_ops, copy_json

RESYNC = "resync"
"""What a copy answers to a patch it can't apply: the browser asks for the whole view."""


def index_messages(view: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The view's messages by id (the ones deltas reach)."""
    return {message["id"]: message for message in view.get("messages") or ()
            if isinstance(message, dict) and isinstance(message.get("id"), str)}


def apply_delta(by_id: Mapping[str, dict[str, Any]], ops: Iterable[Mapping[str, Any]]) -> None:
    """Append each delta op's text to its message's field in a view copy (in place; unknown targets are skipped,
    as the browser's message list skips them)."""
    for op in ops:
        message_id, field, text = op.get("id"), op.get("field"), op.get("append")
        message = by_id.get(message_id) if isinstance(message_id, str) else None
        if message is None or not isinstance(field, str) or not isinstance(text, str):
            continue
        if field in ("content", "reasoning_content"):
            message[field] = _text(message.get(field)) + text
        elif field.startswith("args:"):
            call_id = field[len("args:"):]
            calls = message.get("tool_calls")
            for call in calls if isinstance(calls, list) else ():
                if isinstance(call, dict) and call.get("id") == call_id:
                    call["arguments"] = _text(call.get("arguments")) + text
                    break


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


class BrowserViewCopy:
    """What one browser view holds: the view at ``revision`` (None before its first snapshot, and after a
    patch it could not apply, until the whole view arrives again)."""

    def __init__(self) -> None:
        self.view: dict[str, Any] | None = None
        self.revision: Any = None
        self._by_id: dict[str, dict[str, Any]] = {}

    def take(self, message: Mapping[str, Any]) -> dict[str, Any] | str | None:
        """The view to draw after ``message`` (a copy), ``RESYNC`` when the browser must ask for the whole view,
        or None when there is nothing to draw."""
        kind = message.get("kind")
        if kind == "snapshot":
            self.view = copy_json(message.get("view"))
            self.revision = message.get("revision")
            self._by_id = index_messages(self.view or {})
            drawn: dict[str, Any] = copy_json(self.view)
            return drawn
        if kind == "delta":
            if self.view is not None:
                apply_delta(self._by_id, message.get("ops") or ())
            return None
        if kind == "view_patch":
            if self.view is None:
                return None  # no copy yet: the whole view is on its way (the answer to ready, or to a resync)
            if message.get("base") != self.revision:
                return self._lost()
            try:
                view = apply_ops(self.view, message.get("ops") or [])
            except PatchError:
                return self._lost()
            if not isinstance(view, dict):
                return self._lost()
            self.view, self.revision, self._by_id = view, message.get("revision"), index_messages(view)
            patched: dict[str, Any] = copy_json(view)
            return patched
        return None

    def text(self, message_id: str, field: str) -> str | None:
        """The text of a message's field in the copy (None: no copy, no such message, not a string)."""
        message = self._by_id.get(message_id)
        value = message.get(field) if message is not None else None
        return value if isinstance(value, str) else None

    def _lost(self) -> str:
        self.view, self.revision, self._by_id = None, None, {}
        return RESYNC
