"""Coalesces the controller's change events into few kernel→browser messages.

A "message" event only marks that message dirty (O(1) per chunk). One timer on the loop flushes every
`interval` seconds, or the first event after it is due when the producer does not yield to the loop: each dirty
message is diffed against the text the browser already has, field by field, and the growth goes out as one batched
append-only "delta". Anything that is not an append (a field shrank or was rewritten, a message or tool call the
browser has never seen) and every "state" event becomes one full "snapshot" instead. A pending snapshot is always
sent before later deltas, so the browser sees changes in order.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from .controller import ChatController, event_kind, event_message_id
from .loops import current_loop

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
            self._post({"kind": "delta", "ops": ops})

    def send_snapshot(self) -> None:
        """Send the full view now (also the answer to "ready"); forgets pending deltas, which it includes."""
        self._snapshot_due = False
        self._dirty.clear()
        view = self._controller.view_state()
        self._sent = {
            message["id"]: message_texts(message)
            for message in view.get("messages", ())
            if isinstance(message, dict) and isinstance(message.get("id"), str)
        }
        self._post({"kind": "snapshot", "view": view})

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

    def _post(self, message: dict[str, Any]) -> None:
        try:
            self._send(message)
        except Exception:
            log.exception("notebook_chat: could not send a %s to the browser", message.get("kind"))
