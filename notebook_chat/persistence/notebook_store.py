"""Conversations kept in the metadata of the notebook that shows the chat, written through the front end.

The kernel never edits the .ipynb file itself (JupyterLab's next save would say "File Changed" and overwrite
it). Each save goes to `send(write)` as a versioned patch (`persistence.patches`): the widget turns it into a
`{"kind": "persist"}` message, the browser applies the ops to `metadata["notebook_chat"]["conversations"][key]`
(marking the notebook dirty; the user's Ctrl+S or JupyterLab's autosave puts it on disk) and answers `persisted`.

The entry under a chat's key is the chat's container (`chat_entry`: `{"active": id, "items": {id: record}}`,
plus the `revision` the browser stamps). Paths of ops reach into it: streaming into a conversation is an
`append` at `["items", id, "messages", i, "content"]`, a new conversation one `set` of `["items", id]`, a switch
a `set` of `["active"]`, a deletion a `delete` of `["items", id]`. The other conversations are never re-sent.

Writes cost what changed. The store keeps an image of the front end's copy of each chat's entry and its revision
(one per chat key): a save sends the ops from that image to the new record (none when only `updated_at` moved),
based on the image's revision; the browser refuses a patch whose base is not the revision it holds. The whole
entry goes (`base` None) only while the front end's copy is unknown: first write, after a refused or failed
write, after a reload that handed over another revision, and for a version-1 record (one conversation stored
flat under the key: the first write migrates it). A save checks what changed exactly as a load checks it
(`check_message` per changed message, `check_rest` when anything besides the messages changed, the summed size),
so whatever saved loads again.

What the notebook stored reaches the kernel with the browser's "ready" action and is read by the `Chat` facade
(which also decides that the kernel's live conversation beats it, and `adopt`s what it loaded: nothing is written
back); this store only writes.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from notebook_chat.engine.conversation import Message, parse_utc, stored_form
from notebook_chat.engine.errors import RecordError
from notebook_chat.engine.notices import Notice
from notebook_chat.persistence.chat_entry import (
    DEFAULT_CONVERSATION_ID,
    MAX_CONVERSATIONS,
    ChatEntry,
    check_conversation_id,
    is_entry,
    parse_entry,
    without,
)
from notebook_chat.persistence.container import check_key
from notebook_chat.persistence.patches import Op, Path, apply_ops, copy_json, diff
from notebook_chat.persistence.record import (
    _scan,
    check_message,
    check_rest,
    check_turn,
    check_turn_log,
    record_size,
)
from notebook_chat.persistence.stores import check_for_saving

REVISION = "revision"
"""The entry's field that names the revision the front end's copy is at (written by the browser with each patch)."""
MAX_REVISION_CHARS = 100
NO_REVISION = ""
"""The base of a patch to a copy that carries no revision field."""
MAX_STAMP_CHARS = 64

Send = Callable[[dict[str, Any]], None]
"""`send({"key", "revision", "base", "ops"})` delivers one write to the front end (see docs/widget-protocol.md)."""


@dataclass
class _Image:
    """What the front end holds under a chat key (as far as this kernel knows), and the revision it is at."""

    entry: ChatEntry
    revision: str | None
    """None: the front end's copy is unknown, the next write sends the whole entry."""
    sizes: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Per conversation: the JSON size of everything but the messages, and of the messages (measured when
    first needed for a conversation this kernel did not check)."""

    def sizes_of(self, conversation_id: str) -> tuple[int, int]:
        known = self.sizes.get(conversation_id)
        if known is None:
            record = self.entry["items"][conversation_id]
            known = _scan({**record, "messages": []}), sum(_scan(m) for m in record.get("messages") or ())
            self.sizes[conversation_id] = known
        return known


class NotebookMetadataStore:
    """A store whose durable copy lives in notebook metadata; this object keeps an image of that copy."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self._images: dict[str, _Image] = {}
        self._session = secrets.token_hex(4)
        self._count = 0
        self.last_write: dict[str, Any] | None = None
        """The last write sent (tests and benchmarks read it)."""

    # -- the store protocol ------------------------------------------------------------------------------------
    def load(self, key: str, conversation_id: str | None = None) -> dict[str, Any] | None:
        """A copy of the record this kernel last saved (or adopted) under `key` and that conversation (None: the
        active one), or None."""
        image = self._images.get(key)
        if image is None:
            return None
        record = image.entry["items"].get(conversation_id or image.entry["active"])
        return None if record is None else copy_json(record)

    def load_entry(self, key: str) -> ChatEntry | None:
        image = self._images.get(key)
        return None if image is None else copy_json(image.entry)

    def save(self, key: str, record: Mapping[str, Any], conversation_id: str | None = None, *,
             active: bool = False) -> None:
        """Store one conversation (None: the active one; a chat's first conversation, or `active=True`, becomes
        the active one). Checks what changed exactly as a load would, then sends it; nothing is sent or kept when
        it fails."""
        check_key(key)
        image = self._images.get(key)
        if conversation_id is None:
            conversation_id = image.entry["active"] if image is not None else DEFAULT_CONVERSATION_ID
        check_conversation_id(conversation_id)
        if not isinstance(record, dict):
            raise TypeError(f"a store saves JSON objects, got {type(record).__name__}")
        record = {k: v for k, v in record.items() if k != REVISION}
        items = image.entry["items"] if image is not None else {}
        if conversation_id not in items and len(items) >= MAX_CONVERSATIONS:
            raise ValueError(Notice("conversations.too_many", limit=MAX_CONVERSATIONS))
        if image is None or image.revision is None or conversation_id not in items:
            check_for_saving(key, record)
            sizes = _whole_sizes(record)
            ops: list[Op] = [{"op": "set", "path": ["items", conversation_id], "value": copy_json(record)}]
        else:
            old = items[conversation_id]
            stamp = record.get("updated_at")
            relative = diff(old, {**record, "updated_at": old.get("updated_at")})
            if not relative:
                sizes = image.sizes_of(conversation_id)
            else:
                sizes = _check_changes(old, image.sizes_of(conversation_id), record, relative)
            if relative and stamp != old.get("updated_at"):
                relative.append({"op": "set", "path": ["updated_at"], "value": stamp})
            ops = _under(["items", conversation_id], relative)
        if image is None or (active and image.entry["active"] != conversation_id):
            ops.append({"op": "set", "path": ["active"], "value": conversation_id})
        if not ops:
            return  # only the time stamp moved: nothing to write, the notebook stays clean
        self._change(key, image, ops)
        self._images[key].sizes[conversation_id] = sizes

    def save_messages(self, key: str, messages: Iterable[Message], updated_at: str,
                      conversation_id: str | None = None) -> bool:
        """The streaming save: only `messages` (text replies the front end already holds) of that conversation
        changed since the last write. False when that can't be expressed here (then the caller saves the whole
        record)."""
        image = self._images.get(key)
        if image is None or image.revision is None:
            return False
        conversation_id = conversation_id or image.entry["active"]
        record = image.entry["items"].get(conversation_id)
        if record is None:
            return False
        stored = record["messages"]
        ops: list[Op] = []
        changed: list[tuple[int, Any, Any]] = []
        for message in messages:
            if message.get("tool_calls") or message.get("temp") or message.get("role") != "assistant":
                return False
            index = _find(stored, message.get("id"))
            if index is None:
                return False
            new = stored_form(message)
            before = len(ops)
            ops += diff(stored[index], new, ["items", conversation_id, "messages", index])
            if len(ops) > before:
                changed.append((index, stored[index], new))
        if not ops:
            return True
        rest_size, message_size = image.sizes_of(conversation_id)
        for index, old, new in changed:
            message_size += check_message(new, index) - _scan(old)
        record_size(rest_size, message_size, len(stored))
        ops.append({"op": "set", "path": ["items", conversation_id, "updated_at"],
                    "value": _checked_stamp(updated_at)})
        self._change(key, image, ops)
        image.sizes[conversation_id] = rest_size, message_size
        return True

    def activate(self, key: str, conversation_id: str) -> None:
        """Make a stored conversation the active one: one small patch (`KeyError` for an unknown one)."""
        image = self._images.get(check_key(key))
        if image is None or conversation_id not in image.entry["items"]:
            raise KeyError(f"no conversation {conversation_id!r:.80} in chat {key!r:.80}")
        if image.entry["active"] != conversation_id:
            self._change(key, image, [{"op": "set", "path": ["active"], "value": conversation_id}])

    def delete(self, key: str, conversation_id: str | None = None) -> None:
        """Forget `key` (or one of its conversations) here and ask the notebook to drop it."""
        check_key(key)
        image = self._images.get(key)
        if conversation_id is not None:
            if image is None or conversation_id not in image.entry["items"]:
                return
            rest = without(image.entry, conversation_id)
            if rest is not None:
                ops: list[Op] = [{"op": "delete", "path": ["items", conversation_id]}]
                if rest["active"] != image.entry["active"]:
                    ops.append({"op": "set", "path": ["active"], "value": rest["active"]})
                self._change(key, image, ops)
                image.sizes.pop(conversation_id, None)
                return
        self._images.pop(key, None)
        self._emit({"key": key, "revision": self._revision(), "base": None, "ops": [{"op": "delete", "path": []}]})

    def keys(self) -> list[str]:
        return sorted(self._images)

    # -- the front end's copy ------------------------------------------------------------------------------------
    def adopt(self, key: str, stored: Mapping[str, Any], revision: Any, size: int | None = None) -> None:
        """The front end holds `stored` (the chat's entry, or a version-1 record; its active conversation already
        checked by `read_entry`) at `revision`: later saves send only what differs from it (`size`: the active
        record's JSON size, when the check measured it). A copy without a revision (written before revisions
        existed) is patched from ``""``; a version-1 record, or a revision that is not a short string, means the
        copy can't be patched (the next write sends the whole entry, which migrates a version-1 record)."""
        check_key(key)
        entry = parse_entry(stored, "the stored chat")
        image = _Image({"active": entry["active"], "items": copy_json(entry["items"])}, None)
        if revision is None:
            revision = NO_REVISION
        if is_entry(stored) and isinstance(revision, str) and len(revision) <= MAX_REVISION_CHARS:
            image.revision = revision
        if size is not None:
            record = image.entry["items"][entry["active"]]
            rest_size = _scan({**record, "messages": []})
            image.sizes[entry["active"]] = rest_size, max(0, size - rest_size)
        self._images[key] = image

    def revision(self, key: str) -> str | None:
        """The revision the front end's copy of `key` is at, as far as this kernel knows (None: unknown)."""
        image = self._images.get(key)
        return None if image is None else image.revision

    def forget_front_end_copy(self, key: str) -> None:
        """The front end's copy is not what this kernel thinks (a write was refused or failed, the page reloaded):
        the next save sends the whole entry."""
        image = self._images.get(key)
        if image is not None:
            image.revision = None

    # -- writing -------------------------------------------------------------------------------------------------
    def _change(self, key: str, image: _Image | None, ops: list[Op]) -> None:
        """Send `ops` (paths into the entry) based on the image's revision, or, while the front end's copy is
        unknown, the whole entry they make."""
        if image is None or image.revision is None:
            base = {"active": image.entry["active"], "items": image.entry["items"]} if image is not None else {
                "items": {}}
            entry = apply_ops(copy_json(base), ops)
            whole: list[Op] = [{"op": "set", "path": [], "value": entry}]
            image = _Image(copy_json(entry), None, image.sizes if image is not None else {})
            self._write(key, image, whole, mirror=False)
        else:
            self._write(key, image, ops)

    def _write(self, key: str, image: _Image, ops: list[Op], *, mirror: bool = True) -> None:
        revision = self._revision()
        self._emit({"key": key, "revision": revision, "base": image.revision, "ops": ops})
        if mirror:
            image.entry = apply_ops(image.entry, ops)
        image.revision = revision
        self._images[key] = image

    def _revision(self) -> str:
        self._count += 1
        return f"{self._session}-{self._count}"

    def _emit(self, write: dict[str, Any]) -> None:
        self.last_write = write
        self._send(write)


