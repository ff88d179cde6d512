"""What the chat widget needs from whatever drives the conversation (the engine facade, or a test double).

The widget knows nothing about the engine's plugins: it reads views, subscribes to change events and
forwards user actions. Events are objects or dicts with ``kind`` ("state" | "message") and, for
"message", ``message_id``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from ..engine.notices import Notice

View = dict[str, Any]
"""The full view: {"messages", "status", "continue_offer", "notice"} (see docs/widget-protocol.md)."""

EventCallback = Callable[[Any], None]
Unsubscribe = Callable[[], None]


@runtime_checkable
class ChatController(Protocol):
    def view_state(self) -> View:
        """The whole view. A message view it returns again at a later call (the same object) has not changed: a
        changed message gets a new view object (the view stream keeps such views as the browsers' copy)."""
        ...

    def subscribe(self, callback: EventCallback) -> Unsubscribe: ...

    def message_view(self, message_id: str) -> dict[str, Any] | None: ...

    async def send(self, text: str) -> Any: ...

    async def stop(self) -> Any: ...

    async def approve(self, tool_call_id: str, arguments: str | None, *, by: str = "code") -> Any:
        """``by`` is "user" when the widget's Approve button was clicked."""
        ...

    async def deny(self, tool_call_id: str, reason: str | None, *, by: str = "code") -> Any: ...

    async def continue_turn(self, instruction: str | None) -> Any: ...

    async def set_skill(self, name: str, active: bool) -> Any:
        """Turn a skill on or off (the skill chips)."""
        ...

    async def restore(self, record: dict[str, Any] | None, info: dict[str, Any]) -> Any:
        """The browser handed the stored record (or None).

        ``info`` = {"notebook": bool, "cell_id": str | None} plus "record_error" (a sentence) when the notebook
        holds something that is not an object, and "locale" when the view said its language (notices follow it).
        Anything to tell the user goes in the view's ``notice``.
        """
        ...


@runtime_checkable
class Recoverable(Protocol):
    """Optional: a controller that can recover a failed turn (the ``Chat`` facade; see ``widget/recovery.py``)."""

    async def retry(self, shorter: bool = False) -> Any: ...

    def remove_message(self, message_id: str) -> Any: ...

    async def edit_and_resend(self, message_id: str, text: str) -> Any: ...


@runtime_checkable
class CommandAware(Protocol):
    """Optional: a controller that runs the "/" commands plugins add (the view lists them under ``commands``)."""

    async def run_command(self, name: str, argument: str = "") -> str | None:
        """What the status line says afterwards (None: nothing); an unknown name raises ``ValueError``."""
        ...


@runtime_checkable
class MentionAware(Protocol):
    """Optional: a controller with these methods answers the composer's ``@`` autocomplete and sends a message's
    mentions for its own turn only (``temp_mentions``: described once, never stored)."""

    def complete_mentions(self, prefix: str) -> list[dict[str, Any]]: ...

    async def send(self, text: str, *, temp_mentions: bool = False) -> None: ...


class PersistAware(Protocol):
    """Optional: a controller with this method hears the browser's acknowledgement of a metadata write."""

    def persisted(self, key: str, ok: bool, error: str | None, *, stale: bool = False) -> Any:
        """``stale``: the browser refused a patch because its copy is at another revision (send the whole record)."""
        ...


def event_kind(event: Any) -> str:
    """``event.kind`` for objects, ``event["kind"]`` for dicts."""
    if isinstance(event, dict):
        return str(event.get("kind", ""))
    return str(getattr(event, "kind", ""))


def event_message_id(event: Any) -> str | None:
    value = event.get("message_id") if isinstance(event, dict) else getattr(event, "message_id", None)
    return value if isinstance(value, str) else None


@runtime_checkable
class ConversationControls(Protocol):
    """Optional: a controller holding many conversations (the header's list, new, rename, delete, clear, export)."""

    def new_conversation(self, title: str | None = None) -> str: ...

    async def switch(self, conversation_id: str) -> None: ...

    def rename(self, conversation_id: str, title: str) -> None: ...

    def delete(self, conversation_id: str) -> None: ...

    def clear(self) -> None: ...

    def export_markdown(self, conversation_id: str | None = None) -> str: ...

    def export_cells(self, conversation_id: str | None = None) -> list[dict[str, str]]: ...


def conversation_controls(controller: Any) -> ConversationControls:
    """The controller's conversation controls, or `ValueError` (a sentence for the user) when it has none."""
    if not isinstance(controller, ConversationControls):
        raise ValueError(Notice("conversations.single"))
    return controller
