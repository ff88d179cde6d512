"""Paused-turn snapshots: capture one from a paused message, and decide whether one may be restored onto a list of
messages. Pure: runs nothing."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from notebook_chat.engine.conversation import (
    AWAITING,
    PAUSED_TURN_VERSION,
    PausedTurn,
    awaiting_call_ids,
    call_states,
    message_turn_id,
)
from notebook_chat.engine.history import validate
from notebook_chat.persistence.jsonsafe import dumps_canonical, to_json_value

FINISHED_STATUSES = ("success", "failed", "denied", "cancelled")
"""What a call of a paused message other than an awaiting one may be: nothing runs while a turn is paused."""


def call_hash(name: str, arguments: str) -> str:
    """sha256 hex of the canonical JSON of `[name, arguments]`; arguments is the call's raw JSON string."""
    return hashlib.sha256(dumps_canonical([name, arguments]).encode("utf-8")).hexdigest()

@dataclass(frozen=True)
class RestoreCheck:
    """`ok` with the index of the paused assistant message, or not `ok` with a sentence saying why."""

    ok: bool
    reason: str | None = None
    assistant_index: int | None = None


def call_name_and_arguments(message: Mapping[str, Any], call_id: str) -> tuple[str, str] | None:
    """The tool name and the arguments that would run: `arguments_edited` from the state when set, else the
    call's own arguments. None when the message has no well-formed tool call with that id."""
    for call in message.get("tool_calls") or []:
        if not isinstance(call, Mapping) or call.get("id") != call_id:
            continue
        function = call.get("function")
        if not isinstance(function, Mapping):
            return None
        name, arguments = function.get("name"), function.get("arguments")
        entry = call_states(message).get(call_id)
        edited = entry.get("arguments_edited") if isinstance(entry, Mapping) else None
        if isinstance(edited, str):
            arguments = edited
        if isinstance(name, str) and isinstance(arguments, str):
            return name, arguments
        return None
    return None


def capture_snapshot(
    message: Mapping[str, Any],
    *,
    custom_context: Mapping[str, Any],
    tool_round_count: int,
    paused_at: str | None = None,
) -> PausedTurn:
    """The snapshot of a paused assistant message: turn id, awaiting calls (in tool-call order), hashes.
    `custom_context` is copied (strict JSON), so later changes to the live context do not leak in."""
    ids = awaiting_call_ids([message])
    hashes = {}
    for call_id in ids:
        found = call_name_and_arguments(message, call_id)
        hashes[call_id] = call_hash(*found) if found is not None else ""
    snapshot: PausedTurn = {
        "version": PAUSED_TURN_VERSION,
        "turn_id": message_turn_id(message),
        "tool_call_ids": ids,
        "custom_context": to_json_value(dict(custom_context), "$.custom_context"),
        "tool_round_count": tool_round_count,
        "call_hashes": hashes,
    }
    if paused_at is not None:
        snapshot["paused_at"] = paused_at
    return snapshot


def check_restorable(snapshot: PausedTurn, messages: Sequence[Any],
                     turns: Sequence[Mapping[str, Any]] = ()) -> RestoreCheck:
    """OK only when the last assistant message of the snapshot's turn awaits exactly the snapshot's calls,
    each with unchanged name and arguments, and nothing after it but results of that message's other calls; every
    other call of that message finished (a state per call, none running), and the whole history keeps the history
    rules (every call answered once, no orphan or misplaced result, no id used twice) but for the awaiting calls; a
    non-empty turn log ends with the paused turn, still open."""
    turn = snapshot["turn_id"]
    indices = [
        i
        for i, message in enumerate(messages)
        if isinstance(message, Mapping) and message.get("role") == "assistant" and message_turn_id(message) == turn
    ]
    if not indices:
        return RestoreCheck(False, f"no assistant message of turn {turn!r}")
    index = indices[-1]
    message = messages[index]
    reason = (
        _compare_awaiting(snapshot, message)
        or _check_following(snapshot, message, messages[index + 1 :], index)
        or _check_call_states(message)
        or _check_history(snapshot, messages)
        or _check_turn_log(turn, turns)
    )
    if reason:
        return RestoreCheck(False, reason, index)
    return RestoreCheck(True, None, index)


def _compare_awaiting(snapshot: PausedTurn, message: Mapping[str, Any]) -> str | None:
    expected, found = set(snapshot["tool_call_ids"]), set(awaiting_call_ids([message]))
    if expected != found:
        missing = ", ".join(sorted(expected - found)) or "none"
        extra = ", ".join(sorted(found - expected)) or "none"
        return (
            f"the awaiting calls differ: the paused turn awaited {sorted(expected)} but the message awaits "
            f"{sorted(found)} (no longer awaiting: {missing}; newly awaiting: {extra})"
        )
    for call_id in snapshot["tool_call_ids"]:
        call = call_name_and_arguments(message, call_id)
        if call is None:
            return (
                f"call {call_id!r} awaits approval but the message has no well-formed tool call with that id"
            )
        if call_hash(*call) != snapshot["call_hashes"][call_id]:
            return f"the arguments of call {call_id!r} changed since the turn paused"
    return None


def _check_following(
    snapshot: PausedTurn, message: Mapping[str, Any], following: Sequence[Any], index: int
) -> str | None:
    own_ids = {call.get("id") for call in message.get("tool_calls") or [] if isinstance(call, Mapping)}
    for offset, later in enumerate(following, start=index + 1):
        role = later.get("role") if isinstance(later, Mapping) else None
        if role != "tool":
            kind = role or "malformed"
            return f"the conversation went on after the turn paused (message {offset} is a {kind} message)"
        call_id = later.get("tool_call_id")
        if call_id in snapshot["tool_call_ids"]:
            return f"call {call_id!r} already has a tool result"
        if call_id not in own_ids:
            return f"message {offset} answers call {call_id!r}, which is not a call of the paused message"
    return None


def _check_call_states(message: Mapping[str, Any]) -> str | None:
    ids = [str(call.get("id")) for call in message.get("tool_calls") or [] if isinstance(call, Mapping)]
    states = call_states(message)
    if set(states) != set(ids):
        missing = ", ".join(sorted(str(i) for i in set(ids) - set(states))) or "none"
        extra = ", ".join(sorted(str(i) for i in set(states) - set(ids))) or "none"
        return (f"the paused message's call states don't match its calls (calls without a state: {missing}; states "
                f"without a call: {extra})")
    for call_id in ids:
        entry = states[call_id]
        status = entry.get("status") if isinstance(entry, Mapping) else None
        if status != AWAITING and status not in FINISHED_STATUSES:
            return f"call {call_id!r} of the paused message is {status!r}, but nothing runs while a turn is paused"
    return None


def _check_history(snapshot: PausedTurn, messages: Sequence[Any]) -> str | None:
    violations = validate(messages, pending=snapshot["tool_call_ids"])
    if violations:
        first = violations[0]
        return f"the history breaks a rule at message {first.index} ({first.rule}: {first.message})"
    return None


def _check_turn_log(turn: str, turns: Sequence[Mapping[str, Any]]) -> str | None:
    if not turns:
        return None
    last = turns[-1]
    if last.get("id") != turn:
        where = "is not in the turn log" if all(t.get("id") != turn for t in turns) else "is not the last turn"
        return f"the paused turn {turn!r} {where}"
    if last.get("ended_at") is not None or last.get("end_reason") is not None:
        return f"the turn log says the paused turn {turn!r} ended ({last.get('end_reason')})"
    return None
