"""Coalesces the controller's change events into few kernel→browser messages.

A "message" event only marks that message dirty (O(1) per chunk). One timer on the loop flushes every
`interval` seconds, or the first event after it is due when the producer does not yield to the loop: each dirty
message is diffed against the text the browser already has, field by field, and the growth goes out as one batched
append-only "delta". Anything that is not an append (a field shrank or was rewritten, a message or tool call the
browser has never seen) and every "state" event becomes a snapshot instead. A pending snapshot is always
sent before later deltas, so the browser sees changes in order.

A snapshot costs what changed (``view_copy``): the browsers hold the view last sent (with the deltas since), so a
snapshot goes as a ``view_patch`` of that copy — the messages and fields that changed — and whole only when a
browser has no copy (``ready``) or lost it (``view_resync``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from ..persistence.patches import copy_json, diff
from .controller import ChatController, event_kind, event_message_id
from .loops import current_loop
from .view_copy import apply_delta, index_messages

log = logging.getLogger(__name__)

Send = Callable[[dict[str, Any]], None]
Texts = dict[str, str]
"""field ("content" | "reasoning_content" | "args:<tool_call_id>") -> text."""


def message_texts(message: dict[str, Any]) -> Texts:
    """The streamable text fields of one message view."""
    texts: Texts = {
        "content": _text(message.get("content")),
        "reasoning_content": _text(message.get("reasoning_content")),
    }
    for call in message.get("tool_calls") or ():
        if isinstance(call, dict) and isinstance(call.get("id"), str):
            texts[f"args:{call['id']}"] = _text(call.get("arguments"))
    return texts


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


class ViewStream:
    def __init__(
        self,
        send: Send,
        controller: ChatController,
        interval: float = 0.03,
        loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        self._send = send
        self._controller = controller
        self._interval = interval
        self._loop = loop if loop is not None else current_loop()
        self._dirty: dict[str, None] = {}
        self._snapshot_due = False
        self._sent: dict[str, Texts] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._due = 0.0
        self._closed = False
        self._copy: dict[str, Any] | None = None
        """The view every browser holds (the last one sent, with the deltas since); None: send it whole."""
        self._copy_ids: dict[str, dict[str, Any]] = {}
        self.revision = 0
        """The revision of that copy (a counter; a view_patch names the one it applies to)."""

    def on_event(self, event: Any) -> None:
        """The controller's subscriber: called on the loop's thread for every change."""
        message_id = event_message_id(event) if event_kind(event) == "message" else None
        if message_id is None:
            self._snapshot_due = True
        else:
            self._dirty[message_id] = None
        if self._closed:
            return
        if self._timer is None:
            self._due = self._loop.time() + self._interval
            self._timer = self._loop.call_later(self._interval, self.flush)
        elif self._loop.time() >= self._due:
            # the timer is late: the producer has not yielded to the loop since (a stream as fast as possible), so
            # flush here, or the whole reply would reach the browser only at its end
            self.flush()

    def flush(self) -> None:
        """Send what is pending now: a snapshot if due or if deltas cannot express the change, else deltas."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._closed:
            return
        if self._snapshot_due:
            self.send_snapshot()
            return
        ops = self._collect_ops()
        self._dirty.clear()
        if ops is None:
            self.send_snapshot()
        elif ops:
            if self._post({"kind": "delta", "ops": ops}):
                apply_delta(self._copy_ids, ops)
            else:
                self._copy = None  # the browsers missed text: the next snapshot goes whole

    def send_snapshot(self, *, whole: bool = False) -> None:
        """Send the view now: what changed since the browsers' copy, or the whole view when they have none or
        ``whole`` (the answer to "ready" and "view_resync"). Forgets pending deltas, which it includes."""
        self._snapshot_due = False
        self._dirty.clear()
        view = self._controller.view_state()
        self._sent = {
            message["id"]: message_texts(message)
            for message in view.get("messages", ())
            if isinstance(message, dict) and isinstance(message.get("id"), str)
        }
        base = None if whole else self._copy
        self.revision += 1
        if base is None:
            sent = self._post({"kind": "snapshot", "view": view, "revision": self.revision})
        else:
            ops = diff(base, view)
            if not ops:
                self.revision -= 1
                return  # the browsers already show this view
            sent = self._post({"kind": "view_patch", "base": self.revision - 1, "revision": self.revision,
                               "ops": ops})
        self._copy = copy_json(view) if sent else None  # not sent: the next snapshot goes whole
        self._copy_ids = index_messages(self._copy) if self._copy is not None else {}

    def browser_text(self, message_id: str, field: str) -> str | None:
        """The text of a message's field ("content" | "reasoning_content") that every browser's view copy holds
        once what is pending is sent (call `flush` first); None when the browsers' copy is unknown."""
        message = self._copy_ids.get(message_id) if self._copy is not None else None
        value = message.get(field) if message is not None else None
        return value if isinstance(value, str) else None

    def recent_ids(self, count: int = 8) -> list[str]:
        """The ids of the last `count` messages of the browsers' view copy, newest first."""
        messages = self._copy.get("messages") if self._copy is not None else None
        if not isinstance(messages, list):
            return []
        return [m["id"] for m in reversed(messages[-count:]) if isinstance(m, dict) and isinstance(m.get("id"), str)]

    def close(self) -> None:
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _collect_ops(self) -> list[dict[str, str]] | None:
        """Append ops for every dirty message, or None when only a snapshot can express the change."""
        ops: list[dict[str, str]] = []
        for message_id in self._dirty:
            sent = self._sent.get(message_id)
            view = self._controller.message_view(message_id)
            if sent is None or view is None:
                return None
            current = message_texts(view)
            if current.keys() != sent.keys():
                return None
            for name, text in current.items():
                old = sent[name]
                if len(text) == len(old) and text == old:
                    continue
                if len(text) < len(old) or not text.startswith(old):
                    return None
                ops.append({"id": message_id, "field": name, "append": text[len(old) :]})
                sent[name] = text
        return ops

    def _post(self, message: dict[str, Any]) -> bool:
        try:
            self._send(message)
        except Exception:
            log.exception("notebook_chat: could not send a %s to the browser", message.get("kind"))
            return False
        return True
