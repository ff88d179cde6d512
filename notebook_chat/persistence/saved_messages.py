"""The messages an autosave stores, kept up to date at a cost that does not grow with the conversation.

``request.for_saving`` and ``blobs.pack`` walk every message at every save (stored form, history rules, display
data): at a turn boundary of a long conversation that is most of the kernel's time. `SavedMessages` gives the same
result from what changed: the messages before the latest turn settle once — their stored, packed form, the call ids
they use and a copy of them as they were are kept — and each later save checks and packs only the messages after
them. Nothing is trusted: one comparison of the live prefix with its copy (done by the interpreter's own deep
equality, not message by message in Python) sees any change made to an older message however it was made (an edit,
a removal, a plugin or a notebook cell writing into it), and then everything is done again from the start. A
history that needs repair (temp units, broken pairing) always takes the whole path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..engine.conversation import Message, awaiting_call_ids, stored_form
from ..engine.history import validate
from ..engine.request import for_saving, is_empty_reply, odd_result
from .blobs import pack_messages
from .patches import copy_sharing_leaves


class SavedMessages:
    """``pack_messages(for_saving(messages))`` for successive states of one engine's message list."""

    def __init__(self) -> None:
        self._forget(None)
        self.settled_saves = 0
        """Saves that reused a settled prefix (tests and benchmarks read it)."""

    @property
    def settled(self) -> int:
        """How many of the live messages have settled."""
        return self._count

    def packed(self, messages: list[Message]) -> tuple[list[Any], dict[str, str]]:
        """The stored messages (display data packed) and their blobs, as ``pack`` of ``for_saving`` gives them."""
        count = self._count
        if count and (messages is not self._live or len(messages) <= count or messages[:count] != self._copies):
            count = 0
        if not count:
            self._forget(messages)
        tail = messages[count:]
        kept = [stored_form(message) for message in tail]
        pending = awaiting_call_ids(kept)
        clean = [message for message in kept if not is_empty_reply(message)]
        if any(message.get("temp") or odd_result(message) for message in clean) or validate(
                clean, pending=pending, after=len(self._packed), used_ids=self._call_ids):
            self._forget(messages)
            return pack_messages(for_saving(messages))  # the repair path: nothing settles
        if count:
            self.settled_saves += 1
        packed_tail, blobs = pack_messages(clean, dict(self._blobs))
        result = self._packed + packed_tail
        self._settle(tail, kept, packed_tail)
        return result, blobs

    def _forget(self, messages: list[Message] | None) -> None:
        self._live = messages
        """The list the settled prefix belongs to (another list, e.g. a loaded conversation, starts over)."""
        self._count = 0
        self._copies: list[Any] = []
        """A copy of the settled live messages as they were when they settled."""
        self._packed: list[Any] = []
        """Their stored, packed form (empty replies left out)."""
        self._blobs: dict[str, str] = {}
        """The display texts they refer to, by hash."""
        self._call_ids: set[str] = set()
        """The tool-call ids they use (a later call may not reuse one)."""

    def _settle(self, tail: Sequence[Message], kept: list[Message], packed_tail: list[Any]) -> None:
        """Settle the tail's messages before the latest turn (which starts at its last user message): they end with
        a whole block, passed the rules and await no decision."""
        end = len(tail) - 1
        while end > 0 and tail[end].get("role") != "user":
            end -= 1
        if end <= 0 or awaiting_call_ids(kept[:end]):
            return
        try:
            copies = copy_sharing_leaves(list(tail[:end]))
        except Exception:  # a value that can't be copied is the store's to refuse; nothing settles
            return
        settling = [message for message in kept[:end] if not is_empty_reply(message)]
        self._packed += packed_tail[:len(settling)]
        self._blobs = pack_messages(settling, self._blobs)[1]
        for message in settling:
            for call in message.get("tool_calls") or ():
                self._call_ids.add(call["id"])
        self._copies += copies
        self._count += end
