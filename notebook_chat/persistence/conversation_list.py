"""The conversations of one chat as the kernel holds them: the active one lives in the engine, the others are kept
here as their stored records (untrusted until opened: validated by `read_record` when switched to) with a cached
summary each, so a list of 20 long conversations costs 20 small dicts per snapshot, not 20 conversations."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from ..engine import MessageEngine
from ..engine.conversation import MAX_TITLE_CHARS
from ..engine.notices import Notice
from .chat_entry import DEFAULT_CONVERSATION_ID, ChatEntry

ConversationState = Literal["idle", "running", "paused", "interrupted"]
TITLE_CHARS = 60
"""A default title is the start of the first user message, cut to this many characters."""


def default_title(messages: Any) -> str | None:
    """The start of the first user message the user wrote (one line), or None when there is none yet."""
    for message in messages if isinstance(messages, list) else ():
        if not isinstance(message, Mapping) or message.get("role") != "user":
            continue
        metadata = message.get("metadata")
        content = message.get("content")
        if (isinstance(metadata, Mapping) and metadata.get("hidden")) or not isinstance(content, str):
            continue
        text = " ".join(content.split())
        if text:
            return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1].rstrip() + "…"
    return None


def check_title(title: Any) -> str:
    """A title the user gave: text of 1..200 characters once trimmed (`ValueError` otherwise)."""
    if not isinstance(title, str) or not title.strip():
        raise ValueError(Notice("conversations.title_empty"))
    text = " ".join(title.split())
    if len(text) > MAX_TITLE_CHARS:
        raise ValueError(Notice("conversations.title_too_long", limit=MAX_TITLE_CHARS, n=len(text)))
    return text


def _time(value: Any) -> str | None:
    return value[:64] if isinstance(value, str) and value else None


def _last_activity(turns: Any, fallback: Any) -> str | None:
    """When the conversation last changed: its latest turn's end (or start), else `fallback`."""
    if isinstance(turns, list) and turns and isinstance(turns[-1], Mapping):
        last = turns[-1]
        return _time(last.get("ended_at")) or _time(last.get("started_at")) or _time(fallback)
    return _time(fallback)


def record_summary(conversation_id: str, record: Mapping[str, Any]) -> dict[str, Any]:
    """The list entry of a stored (unvalidated) record: every field read defensively, nothing raises."""
    title = record.get("title")
    turns = record.get("turns")
    last = turns[-1] if isinstance(turns, list) and turns and isinstance(turns[-1], Mapping) else {}
    state: ConversationState = "idle"
    if isinstance(record.get("paused_turn"), Mapping):
        state = "paused"
    elif last and last.get("end_reason") in (None, "interrupted"):
        state = "interrupted"
    first = turns[0] if isinstance(turns, list) and turns and isinstance(turns[0], Mapping) else {}
    created = _time(record.get("created_at")) or _time(first.get("started_at")) or _time(record.get("updated_at"))
    return {"id": conversation_id,
            "title": title[:MAX_TITLE_CHARS] if isinstance(title, str) and title else default_title(
                record.get("messages")),
            "updated_at": _last_activity(turns, record.get("created_at") or record.get("updated_at")),
            "created_at": created, "state": state}


def engine_summary(conversation_id: str, engine: MessageEngine) -> dict[str, Any]:
    """The list entry of the conversation in the engine (the active one)."""
    state: ConversationState = "idle"
    if engine.state.is_processing:
        state = "running"
    elif engine.state.is_paused:
        state = "paused"
    elif engine.turns and engine.turns[-1].get("end_reason") in (None, "interrupted"):
        state = "interrupted"
    return {"id": conversation_id, "title": engine.title or default_title(engine.messages),
            "updated_at": _last_activity(engine.turns, engine.created_at), "created_at": engine.created_at,
            "state": state}


class ConversationList:
    def __init__(self, active: str = DEFAULT_CONVERSATION_ID) -> None:
        self.active = active
        """A chat's first conversation is ``"main"`` (as a version-1 record read as an entry); later ones get fresh
        ids."""
        self._inactive: dict[str, dict[str, Any]] = {}
        self._summaries: dict[str, dict[str, Any]] = {}
        self.changed = False
        """True once the user created, switched, renamed or deleted a conversation in this kernel."""

    @classmethod
    def from_entry(cls, entry: ChatEntry) -> ConversationList:
        """The list of a stored entry; the active record is not kept here (the caller loads it into the engine)."""
        made = cls(entry["active"])
        for conversation_id, record in entry["items"].items():
            if conversation_id != entry["active"]:
                made.park(conversation_id, record)
        return made

    def __contains__(self, conversation_id: object) -> bool:
        return conversation_id == self.active or conversation_id in self._inactive

    def __len__(self) -> int:
        return 1 + len(self._inactive)

    def record(self, conversation_id: str) -> dict[str, Any]:
        """The stored record of an inactive conversation (`KeyError` for an unknown id or the active one)."""
        return self._inactive[conversation_id]

    def inactive_ids(self) -> list[str]:
        return list(self._inactive)

    def park(self, conversation_id: str, record: dict[str, Any]) -> None:
        """Keep a conversation that is not in the engine (the one left by a switch, or one read from a store)."""
        self._inactive[conversation_id] = record
        self._summaries[conversation_id] = record_summary(conversation_id, record)

    def open(self, conversation_id: str) -> dict[str, Any]:
        """Make an inactive conversation the active one; returns its record (the caller loads it)."""
        record = self._inactive.pop(conversation_id)
        self._summaries.pop(conversation_id, None)
        self.active = conversation_id
        return record

    def forget(self, conversation_id: str) -> None:
        self._inactive.pop(conversation_id, None)
        self._summaries.pop(conversation_id, None)

    def newest_other(self) -> str | None:
        """The most recently active conversation other than the active one (None when it is the only one)."""
        if not self._inactive:
            return None
        newest = max(self._summaries.values(), key=lambda s: (s["updated_at"] or "", s["created_at"] or ""))
        return str(newest["id"])

    def summaries(self, engine: MessageEngine) -> list[dict[str, Any]]:
        """Every conversation's list entry, oldest first."""
        entries = [engine_summary(self.active, engine), *self._summaries.values()]
        return sorted(entries, key=lambda s: s["created_at"] or "")
