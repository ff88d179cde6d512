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

The view the browsers hold is a window of the conversation (``window_start``): its latest messages (the latest turn's
at least), with ``older`` saying how many come before them. A first view thus costs what the reader sees first,
however long the conversation; the browser asks for the messages before its window (``view_older``) as the reader
nears them, and the window grows by a chunk (``older_start``), sent as a ``view_patch`` like any other change.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any

from ..persistence.patches import copy_json, diff
from .controller import ChatController, event_kind, event_message_id
from .loops import current_loop
from .view_copy import apply_delta

log = logging.getLogger(__name__)

FIRST_WINDOW = 30
"""A conversation's first view holds its latest this many messages (and at least the latest turn)."""
OLDER_CHUNK = 40
"""The window grows by at most this many messages at a time ..."""
OLDER_CHUNK_CHARS = 256_000
"""... and by about this much JSON (at least one message)."""

Send = Callable[[dict[str, Any]], None]
Window = tuple[Any, str | None, int]
"""The browsers' window: (active conversation id, the id of its first message (None: no messages), its index)."""
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


def window_start(messages: list[Any], size: int = FIRST_WINDOW) -> int:
    """Where a conversation's first view starts: its latest ``size`` messages, or its latest turn when that is
    longer (the latest user message is in every view: Edit and Regenerate act on it)."""
    last_user = len(messages)
    for index in range(len(messages) - 1, -1, -1):
        if isinstance(messages[index], dict) and messages[index].get("role") == "user":
            last_user = index
            break
    return max(0, min(last_user, len(messages) - size))


def older_start(messages: list[Any], start: int, chunk: int = OLDER_CHUNK) -> int:
    """Where the window starting at ``start`` starts once it grew by a chunk: ``chunk`` messages or about
    OLDER_CHUNK_CHARS of them, at least one."""
    size, index = 0, start
    while index > 0 and start - index < chunk:
        size += len(json.dumps(messages[index - 1]))
        if size > OLDER_CHUNK_CHARS and index < start:
            break
        index -= 1
    return index


def _active(view: dict[str, Any]) -> Any:
    conversations = view.get("conversations")
    return conversations.get("active") if isinstance(conversations, dict) else None


def _index_of(messages: list[Any], message_id: str, hint: int) -> int | None:
    """The index of the message with ``message_id`` (looked for at ``hint`` first)."""
    if 0 <= hint < len(messages) and isinstance(messages[hint], dict) and messages[hint].get("id") == message_id:
        return hint
    for index, message in enumerate(messages):
        if isinstance(message, dict) and message.get("id") == message_id:
            return index
    return None


