"""The one table of browser→kernel actions: each kind with its payload schema and its handler (marimo style).
The protocol is written down in docs/widget-protocol.md; js/widget/src/actions.js mirrors the kinds and fields
(a test keeps them equal).

`parse_action(content)` returns an `Action` or raises `ActionError` with a message a user can read. Unknown kinds,
unknown fields, missing fields and wrong types are all rejected; nothing runs for a bad action. The widget runs a
parsed action with `ACTIONS[kind].handler(widget, payload)`.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..engine.notices import Notice
from .controller import (
    ChatController,
    CommandAware,
    ConversationControls,
    MentionAware,
    Recoverable,
    conversation_controls,
)

MAX_TEXT = 1_000_000
"""Longest user text, instruction, reason or edited arguments accepted (characters)."""
MAX_ID = 256


class ActionError(ValueError):
    """A browser message that does not match the action table (a Notice: said in the view's language).
    `request_id` is kept to answer it."""

    def __init__(self, message: Notice, request_id: str | None = None) -> None:
        super().__init__(message)
        self.request_id = request_id


@dataclass(frozen=True)
class Field:
    types: tuple[type, ...]
    required: bool = True
    nullable: bool = False
    max_len: int | None = None
    non_empty: bool = False
    json_object: bool = False
    choices: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Action:
    kind: str
    payload: dict[str, Any] = field(default_factory=dict)
    request_id: str | None = None


class ActionTarget(Protocol):
    """What a handler acts on: the widget, its controller, and the widget's own answers to the browser."""

    @property
    def controller(self) -> ChatController: ...

    async def on_ready(self, payload: dict[str, Any]) -> None: ...

    async def on_persisted(self, payload: dict[str, Any]) -> None: ...

    async def on_complete_mentions(self, payload: dict[str, Any]) -> None: ...
    async def on_export(self, payload: dict[str, Any]) -> None: ...

    async def on_view_resync(self, payload: dict[str, Any]) -> None: ...

    async def on_view_older(self, payload: dict[str, Any]) -> None: ...


Handler = Callable[[ActionTarget, dict[str, Any]], Awaitable[Any]]


@dataclass(frozen=True)
class ActionKind:
    fields: dict[str, Field]
    handler: Handler


def _recoverable(target: ActionTarget) -> Recoverable:
    controller = target.controller
    if not isinstance(controller, Recoverable):
        raise ActionError(Notice("action.no_recovery"))
    return controller


async def _send(target: ActionTarget, text: str, *, temp_mentions: bool) -> Any:
    controller = target.controller
    if temp_mentions and isinstance(controller, MentionAware):
        return await controller.send(text, temp_mentions=True)
    return await controller.send(text)


async def _command(target: ActionTarget, name: str, argument: str | None) -> str | None:
    controller = target.controller
    if not isinstance(controller, CommandAware):
        raise ActionError(Notice("action.no_commands"))
    return await controller.run_command(name, argument or "")


async def _remove(target: ActionTarget, message_id: str) -> Any:
    return _recoverable(target).remove_message(message_id)


_ID = Field((str,), max_len=MAX_ID, non_empty=True)
_OPT_TEXT = Field((str,), required=False, nullable=True, max_len=MAX_TEXT)

ACTIONS: dict[str, ActionKind] = {
    "ready": ActionKind({
        "notebook": Field((bool,)),
        "cell_id": Field((str,), required=False, nullable=True, max_len=MAX_ID),
        # any JSON: stored metadata is untrusted; a non-object record is refused by the widget, visibly
        "record": Field((dict, list, str, int, float, bool), required=False, nullable=True),
        # the page's language (JupyterLab's setting sets <html lang>): notices follow it when Chat(locale=None)
        "locale": Field((str,), required=False, nullable=True, max_len=35),
        # false: this view only renders (another view of the chat in its notebook writes, or its notebook does not
        # own the chat): the kernel sends it the view and changes nothing else
        "writer": Field((bool,), required=False, nullable=True),
        # true: `record` is null and the record is the message's first binary buffer, gzip-compressed UTF-8 JSON
        # (a long record; the handler unpacks it: chat_widget.PackedRecord)
        "record_gzip": Field((bool,), required=False, nullable=True),
    }, lambda target, p: target.on_ready(p)),
    "send": ActionKind({"text": Field((str,), max_len=MAX_TEXT, non_empty=True),
                        "temp_mentions": Field((bool,), required=False, nullable=True)},
                       lambda target, p: _send(target, p["text"], temp_mentions=p["temp_mentions"] is True)),
    "stop": ActionKind({}, lambda target, p: target.controller.stop()),
    "approve": ActionKind({
        "tool_call_id": _ID,
        "arguments": Field((str,), required=False, nullable=True, max_len=MAX_TEXT, json_object=True),
    }, lambda target, p: target.controller.approve(p["tool_call_id"], p["arguments"], by="user")),
    "deny": ActionKind({"tool_call_id": _ID, "reason": _OPT_TEXT},
                       lambda target, p: target.controller.deny(p["tool_call_id"], p["reason"], by="user")),
    "continue": ActionKind({"instruction": _OPT_TEXT},
                           lambda target, p: target.controller.continue_turn(p["instruction"])),
    "skill": ActionKind({"name": _ID, "active": Field((bool,))},
                        lambda target, p: target.controller.set_skill(p["name"], p["active"])),
    "retry": ActionKind({"shorter": Field((bool,), required=False, nullable=True)},
                        lambda target, p: _recoverable(target).retry(bool(p["shorter"]))),
    "remove_message": ActionKind({"message_id": _ID}, lambda target, p: _remove(target, p["message_id"])),
    "edit_and_resend": ActionKind({"message_id": _ID, "text": Field((str,), max_len=MAX_TEXT, non_empty=True)},
                                  lambda target, p: _recoverable(target).edit_and_resend(p["message_id"], p["text"])),
    "command": ActionKind({"name": Field((str,), max_len=40, non_empty=True), "argument": _OPT_TEXT},
                          lambda target, p: _command(target, p["name"], p["argument"])),
    "complete_mentions": ActionKind({"prefix": Field((str,), max_len=100)},
                                    lambda target, p: target.on_complete_mentions(p)),
    # many conversations per chat (the header; the /new and /clear commands)
    "new_conversation": ActionKind({"title": Field((str,), required=False, nullable=True, max_len=MAX_ID)},
                                   lambda target, p: _sync(lambda: _controls(target).new_conversation(p["title"]))),
    "switch_conversation": ActionKind({"conversation_id": _ID},
                                      lambda target, p: _controls(target).switch(p["conversation_id"])),
    "rename_conversation": ActionKind(
        {"conversation_id": _ID, "title": Field((str,), max_len=MAX_ID, non_empty=True)},
        lambda target, p: _sync(lambda: _controls(target).rename(p["conversation_id"], p["title"]))),
    "delete_conversation": ActionKind({"conversation_id": _ID},
                                      lambda target, p: _sync(lambda: _controls(target).delete(p["conversation_id"]))),
    "clear_conversation": ActionKind({}, lambda target, p: _sync(lambda: _controls(target).clear())),
    "export_conversation": ActionKind({
        "conversation_id": Field((str,), required=False, nullable=True, max_len=MAX_ID),
        "format": Field((str,), choices=("markdown", "cells")),
    }, lambda target, p: target.on_export(p)),
    "persisted": ActionKind({
        "key": Field((str,), max_len=MAX_ID),
        "ok": Field((bool,)),
        "error": Field((str,), required=False, nullable=True, max_len=10_000),
        "revision": Field((str,), required=False, nullable=True, max_len=MAX_ID),
        "stale": Field((bool,), required=False, nullable=True),
    }, lambda target, p: target.on_persisted(p)),
    "view_resync": ActionKind({}, lambda target, p: target.on_view_resync(p)),
    "view_older": ActionKind({"before": Field((str,), max_len=MAX_ID, non_empty=True)},
                             lambda target, p: target.on_view_older(p)),
}


def _controls(target: ActionTarget) -> ConversationControls:
    return conversation_controls(target.controller)


async def _sync(call: Callable[[], object]) -> None:
    """A synchronous controller method as a handler (it runs when the widget awaits it, inside its guard)."""
    call()


def parse_action(content: Any) -> Action:
    if not isinstance(content, dict):
        raise ActionError(Notice("action.not_object", type=type(content).__name__))
    request_id = _request_id(content)
    kind = content.get("kind")
    if not isinstance(kind, str) or kind not in ACTIONS:
        known = ", ".join(sorted(ACTIONS))
        raise ActionError(Notice("action.unknown_kind", kind=kind, known=known), request_id)
    schema = ACTIONS[kind].fields
    extra = sorted(set(content) - set(schema) - {"kind", "request_id"})
    if extra:
        raise ActionError(Notice("action.unexpected_fields", kind=kind, fields=", ".join(extra)), request_id)
    payload: dict[str, Any] = {}
    for name, spec in schema.items():
        payload[name] = _check_field(kind, name, spec, content, request_id)
    return Action(kind, payload, request_id)


def _request_id(content: dict[str, Any]) -> str | None:
    value = content.get("request_id")
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > MAX_ID:
        raise ActionError(Notice("action.bad_request_id"))
    return value


def _check_field(kind: str, name: str, spec: Field, content: dict[str, Any], request_id: str | None) -> Any:
    if name not in content:
        if spec.required:
            raise ActionError(Notice("action.missing_field", kind=kind, name=name), request_id)
        return None
    value = content[name]
    if value is None:
        if spec.nullable:
            return None
        raise ActionError(Notice("action.null_field", kind=kind, name=name), request_id)
    # bool is an int subclass; the table never mixes them, so an exact type check is the clear one.
    if type(value) not in spec.types:
        wanted = " or ".join(t.__name__ for t in spec.types)
        raise ActionError(Notice("action.wrong_type", kind=kind, name=name, wanted=wanted, got=type(value).__name__),
                          request_id)
    if isinstance(value, str):
        _check_text(kind, name, spec, value, request_id)
    return value


def _check_text(kind: str, name: str, spec: Field, value: str, request_id: str | None) -> None:
    if spec.max_len is not None and len(value) > spec.max_len:
        raise ActionError(Notice("action.too_long", kind=kind, name=name, limit=spec.max_len), request_id)
    if spec.choices is not None and value not in spec.choices:
        raise ActionError(Notice("action.not_a_choice", kind=kind, name=name, choices=", ".join(spec.choices)),
                          request_id)
    if spec.non_empty and not value.strip():
        raise ActionError(Notice("action.empty_field", kind=kind, name=name), request_id)
    if spec.json_object:
        try:
            parsed = json.loads(value)
        except ValueError as exc:
            raise ActionError(Notice("action.not_json", kind=kind, name=name, error=exc), request_id) from None
        if not isinstance(parsed, dict):
            raise ActionError(Notice("action.not_json_object", kind=kind, name=name), request_id)