def _under(prefix: Path, ops: list[Op]) -> list[Op]:
    """`ops` on a conversation record made ops on the entry (paths under `prefix`)."""
    for op in ops:
        op["path"] = [*prefix, *op["path"]]
    return ops


def _whole_sizes(record: Mapping[str, Any]) -> tuple[int, int]:
    return _scan({**record, "messages": []}), sum(_scan(message) for message in record.get("messages") or ())


def _check_changes(old_record: Mapping[str, Any], old_sizes: tuple[int, int], record: Mapping[str, Any],
                   ops: list[Op]) -> tuple[int, int]:
    """Check the messages, turn entries and fields the ops (paths into the record) touch, as ``check_record`` would;
    the record's new sizes."""
    messages = record.get("messages")
    if not isinstance(messages, list) or any(op["path"] == ["messages"] and op["op"] == "set" for op in ops):
        return _check_whole(record)
    rest_changed = False
    for op in ops:
        path = op["path"]
        if path[0] == "turns":
            if len(path) == 1 and op["op"] != "splice":
                rest_changed = True  # the log replaced whole
        elif path[0] != "messages":
            rest_changed = True
    rest_size = check_rest(record) if rest_changed else old_sizes[0]
    message_size = old_sizes[1] + _list_change(old_record["messages"], messages, "messages", ops, check_message)
    if not rest_changed:
        turns, old_turns = record.get("turns"), old_record.get("turns")
        if not isinstance(turns, list) or not isinstance(old_turns, list):
            return _check_whole(record)
        if any(op["path"][0] == "turns" for op in ops):
            rest_size += _list_change(old_turns, turns, "turns", ops, check_turn)
            rest_size += max(len(turns), 1) - max(len(old_turns), 1)  # the commas between entries
            check_turn_log(turns)
    record_size(rest_size, message_size, len(messages))
    if not rest_changed:
        _checked_stamp(record.get("updated_at"))
    return rest_size, message_size


