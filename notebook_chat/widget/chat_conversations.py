"""Many conversations in one `Chat`: new, switch, rename, delete, clear, export.

One engine holds the active conversation; switching exports it (its paused turn included) and loads the other one
into the same engine (`MessageEngine.load`: plugins hear `on_load`, ToolPlugin restores a paused turn there — the same
path as a restore after Restart Kernel). Inactive conversations are kept as their stored records and sent to the
browser only as list entries (title, last activity, state), never as messages, until opened.

While a reply is being written, anything that would take the engine away from it (new, switch, clear, deleting the
active conversation) is refused with a sentence saying so: stop the turn or wait for it. A turn that waits for an
approval is not running: switching away keeps it paused, stored with its snapshot, and its approval waits there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..engine.conversation import ConversationRecord, Message, utc_now
from ..engine.notices import Notice
from ..persistence import PersistenceError, read_record
from ..persistence.blobs import pack
from ..persistence.chat_entry import new_conversation_id
from ..persistence.conversation_list import ConversationList, check_title
from .export import conversation_cells, conversation_markdown

if TYPE_CHECKING:
    from ..engine import MessageEngine
    from ..persistence import ConversationAutosave, ConversationStore



class ConversationsMixin:
    """The conversation API of `Chat` (see the module docstring). Needs the attributes declared below."""

    engine: MessageEngine
    key: str
    store: ConversationStore | None
    _autosave: ConversationAutosave | None
    _conversations: ConversationList
    _record_refused: bool
    _system: str | None

    @property
    def notice_locale(self) -> str | None: ...

    def _follow(self, store: ConversationStore, *, write_now: bool) -> None: ...

    async def _await_front_end(self) -> None: ...

    # -- reading -----------------------------------------------------------------------------------------------
    @property
    def conversation_id(self) -> str:
        """The id of the active conversation (the one ``send``, ``messages``, ``approve``… act on)."""
        return self._conversations.active

    @property
    def conversations(self) -> list[dict[str, Any]]:
        """Every conversation of this chat, oldest first: ``{"id", "title", "updated_at", "state"}``.

        ``title`` is the name given with ``rename`` (or ``new_conversation(title=)``), else the start of the first
        user message, else None; ``updated_at`` is the time of its latest turn (or its creation); ``state`` is
        ``idle | running | paused`` (waits for an approval) ``| interrupted`` (its last turn never ended)."""
        return [{name: entry[name] for name in ("id", "title", "updated_at", "state")}
                for entry in self._conversations.summaries(self.engine)]

    def conversations_view(self) -> dict[str, Any]:
        return {"active": self._conversations.active, "items": self._conversations.summaries(self.engine)}

    # -- changing ------------------------------------------------------------------------------------------------
    def new_conversation(self, title: str | None = None) -> str:
        """Start an empty conversation and make it the active one; the others stay in ``chat.conversations``."""
        self._refuse_while_running(Notice("conversations.to_new"))
        name = check_title(title) if title is not None else None
        self._leave()
        self._conversations.active = new_conversation_id()
        self._load(self._empty_record(name))
        self._write(lambda store: store.save(self.key, pack(self.engine.export_record()), self.conversation_id,
                                             active=True))
        return self.conversation_id

    async def switch(self, conversation_id: str) -> None:
        """Make another conversation the active one. A paused one comes back paused (its approvals wait there)."""
        await self._await_front_end()
        self._open(conversation_id)

    def rename(self, conversation_id: str, title: str) -> None:
        name = check_title(title)
        if conversation_id == self.conversation_id:
            self.engine.title = name
            self._write(lambda store: store.save(self.key, pack(self.engine.export_record()), conversation_id))
            self.engine.notify()
        else:
            record = {**self._inactive(conversation_id), "title": name}
            loaded = read_record(record)
            if loaded.record is None:
                raise ValueError(Notice("conversations.unreadable", id=conversation_id[:80], reason=loaded.refused))
            self._write(lambda store: store.save(self.key, record, conversation_id))
            self._conversations.park(conversation_id, record)
            self.engine.notify()
        self._conversations.changed = True

    def delete(self, conversation_id: str) -> None:
        """Delete a conversation for good (the widget asks first). Deleting the active one opens the most recent
        other one, or an empty conversation when it was the only one."""
        if conversation_id not in self._conversations:
            raise ValueError(Notice("conversations.unknown", id=conversation_id[:80]))
        if conversation_id == self.conversation_id:
            self._refuse_while_running(Notice("conversations.to_delete"))
            other = self._conversations.newest_other()
            if other is not None:
                self._open(other, leave=False)
            else:
                self._conversations.active = new_conversation_id()
                self._load(self._empty_record(None))
                self._write(lambda store: store.save(self.key, pack(self.engine.export_record()), self.conversation_id,
                                                     active=True))
        else:
            self._conversations.forget(conversation_id)
            self.engine.notify()
        self._conversations.changed = True
        self._write(lambda store: store.delete(self.key, conversation_id))

    def clear(self) -> None:
        """Empty the active conversation (same id; its messages, turn log and any paused turn are gone)."""
        self._refuse_while_running(Notice("conversations.to_clear"))
        self._load(self._empty_record(None))
        self._conversations.changed = True
        self._write(lambda store: store.save(self.key, pack(self.engine.export_record()), self.conversation_id))

    # -- export ----------------------------------------------------------------------------------------------------
    def export_markdown(self, conversation_id: str | None = None) -> str:
        """A conversation (default: the active one) as Markdown: a heading per message, tool calls with their
        arguments and results."""
        title, messages = self._for_export(conversation_id)
        return conversation_markdown(messages, title, self.notice_locale)

    def export_cells(self, conversation_id: str | None = None) -> list[dict[str, str]]:
        """A conversation as notebook cells: ``{"cell_type": "markdown" | "code", "source"}`` (Python code blocks
        become code cells, the rest markdown cells)."""
        title, messages = self._for_export(conversation_id)
        return conversation_cells(messages, title, self.notice_locale)

    def _for_export(self, conversation_id: str | None) -> tuple[str | None, list[Message]]:
        if conversation_id is None or conversation_id == self.conversation_id:
            summary = self._conversations.summaries(self.engine)
            title = next(s["title"] for s in summary if s["id"] == self.conversation_id)
            return title, self.engine.messages
        loaded = read_record(self._inactive(conversation_id))
        if loaded.record is None:
            raise ValueError(Notice("conversations.unreadable", id=conversation_id[:80], reason=loaded.refused))
        entry = next(s for s in self._conversations.summaries(self.engine) if s["id"] == conversation_id)
        return entry["title"], loaded.record["messages"]

    # -- the moves -------------------------------------------------------------------------------------------------
    def _open(self, conversation_id: str, *, leave: bool = True) -> None:
        if conversation_id == self.conversation_id:
            return
        record = self._inactive(conversation_id)
        self._refuse_while_running(Notice("conversations.to_switch"))
        loaded = read_record(record)
        if loaded.record is None:
            raise ValueError(Notice("conversations.unreadable", id=conversation_id[:80], reason=loaded.refused))
        if leave:
            self._leave()
        self._conversations.open(conversation_id)
        self._load(loaded.record)
        if loaded.notice:
            self.engine.set_notice(loaded.notice)
        self._conversations.changed = True
        self._write(lambda store: store.activate(self.key, conversation_id))

    def _leave(self) -> None:
        """Keep the active conversation as it is now (stored, and parked in the list) before the engine takes
        another one."""
        record = pack(self.engine.export_record())
        if self._autosave is not None:
            self._autosave.close()
            self._autosave = None
        current = self.conversation_id
        self._write(lambda store: store.save(self.key, record, current))
        self._conversations.park(current, dict(record))
        self._conversations.changed = True

    def _load(self, record: ConversationRecord | dict[str, Any]) -> None:
        """Load into the one engine without writing it back (autosave follows the new conversation from here)."""
        if self._autosave is not None:
            self._autosave.close()
            self._autosave = None
        self.engine.load(record)
        if self.store is not None and not self._record_refused:
            self._follow(self.store, write_now=False)

    def _empty_record(self, title: str | None) -> dict[str, Any]:
        now = utc_now()
        system: list[Message] = [{"role": "system", "content": self._system}] if self._system else []
        record: dict[str, Any] = {"version": 1, "messages": system, "turns": [], "paused_turn": None,
                                  "updated_at": now, "created_at": now}
        if title is not None:
            record["title"] = title
        return record

    def _inactive(self, conversation_id: str) -> dict[str, Any]:
        try:
            return self._conversations.record(conversation_id)
        except KeyError:
            raise ValueError(Notice("conversations.unknown", id=conversation_id[:80])) from None

    def _refuse_while_running(self, what: Notice) -> None:
        """Refuse `what` (what the user tried) while a reply is being written."""
        if self.engine.state.is_processing:
            raise ValueError(Notice("conversations.running", what=what))

    def _write(self, change: Any) -> None:
        """Apply one change to the store; a failure is shown (nothing is lost in the kernel)."""
        if self.store is None or self._record_refused:
            return
        try:
            change(self.store)
        except (PersistenceError, ValueError, TypeError, OSError, KeyError) as error:
            self.engine.set_notice(Notice("notice.save_failed", error=error))
