"""A loaded conversation with no paused turn: nothing runs, so nothing may stay open. Every unanswered call gets its
"outcome unknown" result, results without their call are dropped (``history.repair``), and every call still marked
running or awaiting approval is marked cancelled. What changed is said in one sentence (the engine's notice)."""

from __future__ import annotations

from collections.abc import Sequence

from . import history
from .conversation import AWAITING, Message, ToolCallState
from .notices import Notice

OPEN_STATUSES = ("running", AWAITING)


def settle_restored(messages: Sequence[Message]) -> tuple[list[Message], Notice | None]:
    """The settled history and a sentence saying what was repaired (None when it needed nothing)."""
    if _settled_already(messages):
        return list(messages), None  # the usual case: one pass over the history, no copies
    results_before = sum(1 for message in messages if message.get("role") == "tool")
    repaired = history.repair(messages)
    synthetic = {str(m.get("tool_call_id")) for m in repaired if (m.get("metadata") or {}).get("synthetic")}
    dropped = results_before - (sum(1 for m in repaired if m.get("role") == "tool") - len(synthetic))
    closed = 0
    for message in repaired:
        calls = [call for call in message.get("tool_calls") or () if isinstance(call.get("id"), str)]
        if not calls:
            continue
        entries = message.setdefault("state", {}).setdefault("tool_calls", {})
        for call in calls:
            entry = entries.get(call["id"])
            still_open = entry is not None and entry.get("status") in OPEN_STATUSES
            if call["id"] in synthetic or still_open:
                closed += call["id"] not in synthetic
                settled: ToolCallState = {"status": "cancelled"}
                if entry is not None:
                    settled = {**entry, "status": "cancelled"}
                settled["reason"] = "interrupted"
                entries[call["id"]] = settled
    return repaired, _summary(len(synthetic), dropped, closed)


def _summary(answered: int, dropped: int, closed: int) -> Notice | None:
    parts = []
    if answered:
        parts.append(Notice("restore.answered", n=answered, result=history.OUTCOME_UNKNOWN))
    if dropped > 0:
        parts.append(Notice("restore.dropped", n=dropped))
    if closed:
        parts.append(Notice("restore.closed", n=closed, status="cancelled"))
    if not parts:
        return None
    listed = parts[0]
    for part in parts[1:]:
        listed = Notice("restore.list", first=listed, second=part)
    return Notice("restore.repaired", parts=listed)


def _settled_already(messages: Sequence[Message]) -> bool:
    """No call is open, no rule is broken (then ``history.repair`` would change nothing this module counts)."""
    for message in messages:
        states = message.get("state")
        entries = states.get("tool_calls") if isinstance(states, dict) else None
        if isinstance(entries, dict) and any(
                isinstance(entry, dict) and entry.get("status") in OPEN_STATUSES for entry in entries.values()):
            return False
    return not history.validate(messages)