class ViewStream:
    def __init__(
        self,
        send: Send,
        controller: ChatController,
        interval: float = 0.03,
        loop: asyncio.AbstractEventLoop | None = None,
        *,
        first_window: int = FIRST_WINDOW,
        older_chunk: int = OLDER_CHUNK,
    ) -> None:
        self._send = send
        self._controller = controller
        self._interval = interval
        self._loop = loop if loop is not None else current_loop()
        self._dirty: dict[str, None] = {}
        self._snapshot_due = False
        self._timer: asyncio.TimerHandle | None = None
        self._due = 0.0
        self._closed = False
        self._copy: dict[str, Any] | None = None
        """The view every browser holds (the last one sent, with the deltas since); None: send it whole. Its
        leading messages that the controller gave twice are the controller's own objects, which are never changed in
        place; every other message is this copy's own."""
        self._given: list[Any] = []
        """The message views of the last view the controller gave (held: their ids are not reused)."""
        self._owned: set[int] = set()
        """The ``id()``s of the copy's messages that are its own (a delta changes them in place)."""
        self.revision = 0
        """The revision of that copy (a counter; a view_patch names the one it applies to)."""
        self._first_window, self._older_chunk = first_window, older_chunk
        self._window: Window | None = None
        """Where the browsers' window of the messages starts (None: not decided yet)."""
        self._grow: str | None = None
        """The first message of the window, when the browsers asked for the messages before it."""

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
                owned = {op["id"]: self._own(op["id"]) for op in ops}
                apply_delta({key: message for key, message in owned.items() if message is not None}, ops)
            else:
                self._copy = None  # the browsers missed text: the next snapshot goes whole

    def send_snapshot(self, *, whole: bool = False) -> None:
        """Send the view now: what changed since the browsers' copy, or the whole view when they have none or
        ``whole`` (the answer to "ready" and "view_resync"). Forgets pending deltas, which it includes.

        Costs what changed: a message view the controller gave last time too is the same unchanged object (the
        ``ChatController`` contract), so the diff skips it by identity and the new copy keeps it instead of copying."""
        self._snapshot_due = False
        self._dirty.clear()
        view = self._window_of(self._controller.view_state(), whole=whole)
        base = None if whole else self._copy
        self.revision += 1
        if base is None:
            sent = self._post({"kind": "snapshot", "view": view, "revision": self.revision})
        else:
            ops = diff(base, view)
            if not ops:
                self.revision -= 1
                self._keep(view)
                return  # the browsers already show this view
            sent = self._post({"kind": "view_patch", "base": self.revision - 1, "revision": self.revision,
                               "ops": ops})
        if sent:
            self._keep(view)
        else:
            self._copy, self._given, self._owned = None, [], set()  # not sent: the next snapshot goes whole

    @property
    def held(self) -> int:
        """How many messages come before the browsers' window (the view's ``older``)."""
        return 0 if self._window is None else self._window[2]

    def show_older(self, before: str) -> None:
        """The browsers ask for the messages before ``before``, the first of their window: the window grows by a
        chunk, sent at once as a ``view_patch``. Nothing happens when ``before`` is not the window's first message
        (another view asked already, or the conversation changed: the browsers get that change anyway)."""
        if self._window is None or self._window[1] != before or self._window[2] == 0:
            return
        self._grow = before
        self.send_snapshot()

    def _window_of(self, view: dict[str, Any], *, whole: bool) -> dict[str, Any]:
        """The browsers' window of ``view``: its messages from the window's first on, and ``older``: how many come
        before them (left out when none). The window keeps its first message while the conversation does (new
        messages join it at the end; a window from the conversation's first message keeps starting there, so a hidden
        message shown again before the window's first is in it, not before it); it starts at ``window_start`` for a
        conversation the browsers have not seen, and for a whole view when the window held no message."""
        messages = view.get("messages")
        if not isinstance(messages, list):
            return view
        active, window = _active(view), self._window
        start: int | None = None
        if window is not None and window[0] == active and not (whole and window[1] is None):
            _, first, index = window
            if index == 0:
                start = 0  # it holds the conversation from its start: a message shown again before its first joins it
            else:
                start = _index_of(messages, first, index) if first is not None else None
                if start is None:
                    start = min(index, len(messages))  # its first message went (removed): the next one starts it
        if start is None:
            start = window_start(messages, self._first_window)
        if self._grow is not None and start < len(messages) and messages[start].get("id") == self._grow:
            start = older_start(messages, start, self._older_chunk)
        self._grow = None
        first_id = messages[start].get("id") if start < len(messages) else None
        self._window = (active, first_id if isinstance(first_id, str) else None, start)
        return view if start == 0 else {**view, "messages": messages[start:], "older": start}

    def _keep(self, view: dict[str, Any]) -> None:
        """Make the browsers' copy ``view``: the messages the controller gave last time too (the same objects,
        which it never changes in place) are kept as they are, the rest and everything else copied."""
        messages = view.get("messages")
        if not isinstance(messages, list):
            self._copy, self._given, self._owned = copy_json(view), [], set()
            return
        given = set(map(id, self._given))
        kept = [message if id(message) in given else copy_json(message) for message in messages]
        self._owned = {id(message) for message, held in zip(kept, messages, strict=True) if message is not held}
        self._given = list(messages)
        copied: dict[str, Any] = copy_json({key: value for key, value in view.items() if key != "messages"})
        copied["messages"] = kept
        self._copy = copied

    def _find(self, message_id: str) -> int | None:
        """The index of a message in the browsers' copy (searched from the end: the messages that change are the
        latest ones)."""
        messages = self._copy.get("messages") if self._copy is not None else None
        if not isinstance(messages, list):
            return None
        for index in range(len(messages) - 1, -1, -1):
            message = messages[index]
            if isinstance(message, dict) and message.get("id") == message_id:
                return index
        return None

    def _held(self, message_id: str) -> dict[str, Any] | None:
        index = self._find(message_id)
        held: dict[str, Any] | None = None if index is None or self._copy is None else self._copy["messages"][index]
        return held

    def _own(self, message_id: str) -> dict[str, Any] | None:
        """The copy's message, made the copy's own first (a delta is about to change it in place)."""
        index = self._find(message_id)
        if index is None or self._copy is None:
            return None
        messages = self._copy["messages"]
        message = messages[index]
        if id(message) not in self._owned:
            message = messages[index] = copy_json(message)
            self._owned.add(id(message))
        return message  # type: ignore[no-any-return]

    def browser_text(self, message_id: str, field: str) -> str | None:
        """The text of a message's field ("content" | "reasoning_content") that every browser's view copy holds
        once what is pending is sent (call `flush` first); None when the browsers' copy is unknown."""
        message = self._held(message_id)
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
            held = self._held(message_id)
            view = self._controller.message_view(message_id)
            if held is None or view is None:
                return None
            sent = message_texts(held)
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
        return ops

    def _post(self, message: dict[str, Any]) -> bool:
        try:
            self._send(message)
        except Exception:
            log.exception("notebook_chat: could not send a %s to the browser", message.get("kind"))
            return False
        return True
