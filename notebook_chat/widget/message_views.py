"""The messages of the view and their usage total, kept up to date at a cost that does not grow with the conversation.

``conversation_view`` builds every message's view (its tool cards fold in their results) and sums every reply's
usage at each snapshot: in a long conversation that is most of a turn boundary's time. `MessageViews` gives the same
result from what changed: the messages before the latest turn settle once — their views, the usage they add up to,
the tool results and call ids they hold, and a copy of them as they were are kept — and each later call builds only
the views of the messages after them. Nothing is trusted: one comparison of the live prefix with its copy (the
interpreter's own deep equality, not message by message in Python) sees any change made to an older message however
it was made (an edit, a removal, a load, a plugin or a notebook cell writing into it), and then everything is built
again from the start; so does a later tool result that belongs to a settled call (its card would change).

A settled view is the same object from one call to the next and is never changed in place (a changed message gets
a new view): the view stream keeps it as the browsers' copy and skips it by identity when it diffs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..engine import Message
from ..engine.usage import usage_of
from ..persistence.patches import copy_sharing_leaves

View = dict[str, Any]
Usage = dict[str, int]


def visible(message: Message) -> bool:
    """A message the view shows (tool results fold into their call's card; hidden messages stay out)."""
    return message.get("role") in ("user", "assistant") and not (message.get("metadata") or {}).get("hidden")


def tool_results(messages: Sequence[Message]) -> dict[str, Message]:
    """Each tool call's result message, by call id (the latest one when an id repeats)."""
    return {str(m.get("tool_call_id")): m for m in messages if m.get("role") == "tool"}


def add_usage(total: Usage, messages: Sequence[Message]) -> Usage:
    """``total`` (changed in place) plus the usage ``messages`` reported, as ``total_usage`` sums it."""
    for message in messages:
        for key, value in (usage_of(message) or {}).items():
            total[key] = total.get(key, 0) + value
    return total


class MessageViews:
    """``conversation_view``'s ``messages`` and ``usage_total`` for successive states of one message list."""

    def __init__(self) -> None:
        self._forget(None)
        self.settled_calls = 0
        """Calls that reused a settled prefix (tests and benchmarks read it)."""

    @property
    def settled(self) -> int:
        """How many of the live messages have settled."""
        return self._count

    def views(self, messages: list[Message], build: Any) -> tuple[list[View], Usage | None]:
        """The views of the visible messages (``build(message, results)`` makes one) and the usage total."""
        count = self._count
        if count and (messages is not self._live or len(messages) < count or messages[:count] != self._copies
                      or self._late_result(messages, count)):
            count = 0
        if not count:
            self._forget(messages)
        else:
            self.settled_calls += 1
        tail = messages[count:]
        results = {**self._results, **tool_results(tail)} if count else tool_results(tail)
        usage = add_usage(dict(self._usage), tail)
        settling = self._settle(tail, build)  # the first `settling` of the tail now have settled views
        built = [build(message, results) for message in tail[settling:] if visible(message)]  # the rest's, once
        return self._views + built, usage or None

    def _late_result(self, messages: list[Message], count: int) -> bool:
        """A tool result after the settled prefix for a call in it (the call's settled card lacks it)."""
        calls = self._call_ids
        return bool(calls) and any(message.get("role") == "tool" and str(message.get("tool_call_id")) in calls
                                   for message in messages[count:])

    def _forget(self, messages: list[Message] | None) -> None:
        self._live = messages
        """The list the settled prefix belongs to (another list starts over)."""
        self._count = 0
        self._copies: list[Any] = []
        """A copy of the settled live messages as they were when they settled."""
        self._views: list[View] = []
        """The views of the visible settled messages, in order."""
        self._results: dict[str, Message] = {}
        """The tool results among the settled messages, by call id."""
        self._call_ids: set[str] = set()
        """The tool-call ids of the settled messages."""
        self._usage: Usage = {}
        """The usage the settled messages reported, summed."""

    def _settle(self, tail: list[Message], build: Any) -> int:
        """Settle the tail's messages before the latest turn (which starts at its last user message), unless a
        result after them belongs to one of their calls; returns how many settled. Their views are built from their
        copy, so no view shares anything that a later change to a live message could change in place."""
        end = len(tail) - 1
        while end > 0 and tail[end].get("role") != "user":
            end -= 1
        if end <= 0:
            return 0
        try:
            copies: list[Message] = copy_sharing_leaves(list(tail[:end]))
        except Exception:  # a value that can't be copied: nothing settles (each call builds every view)
            return 0
        calls = {str(call.get("id")) for message in copies for call in message.get("tool_calls") or ()
                 if isinstance(call, dict)}
        later = tool_results(tail[end:])
        if any(call_id in later for call_id in calls):
            return 0
        self._results.update(tool_results(copies))
        self._views += [build(message, self._results) for message in copies if visible(message)]
        self._copies += copies
        self._call_ids |= calls
        add_usage(self._usage, copies)
        self._count += end
        return end
