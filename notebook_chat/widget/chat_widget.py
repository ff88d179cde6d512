"""The anywidget that shows a conversation. A thin adapter: views and events in, validated user actions out.

Browser→kernel actions are custom messages (never synced traits: ipykernel 7 freezes trait sync for
messages handled while a cell awaits). They may arrive on a comm/subshell thread, so each one hops onto
the kernel's loop (captured at construction) and runs there as a task: a cell may be awaiting, nothing
here blocks.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import secrets
import zlib
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anywidget
import traitlets

from ..engine.notices import Notice, say_error
from ..persistence.record import collector_paused
from .actions import ACTIONS, Action, ActionError, parse_action
from .controller import ChatController, MentionAware, conversation_controls
from .loops import current_loop, running_loop
from .persist_text import MIN_VIEW_TEXT, TEXT_FIELDS, refer_to_view
from .transcript import transcript_bundle
from .view_stream import ViewStream

log = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent.parent / "static"


class ChatWidget(anywidget.AnyWidget):
    _esm = STATIC / "widget.js"
    _css = STATIC / "widget.css"

    header = traitlets.Unicode("").tag(sync=True)
    key = traitlets.Unicode("").tag(sync=True)
    locale = traitlets.Unicode("").tag(sync=True)
    """The widget's language ("en", "zh-CN"), set once; "" follows the page (JupyterLab sets <html lang>)."""
    instance = traitlets.Unicode("").tag(sync=True)
    """This widget's own id (random, set once), shared by all its views: per notebook, one view of it writes."""
    home = traitlets.Unicode("").tag(sync=True)
    """The id of the cell that created the chat ("" unknown): the notebook holding it owns the chat's key."""

    def __init__(
        self,
        controller: ChatController,
        *,
        header: str = "",
        key: str = "",
        locale: str = "",
        home: str = "",
        loop: asyncio.AbstractEventLoop | None = None,
        interval: float = 0.03,
        **kwargs: Any,
    ) -> None:
        super().__init__(header=header, key=key, locale=locale, home=home, instance=secrets.token_hex(8), **kwargs)
        self._controller = controller
        self._loop = loop if loop is not None else current_loop()
        self._tasks: set[asyncio.Task[None]] = set()
        self._stream = ViewStream(self._post, controller, interval=interval, loop=self._loop)
        self._unsubscribe = controller.subscribe(self._on_event)
        self.on_msg(self._on_custom_msg)
        self.notebook_available: bool | None = None
        """What the browser said in its last "ready": a notebook document is reachable (None before any)."""
        self.cell_id: str | None = None
        """The id of the cell that displays the widget, from the last "ready" (None if unknown)."""
        self.last_persist_ack: tuple[str, bool, str | None] | None = None
        self.persist_counts: Counter[str] = Counter()
        """`persist` messages sent: "patch" (based on the browser's copy) and "whole" (the whole entry, base None)."""
        self._fallback_sent: dict[str, str] | None = None
        """The transcript last put into this widget's output (at display or with a `persist`)."""
        self.page_locale: str | None = None
        """The page's language from the last "ready" (JupyterLab's language setting), None before any."""

    @property
    def controller(self) -> ChatController:
        return self._controller

    # kernel → browser ------------------------------------------------------------

    def persist(self, write: Mapping[str, Any]) -> None:
        """Ask the browser to apply a write (``{"key", "revision", "base", "ops"}``, see
        ``persistence.notebook_store``) to metadata["notebook_chat"]["conversations"][key].

        The browser acknowledges with a "persisted" action (see `last_persist_ack`). Long streamed text the
        browser's view already holds is named, not sent again (``persist_text``). A write that is more than a
        streaming reply's appended text, made while no turn runs (a turn's end or pause, a switch, an edit), carries
        the conversation's static transcript too (`fallback`, sent only when it differs from the one the output
        already has), which the browser writes into this widget's output.
        """
        message: dict[str, Any] = {"kind": "persist", **write}
        if "ops" in write:
            message["ops"] = self._view_referenced(write["ops"])
        if _streaming_only(write.get("ops")):
            message["streaming"] = True  # only streamed text grew: the browser may coalesce it with later writes
        elif not self._turn_running():
            fallback = self._transcript()
            if fallback != self._fallback_sent:
                message["fallback"] = self._fallback_sent = fallback
        self.persist_counts["whole" if write.get("base") is None else "patch"] += 1
        self._post(message)

    def _view_referenced(self, ops: Any) -> Any:
        """The write's ops, with the long streamed text the browsers' view already holds named instead of sent
        again (``persist_text``); the view's pending deltas go first, so the browser holds that text when the
        write arrives."""
        if not isinstance(ops, list) or running_loop() is not self._loop or not _carries_long_text(ops):
            return ops
        self._stream.flush()
        referenced = refer_to_view(ops, self._stream.browser_text, self._stream.recent_ids)
        return ops if referenced is None else referenced

    def _turn_running(self) -> bool:
        """A turn is under way: the transcript waits for its end (or pause), when the reply is whole."""
        state = getattr(self._controller, "state", None)
        return getattr(state, "request_state", None) == "processing"

    def _transcript(self) -> dict[str, str]:
        messages = getattr(self._controller, "messages", None)
        return transcript_bundle(messages if isinstance(messages, list) else [], title=self.header,
                                 locale=self.locale or self.page_locale)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        """The widget, a readable transcript for front ends without it (GitHub, nbviewer, no kernel), and the
        conversation's key in the output's metadata."""
        bundle = super()._repr_mimebundle_(**kwargs)  # anywidget: (data, metadata); None without a view
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        if not isinstance(data, dict):
            return bundle
        self._fallback_sent = self._transcript()
        data = {**data, **self._fallback_sent}
        return data, {**(metadata or {}), "notebook_chat": {"key": self.key or None}}

    def flush(self) -> None:
        """Send any pending delta or snapshot now (e.g. before a test inspects what was sent)."""
        self._stream.flush()

    def close(self) -> None:
        self._unsubscribe()
        self._stream.close()
        super().close()

    def _post(self, message: dict[str, Any]) -> None:
        if running_loop() is self._loop:
            self.send(message)
        else:
            self._loop.call_soon_threadsafe(self.send, message)

    def _answer(self, request_id: str | None, error: str | None, message: str | None = None) -> None:
        """``message``: what a "/" command said (shown in the status line); sent only when there is one."""
        answer = {"kind": "action_result", "request_id": request_id, "ok": error is None, "error": error}
        self._post(answer if message is None else {**answer, "message": message})

    # browser → kernel ------------------------------------------------------------

    def _on_event(self, event: Any) -> None:
        if running_loop() is self._loop:
            self._stream.on_event(event)
        else:
            self._loop.call_soon_threadsafe(self._stream.on_event, event)

    def _on_custom_msg(self, _widget: Any, content: Any, buffers: Any) -> None:
        self._loop.call_soon_threadsafe(self._dispatch, content, buffers)

    def _dispatch(self, content: Any, buffers: Any = None) -> None:
        try:
            action = parse_action(content)
        except ActionError as exc:
            self._answer(exc.request_id, self._say(exc))
            return
        if action.kind == "ready" and action.payload.get("record_gzip") is True:
            action.payload["record"] = PackedRecord(buffers)  # unpacked by on_ready
        task = self._loop.create_task(self._run(action))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, action: Action) -> None:
        try:
            result = await ACTIONS[action.kind].handler(self, action.payload)
        except Exception as exc:
            log.debug("notebook_chat: action %s failed", action.kind, exc_info=True)
            self._answer(action.request_id, self._say(exc))
        else:
            if action.request_id is not None:
                said = result if action.kind == "command" and isinstance(result, str) else None
                self._answer(action.request_id, None, said)

    def _say(self, exc: BaseException) -> str:
        return say_error(exc, self.locale or self.page_locale)

    async def on_ready(self, payload: dict[str, Any]) -> None:
        """The browser rendered the view: hand the stored record to the controller, then send the whole view. A view
        that only renders (``writer`` false: another view of the chat writes) just gets the view.

        With no cyclic garbage collection meanwhile: reading a long record makes a few hundred thousand containers,
        and the collector walked the kernel's whole heap again and again as they piled up, to find nothing (in-process,
        3,000 messages: 142 -> 77 ms until the view is sent; 5,000: 234 -> 158 ms). It runs once the view is sent."""
        with collector_paused():
            await self._take_ready(payload)

    async def _take_ready(self, payload: dict[str, Any]) -> None:
        if payload.get("writer") is False:
            if payload["locale"]:
                self.page_locale = payload["locale"]
            self._stream.send_snapshot(whole=True)
            return
        self.notebook_available = payload["notebook"]
        self.cell_id = payload["cell_id"]
        info: dict[str, Any] = {"notebook": payload["notebook"], "cell_id": payload["cell_id"]}
        if payload["locale"]:
            self.page_locale = info["locale"] = payload["locale"]
        record = payload["record"]
        if isinstance(record, PackedRecord):
            record = record.unpacked()
        if isinstance(record, UnreadablePacked):
            info["record_error"] = Notice("notice.packed_unreadable", error=record.error)
            record = None
        elif record is not None and not isinstance(record, dict):
            info["record_error"] = Notice("notice.not_an_object", type=type(record).__name__)
            record = None
        try:
            await self._controller.restore(record, info)
        finally:
            self._stream.send_snapshot(whole=True)  # this view has no copy yet

    async def on_view_resync(self, payload: dict[str, Any]) -> None:
        """A view could not apply a ``view_patch`` (its copy is not the one the patch needs): send the whole view."""
        self._stream.send_snapshot(whole=True)

    async def on_view_older(self, payload: dict[str, Any]) -> None:
        """The reader nears the first message of the view's window: the window grows by the messages before it."""
        self._stream.show_older(payload["before"])

    async def on_complete_mentions(self, payload: dict[str, Any]) -> None:
        """The composer typed ``@prefix``: answer with the matching variables (none without mentions)."""
        controller, prefix = self._controller, payload["prefix"]
        options = controller.complete_mentions(prefix) if isinstance(controller, MentionAware) else []
        self._post({"kind": "mention_options", "prefix": prefix, "options": options})

    async def on_persisted(self, payload: dict[str, Any]) -> None:
        key, ok, error = payload["key"], payload["ok"], payload["error"]
        self.last_persist_ack = (key, ok, error)
        hook = getattr(self._controller, "persisted", None)
        if callable(hook):
            result = hook(key, ok, error, stale=payload.get("stale") is True)
            if inspect.isawaitable(result):
                await result


    async def on_export(self, payload: dict[str, Any]) -> None:
        """Answer an `export_conversation` with the Markdown or the cells (the browser copies, downloads or inserts
        them)."""
        controls = conversation_controls(self._controller)
        conversation_id, wanted = payload["conversation_id"], payload["format"]
        content: Any = (controls.export_markdown(conversation_id) if wanted == "markdown"
                        else controls.export_cells(conversation_id))
        self._post({"kind": "export", "format": wanted, "conversation_id": conversation_id, "content": content})


