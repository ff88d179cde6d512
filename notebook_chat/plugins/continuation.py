"""Continue an interrupted turn: one hidden message telling the model why it stopped and how to go on.

Continue is offered only when the latest turn ended ``aborted | error | max-tokens | interrupted`` and no turn runs;
it sits on that turn's last assistant message (or nowhere, when the turn produced none: the command still works).
A new user message starts a new turn, which clears the offer. Nothing continues by itself.
"""

from __future__ import annotations

from typing import Any

from ..engine import Message, MessageEngine, Plugin, PluginContext, PluginError
from ..engine.messages import user_message
from ..engine.notices import Notice

TURN_CONTINUE = "turn.continue"
CONTINUABLE = ("aborted", "error", "max-tokens", "interrupted")

FIRST_SENTENCE = {
    "aborted": "Your previous reply was stopped by the user before it was finished.",
    "error": "Your previous reply was interrupted because the request to the model failed.",
    "max-tokens": "Your previous reply was cut off because it reached the output-token limit.",
    "interrupted": "Your previous turn was interrupted before it finished (for example, the kernel died or the "
                   "notebook was closed).",
}
ABORTED_BY = {
    "disposed": "Your previous reply was cut off before it was finished: the chat was closed or its cell was "
                "interrupted.",
    "hook": "Your previous reply was stopped by a notebook_chat plugin before it was finished.",
}
RULES = (
    "Continue from exactly where it stopped; do not repeat what is already visible in the conversation. "
    "If a tool call was interrupted, its outcome is unknown: verify the outcome of an interrupted tool call before "
    "retrying anything with side effects."
)


def continuation_text(reason: str, detail: str | None = None, instruction: str | None = None) -> str:
    first = ABORTED_BY.get(detail or "", FIRST_SENTENCE[reason]) if reason == "aborted" else FIRST_SENTENCE[reason]
    parts = [first]
    if reason == "error" and detail:
        parts.append(f"The error was: {detail}")
    parts.append(RULES)
    if instruction and instruction.strip():
        parts.append(f"The user adds: {instruction.strip()}")
    return "\n\n".join(parts)


def continue_offer(engine: MessageEngine) -> dict[str, Any] | None:
    """``{"reason", "detail", "turn_id", "message_id"}`` when Continue is offered, else None."""
    if not engine.state.can_start_turn or not engine.turns:
        return None
    turn = engine.turns[-1]
    if turn.get("end_reason") not in CONTINUABLE:
        return None
    return {"reason": turn["end_reason"], "detail": turn.get("detail"), "turn_id": turn.get("id"),
            "message_id": _last_assistant_id(engine.messages, turn.get("id"))}


def _last_assistant_id(messages: list[Message], turn_id: Any) -> str | None:
    for message in reversed(messages):
        if message.get("role") == "assistant" and (message.get("state") or {}).get("turn_id") == turn_id:
            return str(message["id"]) if "id" in message else None
    return None


def _refusal(engine: MessageEngine) -> Notice:
    """Why Continue is refused, for the person who asked (a sentence of the table)."""
    if engine.state.is_processing:
        return Notice("continue.running")
    if engine.state.is_paused:
        return Notice("continue.paused")
    if not engine.turns:
        return Notice("continue.no_turn")
    reason = engine.turns[-1].get("end_reason")
    if reason == "completed":
        return Notice("continue.completed")
    return Notice("continue.ended", reason=reason)


class ContinuationPlugin(Plugin):
    name = "continuation"

    def __init__(self) -> None:
        self._engine: MessageEngine | None = None

    def commands(self) -> dict[str, Any]:
        return {TURN_CONTINUE: self._continue}

    def on_init(self, ctx: PluginContext) -> None:
        self._engine = ctx.engine

    async def _continue(self, payload: dict[str, Any]) -> dict[str, Any]:
        engine = self._engine
        if engine is None:
            raise PluginError("ContinuationPlugin is not attached to an engine")
        offer = continue_offer(engine)
        if offer is None:
            return {"status": "refused", "reason": _refusal(engine)}
        instruction = payload.get("instruction")
        text = continuation_text(offer["reason"], offer["detail"],
                                 instruction if isinstance(instruction, str) else None)
        message = user_message(text, hidden=True, continuation=offer["reason"], continues_turn=offer["turn_id"])
        await engine.send(message)
        return {"status": "continued", "reason": offer["reason"], "message_id": message["id"]}
