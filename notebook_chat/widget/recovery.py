"""Recover a conversation a failed turn left stuck: retry (optionally with a shorter history), remove the rejected
message, or edit it and send it again.

A turn that ended in ``error`` (a server error, a network error, "the request is too long for the model") leaves
its user message unanswered. Rule 7 already merges it with the next user message in the request, so a plain next
message works — unless the message itself is the problem (too long for the context). These three actions fix it:

- :func:`retry` sends the same request again as a new turn: the failed exchange (the last user message and the
  partial reply after it) is taken back and its user message sent again. ``shorter=True`` first halves the context
  budget (:meth:`~notebook_chat.engine.budget.ContextBudget.shorten`), so older whole turns are left out. When the
  failed turn already ran tools, nothing is taken back (a tool never runs twice): the partial reply after the last
  tool result is dropped and the turn is continued (``turn.continue``).
- :func:`remove_message` removes a user message and everything that answered it (up to the next visible user
  message): the conversation goes on as if it had never been sent.
- :func:`edit_and_resend` replaces the last user message (and what followed it) with new text, sent as a new turn.
"""

from __future__ import annotations

from typing import Any

from ..engine import Message, MessageEngine
from ..engine.notices import Notice
from ..plugins import TURN_CONTINUE

RETRYABLE = ("error", "interrupted")


def _refuse_while_busy(engine: MessageEngine, action: Notice) -> None:
    if engine.state.is_processing:
        raise ValueError(Notice("recovery.busy_running", action=action))
    if engine.state.is_paused:
        raise ValueError(Notice("recovery.busy_paused", action=action))


def _hidden(message: Message) -> bool:
    return bool((message.get("metadata") or {}).get("hidden"))


def last_user_index(messages: list[Message], *, visible: bool = False) -> int | None:
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].get("role") == "user" and not (visible and _hidden(messages[index])):
            return index
    return None


def retry_offer(engine: MessageEngine) -> dict[str, Any] | None:
    """``{"message_id", "reason"}`` when the latest turn failed and can be retried (else None)."""
    if not engine.state.can_start_turn or not engine.turns:
        return None
    reason = engine.turns[-1].get("end_reason")
    if reason not in RETRYABLE:
        return None
    index = last_user_index(engine.messages, visible=True)
    message_id = engine.messages[index].get("id") if index is not None else None
    return {"message_id": message_id, "reason": reason, "detail": engine.turns[-1].get("detail")}


def _clear_error(engine: MessageEngine) -> None:
    if engine.state.request_state == "error":
        engine.state.request_state = "idle"
        engine.state.error = None


async def retry(engine: MessageEngine, *, shorter: bool = False) -> dict[str, Any]:
    """Send the failed turn's request again (see the module docstring); returns what was done."""
    _refuse_while_busy(engine, Notice("recovery.retrying"))
    if retry_offer(engine) is None:
        raise ValueError(Notice("recovery.nothing_to_retry"))
    messages = engine.messages
    index = last_user_index(messages)
    if index is None:
        raise ValueError(Notice("recovery.no_user_message"))
    if shorter:
        engine.budget.shorten()
    tail = messages[index + 1:]
    if any(m.get("role") == "tool" for m in tail):  # a tool ran (or may have): never take it back
        while messages and messages[-1].get("role") == "assistant" and not messages[-1].get("tool_calls"):
            messages.pop()
        engine.notify()
        await engine.dispatch_command(TURN_CONTINUE, {"instruction": None})
        return {"status": "continued", "shorter": shorter}
    user = messages[index]
    del messages[index:]
    again: Any = {key: value for key, value in user.items() if key not in ("state", "loading")}
    engine.notify()
    await engine.send(again)
    return {"status": "retried", "shorter": shorter}


def _span(messages: list[Message], index: int) -> int:
    """The end of the exchange starting at user message ``index``: up to the next visible user message."""
    end = index + 1
    while end < len(messages) and not (messages[end].get("role") == "user" and not _hidden(messages[end])):
        end += 1
    return end


def _find_user(messages: list[Message], message_id: str) -> int:
    for index, message in enumerate(messages):
        if message.get("id") == message_id:
            if message.get("role") != "user" or _hidden(message):
                raise ValueError(Notice("recovery.not_yours", id=message_id))
            return index
    raise ValueError(Notice("recovery.no_such_message", id=message_id))


def remove_message(engine: MessageEngine, message_id: str) -> dict[str, Any]:
    """Remove a user message and what answered it; returns ``{"status": "removed", "count": n}``."""
    _refuse_while_busy(engine, Notice("recovery.removing"))
    messages = engine.messages
    index = _find_user(messages, message_id)
    end = _span(messages, index)
    count = end - index
    del messages[index:end]
    _clear_error(engine)
    engine.notify()
    return {"status": "removed", "count": count}


async def edit_and_resend(engine: MessageEngine, message_id: str, text: str) -> dict[str, Any]:
    """Replace the last user message (and what followed it) with ``text``, sent as a new turn."""
    if not text.strip():
        raise ValueError(Notice("chat.empty_message"))
    _refuse_while_busy(engine, Notice("recovery.editing"))
    messages = engine.messages
    index = _find_user(messages, message_id)
    if index != last_user_index(messages, visible=True):
        raise ValueError(Notice("recovery.not_last"))
    del messages[index:]
    _clear_error(engine)
    engine.notify()
    await engine.send_message(text)
    return {"status": "resent"}
