"""Decide whether a paused-turn snapshot may be restored onto a list of messages. Pure: runs nothing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from notebook_chat.persistence.errors import SnapshotError
from notebook_chat.persistence.snapshot import PausedTurnSnapshot, call_hash

AWAITING = "awaiting-approval"


@dataclass(frozen=True)
class RestoreCheck:
    """`ok` with the index of the paused assistant message, or not `ok` with a sentence saying why."""

    ok: bool
    reason: str | None = None
    assistant_index: int | None = None


def awaiting_call_ids(message: Mapping[str, Any]) -> list[str]:
    """Ids whose `state["tool_calls"][id]["status"]` is awaiting-approval (tolerant of malformed state)."""
    state = message.get("state")
    calls = state.get("tool_calls") if isinstance(state, Mapping) else None
    if not isinstance(calls, Mapping):
        return []
    return [
        call_id
        for call_id, call in calls.items()
        if isinstance(call, Mapping) and call.get("status") == AWAITING
    ]


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
        edited = _call_state(message, call_id).get("arguments_edited")
        if isinstance(edited, str):
            arguments = edited
        if isinstance(name, str) and isinstance(arguments, str):
            return name, arguments
        return None
    return None


def _call_state(message: Mapping[str, Any], call_id: str) -> Mapping[str, Any]:
    state = message.get("state")
    calls = state.get("tool_calls") if isinstance(state, Mapping) else None
    call = calls.get(call_id) if isinstance(calls, Mapping) else None
    return call if isinstance(call, Mapping) else {}


def _turn_id(message: Any) -> Any:
    state = message.get("state") if isinstance(message, Mapping) else None
    return state.get("turn_id") if isinstance(state, Mapping) else None


def capture_snapshot(
    message: Mapping[str, Any],
    *,
    custom_context: Mapping[str, Any],
    tool_round_count: int,
    paused_at: str | None = None,
) -> PausedTurnSnapshot:
    """The snapshot of a paused assistant message: turn id, awaiting calls (in tool-call order), hashes."""
    awaiting = set(awaiting_call_ids(message))
    ordered = [call.get("id") for call in message.get("tool_calls") or [] if isinstance(call, Mapping)]
    ids = [call_id for call_id in ordered if call_id in awaiting]
    if set(ids) != awaiting:
        raise SnapshotError(
            f"calls {sorted(awaiting - set(ids))} await approval but are not tool calls of the message"
        )
    hashes = {}
    for call_id in ids:
        found = call_name_and_arguments(message, call_id)
        if found is None:
            raise SnapshotError(f"call {call_id!r} has no tool name and arguments string")
        hashes[call_id] = call_hash(*found)
    return PausedTurnSnapshot(
        turn_id=_turn_id(message),
        tool_call_ids=tuple(ids),
        custom_context=custom_context,
        tool_round_count=tool_round_count,
        call_hashes=hashes,
        paused_at=paused_at,
    )


def check_restorable(snapshot: PausedTurnSnapshot, messages: Sequence[Any]) -> RestoreCheck:
    """OK only when the last assistant message of the snapshot's turn awaits exactly the snapshot's calls,
    each with unchanged name and arguments, and nothing after it but results of that message's other calls."""
    turn = snapshot.turn_id
    indices = [
        i
        for i, message in enumerate(messages)
        if isinstance(message, Mapping) and message.get("role") == "assistant" and _turn_id(message) == turn
    ]
    if not indices:
        return RestoreCheck(False, f"no assistant message of turn {turn!r}")
    index = indices[-1]
    message = messages[index]
    reason = _compare_awaiting(snapshot, message) or _check_following(
        snapshot, message, messages[index + 1 :], index
    )
    if reason:
        return RestoreCheck(False, reason, index)
    return RestoreCheck(True, None, index)


def _compare_awaiting(snapshot: PausedTurnSnapshot, message: Mapping[str, Any]) -> str | None:
    expected, found = set(snapshot.tool_call_ids), set(awaiting_call_ids(message))
    if expected != found:
        missing = ", ".join(sorted(expected - found)) or "none"
        extra = ", ".join(sorted(found - expected)) or "none"
        return (
            f"the awaiting calls differ: the paused turn awaited {sorted(expected)} but the message awaits "
            f"{sorted(found)} (no longer awaiting: {missing}; newly awaiting: {extra})"
        )
    for call_id in snapshot.tool_call_ids:
        call = call_name_and_arguments(message, call_id)
        if call is None:
            return (
                f"call {call_id!r} awaits approval but the message has no well-formed tool call with that id"
            )
        if call_hash(*call) != snapshot.call_hashes[call_id]:
            return f"the arguments of call {call_id!r} changed since the turn paused"
    return None


def _check_following(
    snapshot: PausedTurnSnapshot, message: Mapping[str, Any], following: Sequence[Any], index: int
) -> str | None:
    own_ids = {call.get("id") for call in message.get("tool_calls") or [] if isinstance(call, Mapping)}
    for offset, later in enumerate(following, start=index + 1):
        role = later.get("role") if isinstance(later, Mapping) else None
        if role != "tool":
            kind = role or "malformed"
            return f"the conversation went on after the turn paused (message {offset} is a {kind} message)"
        call_id = later.get("tool_call_id")
        if call_id in snapshot.tool_call_ids:
            return f"call {call_id!r} already has a tool result"
        if call_id not in own_ids:
            return f"message {offset} answers call {call_id!r}, which is not a call of the paused message"
    return None
