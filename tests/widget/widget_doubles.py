"""Shared parts for the widget's kernel-side tests: a small in-memory controller and a recording comm.

`InMemoryController` implements the widget's controller protocol over a plain list of message views; it is a
stand-in for the engine facade, not a mock of one (no expectations, it just keeps a conversation).
"""

from __future__ import annotations

import copy
from typing import Any

import comm
import pytest
from comm.base_comm import BaseComm

from notebook_chat import Chat, tool
from notebook_chat.persistence.patches import apply_write
from notebook_chat.widget.persist_text import resolve_view_text
from notebook_chat.widget.view_copy import BrowserViewCopy


def drawn(sent: list[dict[str, Any]]) -> dict[str, Any]:
    """The view a browser that received the kernel messages `sent` draws last (snapshots, view patches, deltas)."""
    copy, view = BrowserViewCopy(), None
    for message in sent:
        taken = copy.take(message)
        assert taken != "resync", f"the browser's copy could not take {message!r:.200}"
        if isinstance(taken, dict):
            view = taken
    assert view is not None, "no view was drawn"
    return view


class InMemoryController:
    def __init__(self, messages: list[dict[str, Any]] | None = None) -> None:
        self.messages: list[dict[str, Any]] = messages or []
        self.status: dict[str, Any] = {"request_state": "idle", "processing_state": None, "error": None}
        self.subscribers: list[Any] = []
        self.calls: list[tuple[Any, ...]] = []
        self.fail_with: Exception | None = None
        self.notice: str | None = None

    # views and events
    def view_state(self) -> dict[str, Any]:
        return {
            "messages": copy.deepcopy(self.messages),
            "status": dict(self.status),
            "continue_offer": None,
            "notice": self.notice,
        }

    def message_view(self, message_id: str) -> dict[str, Any] | None:
        for message in self.messages:
            if message["id"] == message_id:
                return message
        return None

    def subscribe(self, callback: Any) -> Any:
        self.subscribers.append(callback)
        return lambda: self.subscribers.remove(callback)

    def emit(self, kind: str, message_id: str | None = None) -> None:
        for callback in list(self.subscribers):
            callback({"kind": kind, "message_id": message_id})

    # changes a test drives
    def add(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        self.emit("state")

    def append(self, message_id: str, text: str, field: str = "content") -> None:
        message = self.message_view(message_id)
        assert message is not None
        message[field] = (message.get(field) or "") + text
        self.emit("message", message_id)

    def set_request_state(self, state: str) -> None:
        self.status["request_state"] = state
        self.emit("state")

    # actions
    async def _record(self, *call: Any) -> None:
        self.calls.append(call)
        if self.fail_with is not None:
            raise self.fail_with

    async def send(self, text: str) -> None:
        await self._record("send", text)

    async def stop(self) -> None:
        await self._record("stop")

    async def approve(self, tool_call_id: str, arguments: str | None, *, by: str = "code") -> None:
        await self._record("approve", tool_call_id, arguments)

    async def deny(self, tool_call_id: str, reason: str | None, *, by: str = "code") -> None:
        await self._record("deny", tool_call_id, reason)

    async def continue_turn(self, instruction: str | None) -> None:
        await self._record("continue", instruction)

    async def set_skill(self, name: str, active: bool) -> None:
        await self._record("skill", name, active)

    async def retry(self, shorter: bool = False) -> None:
        await self._record("retry", shorter)

    def remove_message(self, message_id: str) -> None:
        self.calls.append(("remove_message", message_id))
        if self.fail_with is not None:
            raise self.fail_with

    async def edit_and_resend(self, message_id: str, text: str) -> None:
        await self._record("edit_and_resend", message_id, text)

    async def restore(self, record: dict[str, Any] | None, info: dict[str, Any]) -> None:
        await self._record("restore", record, info)
        if info.get("record_error"):
            self.notice = info["record_error"]

    def persisted(self, key: str, ok: bool, error: str | None, *, stale: bool = False) -> None:
        self.calls.append(("persisted", key, ok, error) + (("stale",) if stale else ()))


class RecordingComm(BaseComm):
    """A comm without a kernel that keeps every custom message the widget sends to the browser."""

    def __init__(self, **kwargs: Any) -> None:
        self.sent: list[dict[str, Any]] = []
        super().__init__(**kwargs)

    def publish_msg(
        self, msg_type: str, data: Any = None, metadata: Any = None, buffers: Any = None, **keys: Any
    ) -> None:
        if msg_type == "comm_msg" and isinstance(data, dict) and data.get("method") == "custom":
            self.sent.append(data["content"])


def record_comms(monkeypatch: pytest.MonkeyPatch) -> list[RecordingComm]:
    """Every widget opened from now on gets a RecordingComm, listed here (`comm.create_comm` is meant to be
    replaced); no kernel needed."""
    created: list[RecordingComm] = []

    def create(**kwargs: Any) -> RecordingComm:
        made = RecordingComm(**kwargs)
        created.append(made)
        return made

    monkeypatch.setattr(comm, "create_comm", create)
    return created


def notebook_entry(sent: list[dict[str, Any]], key: str | None = None) -> Any:
    """What the notebook's metadata holds under `key` (default: the first write's key) once the browser applied
    every `persist` write in `sent`, as the browser does: its references to streamed text resolved from the view
    copy the messages before it built (`resolve_view_text`), then `apply_write`, revision included."""
    entry: Any = None
    view = BrowserViewCopy()
    for message in sent:
        if message.get("kind") == "persist" and (key is None or message["key"] == key):
            key = message["key"]
            entry = apply_write(entry, resolve_view_text(message, view.text))
        else:
            view.take(message)
    return entry


def active_conversation(entry: Any) -> Any:
    """The active conversation's record in a chat's stored entry (`{"active", "items"}`, container version 2)."""
    return entry["items"][entry["active"]]


def drop_table_tool(ran: list[str]) -> Any:
    """A `drop_table(name)` tool that needs approval and appends each name it drops to `ran`."""

    @tool(approval=True)
    def drop_table(name: str) -> str:
        """Drop a table."""
        ran.append(name)
        return f"dropped {name}"

    return drop_table


async def shown(chat: Chat, record: Any = None) -> Chat:
    """`chat` as a notebook shows it: restored from `record` (the metadata the browser read, None: nothing)."""
    await chat.restore(record, {"notebook": True, "cell_id": chat.key})
    return chat