def _check_whole(record: Mapping[str, Any]) -> tuple[int, int]:
    messages = record.get("messages")
    rest_size = check_rest(record)  # raises for a record without a messages list
    sizes = sum(check_message(message, index) for index, message in enumerate(messages or ()))
    record_size(rest_size, sizes, len(messages or ()))
    return rest_size, sizes


def _list_change(old: list[Any], new: list[Any], field: str, ops: list[Op],
                 check: Callable[[Any, int], int]) -> int:
    """How much the JSON size of the items of the list `field` grew under the ops, checking each item they
    touch (`check`: the item's checks, returns its size)."""
    touched: set[int] = set()
    removed: list[Any] = []
    for op in ops:
        path = op["path"]
        if path[0] != field:
            continue
        if len(path) == 1:  # the one splice of the list
            removed = old[op["start"]:op["start"] + op["delete"]]
            touched.update(range(op["start"], op["start"] + len(op["insert"])))
        else:
            touched.add(path[1])
    change = -sum(_scan(item) for item in removed)
    shift = len(new) - len(old)
    for index in touched:
        change += check(new[index], index)
        before = _old_index(index, ops, shift, field)
        if before is not None:
            change -= _scan(old[before])
    return change


def _find(messages: list[Any], message_id: Any) -> int | None:
    """The index of the message with `message_id`, searched from the end (a streaming reply is near it)."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].get("id") == message_id:
            return index
    return None


def _old_index(index: int, ops: list[Op], shift: int, field: str = "messages") -> int | None:
    """Where the item of the list `field` now at `index` sat before the ops: before a splice the same place,
    inside it nowhere, after it `shift` places earlier."""
    for op in ops:
        if op["op"] == "splice" and op["path"] == [field]:
            start, inserted = op["start"], len(op["insert"])
            if index < start:
                return index
            if index < start + inserted:
                return None
            return index - shift
    return index


def _checked_stamp(stamp: Any) -> Any:
    """``updated_at`` checked as a load checks it (when nothing else outside the messages changed)."""
    try:
        if isinstance(stamp, str) and 0 < len(stamp) <= MAX_STAMP_CHARS:
            parse_utc(stamp)
            return stamp
    except ValueError:
        pass
    raise RecordError(f"$.updated_at: expected an ISO-8601 UTC timestamp such as 2024-05-01T12:00:00Z, "
                      f"got {stamp!r:.80}")
