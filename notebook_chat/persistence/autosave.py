"""Keeps a conversation record in a store while the engine works.

Saved at once when the turn's shape changes (a turn starts — so the user message is never lost —, a message is added,
the turn pauses, resumes or ends) and at most every ``min_interval`` seconds while a reply streams (the partial reply
is kept). An approval leaves the paused state before its tool runs, so the record never shows an approved call as
still awaiting: restoring it can't run the tool a second time.

A boundary save costs what changed too: the stored form of the messages before the latest turn is kept
(`saved_messages`), only the latest turn's messages are checked and packed again.

A streaming save costs what changed: when only replies grew since the last save (no state change), a store that
can take just those messages (`SavesMessages`, the notebook store) gets them instead of the whole record.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from ..engine import EngineEvent, Message, MessageEngine
from ..engine.conversation import utc_now
from ..engine.request import is_empty_reply
from .blobs import BLOBS, has_blobs
from .errors import PersistenceError
from .saved_messages import SavedMessages
from .stores import ConversationStore


@runtime_checkable
class SavesMessages(Protocol):
    """A store that can save only the given messages (all else unchanged since its last save); False: it can't."""

    def save_messages(self, key: str, messages: list[Message], updated_at: str,
                      conversation_id: str | None = None) -> bool: ...


class ConversationAutosave:
    def __init__(self, engine: MessageEngine, store: ConversationStore, key: str, *, min_interval: float = 1.0,
                 on_error: Callable[[Exception], Any] | None = None, conversation_id: str | None = None) -> None:
        self.engine = engine
        self.store = store
        self.key = key
        self.conversation_id = conversation_id
        """Which of the chat's conversations the engine holds (None: the store's active one)."""
        self.min_interval = min_interval
        self.on_error = on_error
        self.saves = 0
        self.last_error: Exception | None = None
        self.boundaries_only = False
        """While the store's writes fail, save only when the turn's shape changes (no throttled streaming writes):
        each later attempt is one the user was told about, and the first that succeeds ends the mode."""
        self._signature: tuple[Any, ...] | None = self._shape()
        self._grown: dict[str, None] = {}
        """Ids of the messages that grew (message events) since the last save."""
        self._changed = True
        """A state event since the last save: anything may have changed."""
        self._last_save = 0.0
        self._saved = SavedMessages()
        self._timer: asyncio.TimerHandle | None = None
        self._unsubscribe = engine.subscribe(self._on_event)

    def close(self) -> None:
        self._unsubscribe()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def save_now(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._last_save = time.monotonic()
        grown, changed = self._grown, self._changed
        self._grown, self._changed = {}, False
        try:
            if changed or not grown or not self._save_grown(list(grown)):
                self.store.save(self.key, self._record(), self.conversation_id)
        except (PersistenceError, ValueError, TypeError, OSError) as error:
            self._changed = True
            self.last_error = error
            if self.on_error is not None:
                self.on_error(error)
            return
        self.last_error = None
        self.saves += 1

    def _record(self) -> dict[str, Any]:
        """The stored form of the engine's record (``pack(engine.export_record())``), its messages kept up to date
        from what changed (`SavedMessages`)."""
        messages, blobs = self._saved.packed(self.engine.messages)
        record: dict[str, Any] = dict(self.engine.export_record(saved_messages=messages))
        if blobs:
            record[BLOBS] = blobs
        return record

    def _save_grown(self, ids: list[str]) -> bool:
        store = self.store
        if not isinstance(store, SavesMessages):
            return False
        messages = self.engine.messages  # writes the streamed text into the reply
        found: list[Message] = []
        for index in range(len(messages) - 1, -1, -1):
            if messages[index].get("id") in ids:
                found.append(messages[index])
                if len(found) == len(ids):
                    break
        if len(found) != len(ids):
            return False
        if any(has_blobs(message) for message in found):
            return False  # display data is stored once by hash, in the record: save it whole
        saved = [message for message in found if not is_empty_reply(message)]  # a reply that has not started
        return not saved or store.save_messages(self.key, saved, utc_now(), self.conversation_id)

    def _shape(self) -> tuple[Any, ...]:
        state = self.engine.state
        return state.request_state, state.turn_id, len(state.messages)

    def _on_event(self, event: EngineEvent) -> None:
        if event.kind == "message" and event.message_id is not None:
            self._grown[event.message_id] = None
        else:
            self._changed = True
        if event.kind == "state":
            shape = self._shape()
            if shape != self._signature:
                self._signature = shape
                self.save_now()
                return
        if self._timer is None and not self.boundaries_only:
            self._schedule()

    def _schedule(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.save_now()
            return
        delay = max(0.0, self.min_interval - (time.monotonic() - self._last_save))
        self._timer = loop.call_later(delay, self._fire)

    def _fire(self) -> None:
        self._timer = None
        self.save_now()
