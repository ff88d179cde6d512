"""``%%chat`` and ``%chat``: send a cell's text to a chat and show the reply as Markdown in the cell's output.

``%load_ext notebook_chat`` loads them. ``%%chat`` sends the cell's body, ``%%chat helper`` sends it to the chat in
the variable ``helper``; ``%chat text`` (or ``%chat helper text``) sends one line. Without a name the message goes
to the chat displayed last (or the only ``Chat`` in the namespace). Mentions work as in the composer (``@df``).

Why the cells are rewritten: IPython calls a magic synchronously, and a synchronous wait for the turn would block
the widget (its buttons are handled on the loop the wait holds up). So a ``%%chat`` cell (or a ``%chat`` line at
the top level of a cell) is rewritten, before IPython reads it, into ``await ...send_from_magic(...)``: the cell
awaits the turn at top level, the kernel's loop keeps running, the widget keeps working, and Run All runs the next
cell only after the reply. Where the rewrite can't apply (an indented ``%chat``, ``run_cell_magic`` called by
code), the registered magics start the turn as a task on the running loop and return at once; the output is
filled in when the turn ends either way.

Tool calls that need approval are approved in the widget: the output says so, and shows the reply once the turn
ends there.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from ..engine.notices import Notice, say_error, text
from .chat import Chat
from .registry import latest_displayed

_CELL = re.compile(r"%%chat(?:[ \t]+([A-Za-z_]\w*))?[ \t]*$")
_LINE = re.compile(r"%chat(?:[ \t]+(.*?))?[ \t]*$")
_CALL = "await __import__('notebook_chat.widget.magics', fromlist=['send_from_magic']).send_from_magic"
ENDED = ("completed", "aborted", "error")


def load_ipython_extension(shell: Any) -> None:
    """``%load_ext notebook_chat``: register the magics and the rewrite that lets their cells await the turn."""
    if rewrite_chat_magics not in shell.input_transformers_cleanup:
        shell.input_transformers_cleanup.append(rewrite_chat_magics)
    shell.register_magic_function(_line_magic, "line", "chat")
    shell.register_magic_function(_cell_magic, "cell", "chat")


def unload_ipython_extension(shell: Any) -> None:
    if rewrite_chat_magics in shell.input_transformers_cleanup:
        shell.input_transformers_cleanup.remove(rewrite_chat_magics)


def rewrite_chat_magics(lines: list[str]) -> list[str]:
    """A ``%%chat`` cell, and top-level ``%chat`` lines, become an ``await`` of :func:`send_from_magic`."""
    if lines and (cell := _CELL.match(lines[0].rstrip("\r\n"))):
        return [f"{_CALL}({cell.group(1) or ''!r}, {''.join(lines[1:])!r}, line=False)\n"]
    rewritten = []
    for line in lines:
        magic = _LINE.match(line.rstrip("\r\n"))
        rewritten.append(f"{_CALL}('', {magic.group(1) or ''!r}, line=True)\n" if magic else line)
    return rewritten


async def send_from_magic(name: str, text: str, *, line: bool) -> None:
    """Send ``text`` to the named (or default) chat and show the outcome in this cell's output."""
    chat, text = _target(name, text, line=line)
    output = ReplyOutput(chat)
    await output.send(text)


def _cell_magic(name: str, text: str) -> None:
    _start(*_target(name.strip(), text, line=False))


def _line_magic(text: str) -> None:
    _start(*_target("", text, line=True))


def _start(chat: Chat, text: str) -> None:
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        raise RuntimeError(Notice("magic.no_loop")) from None
    output = ReplyOutput(chat)
    task = loop.create_task(output.send(text, raise_errors=False))
    output.task = task


def _target(name: str, text: str, *, line: bool) -> tuple[Chat, str]:
    namespace = _user_namespace()
    if line and not name:
        first, _, rest = text.strip().partition(" ")
        if isinstance(namespace.get(first), Chat) and rest.strip():
            name, text = first, rest
    return find_chat(name, namespace), text


def find_chat(name: str, namespace: dict[str, Any]) -> Chat:
    """The chat in variable ``name``; without a name the chat displayed last, or the only one in ``namespace``."""
    if name:
        chat = namespace.get(name)
        if not isinstance(chat, Chat):
            raise ValueError(Notice("magic.not_defined", name=name) if name not in namespace
                             else Notice("magic.not_a_chat", name=name, type=type(chat).__name__))
        return chat
    latest = latest_displayed()
    if isinstance(latest, Chat):
        return latest
    chats = {id(value): value for value in list(namespace.values()) if isinstance(value, Chat)}
    if len(chats) == 1:
        return next(iter(chats.values()))
    raise ValueError(Notice("magic.no_chat"))


def _user_namespace() -> dict[str, Any]:
    from IPython import get_ipython

    shell = get_ipython()
    return shell.user_ns if shell is not None else {}


class ReplyOutput:
    """The cell's output for one magic: a placeholder, then the reply (or what the turn waits for)."""

    def __init__(self, chat: Chat) -> None:
        from IPython.display import Markdown, display

        self.chat = chat
        self.task: asyncio.Task[None] | None = None
        self._markdown = Markdown
        self._handle = display(Markdown(self._say("magic.sending")), display_id=True)  # type: ignore[no-untyped-call]
        self._unsubscribe: Any = None

    async def send(self, text: str, *, raise_errors: bool = True) -> None:
        try:
            await self.chat.send(text)
        except Exception as error:
            self._show(self._say("magic.not_sent", error=say_error(error, self.chat.notice_locale)))
            if raise_errors:
                raise
            return
        if self.chat.state.is_paused:
            self._show(self._waiting_text())
            self._unsubscribe = self.chat.subscribe(self._on_event)
        else:
            self._show(self._outcome())

    def _on_event(self, _event: Any) -> None:
        if self.chat.state.request_state in ENDED and self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
            asyncio.get_running_loop().call_soon(lambda: self._show(self._outcome()))

    def _waiting_text(self) -> str:
        names = ", ".join(f"`{call['name']}`" for call in self.chat.pending_approvals)
        return self._say("magic.waiting", names=names)

    def _outcome(self) -> str:
        state = self.chat.state
        reply = _turn_reply(self.chat)
        if state.request_state == "error":
            return self._say("magic.failed", error=state.error)
        if state.request_state == "aborted":
            return (reply + "\n\n" if reply else "") + self._say("magic.stopped")
        return reply or self._say("magic.no_reply")

    def _say(self, key: str, **slots: object) -> str:
        """A sentence of the table in the chat's language (Chat(locale=...), else the page's)."""
        return text(key, self.chat.notice_locale, **slots)

    def _show(self, markdown: str) -> None:
        if self._handle is not None:
            self._handle.update(self._markdown(markdown))  # type: ignore[no-untyped-call]


def _turn_reply(chat: Chat) -> str:
    for message in reversed(chat.engine.current_turn):
        if message.get("role") == "assistant" and message.get("content"):
            return str(message["content"])
    return ""