class UnreadablePacked:
    """What a packed record that can't be unpacked becomes: ``on_ready`` refuses it with a notice and never writes
    over the stored record."""

    def __init__(self, error: str) -> None:
        self.error = error


class PackedRecord:
    """The record a ``ready`` sent gzip-compressed in its first binary buffer (``record_gzip``; a long record, see
    ``js/widget/src/record_pack.js``), unpacked where the handler takes it in (with the collector paused)."""

    def __init__(self, buffers: Any) -> None:
        self.buffers = buffers

    def unpacked(self) -> Any:
        """The record, or `UnreadablePacked`."""
        try:
            return json.loads(zlib.decompress(bytes(self.buffers[0]), wbits=31))
        except Exception as exc:  # no buffer, not gzip, not JSON: all the same to the reader
            log.debug("notebook_chat: the packed record could not be read", exc_info=True)
            return UnreadablePacked(type(exc).__name__)


def _carries_long_text(ops: list[Any]) -> bool:
    """Whether a write holds a message text long enough to be worth naming by reference (cheap: no deep walk)."""
    for op in ops:
        if not isinstance(op, Mapping):
            continue
        if op.get("op") == "append" and len(op.get("text") or "") >= MIN_VIEW_TEXT:
            return True
        if op.get("op") == "set" and isinstance(op.get("value"), str) and len(op["value"]) >= MIN_VIEW_TEXT:
            return True
        if op.get("op") == "splice" and isinstance(op.get("insert"), list) and any(
                isinstance(m, Mapping) and any(isinstance(m.get(f), str) and len(m[f]) >= MIN_VIEW_TEXT
                                               for f in TEXT_FIELDS) for m in op["insert"]):
            return True
    return False


def _streaming_only(ops: Any) -> bool:
    """A write that only grows streamed text (and moves the time stamp): the transcript waits for the turn's end.
    A reply's text goes as a `set` while it is short (its first streaming save), then as appends."""
    return isinstance(ops, list) and all(isinstance(op, Mapping) and (op.get("op") == "append" or _is_stamp(op)
                                                                      or _is_text_set(op))
                                         for op in ops)


def _is_text_set(op: Mapping[str, Any]) -> bool:
    """A `set` of a message's streamed text (``[..., "messages", i, "content" | "reasoning_content"]``)."""
    path = op.get("path")
    return (op.get("op") == "set" and isinstance(path, list) and len(path) >= 3 and path[-3] == "messages"
            and type(path[-2]) is int and path[-1] in ("content", "reasoning_content")
            and isinstance(op.get("value"), str))


def _is_stamp(op: Mapping[str, Any]) -> bool:
    """A `set` of a record's ``updated_at``, wherever the record sits in the entry (one record, or one of many)."""
    path = op.get("path")
    return op.get("op") == "set" and isinstance(path, list) and bool(path) and path[-1] == "updated_at"



