"""Conversations kept in the metadata of the notebook that shows the chat, written through the front end.

The kernel never edits the .ipynb file itself (JupyterLab's next save would say "File Changed" and overwrite
it). Each save goes to `send(write)` as a versioned patch (`persistence.patches`): the widget turns it into a
`{"kind": "persist"}` message, the browser applies the ops to `metadata["notebook_chat"]["conversations"][key]`
(marking the notebook dirty; the user's Ctrl+S or JupyterLab's autosave puts it on disk) and answers `persisted`.

Writes cost what changed. The store keeps an image of the front end's copy and its revision: a save sends the ops
from that image to the new record (none when only `updated_at` moved), based on the image's revision; the browser
refuses a patch whose base is not the revision it holds. The whole record goes (`base` None) only while the front
end's copy is unknown: first write, after a refused or failed write, after a reload that handed over another
revision. A save checks what changed exactly as a load checks it (`check_message` per changed message, `check_rest`
when anything besides the messages changed, the summed size), so whatever saved loads again.

What the notebook stored reaches the kernel with the browser's "ready" action and is read by the `Chat` facade
(which also decides that the kernel's live conversation beats it, and `adopt`s what it loaded: nothing is written
back); this store only writes.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from notebook_chat.engine.conversation import Message, parse_utc, stored_form
from notebook_chat.engine.errors import RecordError
from notebook_chat.persistence.container import check_key
from notebook_chat.persistence.patches import Op, apply_ops, copy_json, diff
from notebook_chat.persistence.record import _scan, check_message, check_rest, record_size
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
    """What the front end holds under a key (as far as this kernel knows), and the revision it is at."""

    record: dict[str, Any]
    revision: str | None
    """None: the front end's copy is unknown, the next write sends the whole record."""
    rest_size: int
    message_size: int


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
    def load(self, key: str) -> dict[str, Any] | None:
        """A copy of the record this kernel last saved (or adopted) under `key`, or None."""
        image = self._images.get(key)
        return None if image is None else copy_json(image.record)

    def save(self, key: str, record: Mapping[str, Any]) -> None:
        """Check what changed exactly as a load would, then send it; nothing is sent or kept when it fails."""
        image = self._images.get(key)
        if image is None or image.revision is None:
            self._save_whole(key, record)
            return
        check_key(key)
        if not isinstance(record, dict):
            raise TypeError(f"a store saves JSON objects, got {type(record).__name__}")
        stamp = record.get("updated_at")
        ops = diff(image.record, {**record, "updated_at": image.record.get("updated_at")})
        if not ops:
            return  # only the time stamp moved: nothing to write, the notebook stays clean
        rest_size, message_size = self._check_changes(image, record, ops)
        if stamp != image.record.get("updated_at"):
            ops.append({"op": "set", "path": ["updated_at"], "value": stamp})
        self._write(key, image, ops, rest_size, message_size)

    def save_messages(self, key: str, messages: Iterable[Message], updated_at: str) -> bool:
        """The streaming save: only `messages` (text replies the front end already holds) changed since the last
        write. False when that can't be expressed here (then the caller saves the whole record)."""
        image = self._images.get(key)
        if image is None or image.revision is None:
            return False
        stored = image.record["messages"]
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
            ops += diff(stored[index], new, ["messages", index])
            if len(ops) > before:
                changed.append((index, stored[index], new))
        if not ops:
            return True
        message_size = image.message_size
        for index, old, new in changed:
            message_size += check_message(new, index) - _scan(old)
        record_size(image.rest_size, message_size, len(stored))
        ops.append({"op": "set", "path": ["updated_at"], "value": _checked_stamp(updated_at)})
        self._write(key, image, ops, image.rest_size, message_size)
        return True

    def delete(self, key: str) -> None:
        """Forget `key` here and ask the notebook to drop it."""
        check_key(key)
        self._images.pop(key, None)
        self._count += 1
        self._emit({"key": key, "revision": self._revision(), "base": None, "ops": [{"op": "delete", "path": []}]})

    def keys(self) -> list[str]:
        return sorted(self._images)

    # -- the front end's copy ------------------------------------------------------------------------------------
    def adopt(self, key: str, record: Mapping[str, Any], revision: Any, size: int | None = None) -> None:
        """The front end holds `record` (already checked by `read_record`) at `revision`: later saves send only
        what differs from it (`size`: its JSON size, when the check measured it). A copy without a revision
        (written before revisions existed) is patched from ``""``; a revision that is not a short string means
        the copy can't be patched."""
        check_key(key)
        image = copy_json({k: v for k, v in record.items() if k != REVISION})
        if revision is None:
            revision = NO_REVISION
        usable = revision if isinstance(revision, str) and len(revision) <= MAX_REVISION_CHARS else None
        rest_size = _scan({**image, "messages": []})
        if size is None:
            size = rest_size + sum(_scan(message) for message in image.get("messages") or ())
        self._images[key] = _Image(image, usable, rest_size, max(0, size - rest_size))

    def revision(self, key: str) -> str | None:
        """The revision the front end's copy of `key` is at, as far as this kernel knows (None: unknown)."""
        image = self._images.get(key)
        return None if image is None else image.revision

    def forget_front_end_copy(self, key: str) -> None:
        """The front end's copy is not what this kernel thinks (a write was refused or failed, the page reloaded):
        the next save sends the whole record."""
        image = self._images.get(key)
        if image is not None:
            image.revision = None

    # -- writing -------------------------------------------------------------------------------------------------
    def _save_whole(self, key: str, record: Mapping[str, Any]) -> None:
        check_for_saving(key, record)
        whole = {k: v for k, v in record.items() if k != REVISION}
        message_size = sum(_scan(message) for message in whole.get("messages") or ())
        image = _Image({}, None, 0, 0)
        self._write(key, image, [{"op": "set", "path": [], "value": copy_json(whole)}],
                    _scan({**whole, "messages": []}), message_size)

    def _check_changes(self, image: _Image, record: Mapping[str, Any], ops: list[Op]) -> tuple[int, int]:
        """Check the messages and fields the ops touch (as ``check_record`` would); the record's new sizes."""
        messages = record.get("messages")
        if not isinstance(messages, list) or any(op["path"] == ["messages"] and op["op"] == "set" for op in ops):
            rest_size = check_rest(record)  # raises for a record without a messages list
            sizes = sum(check_message(message, index) for index, message in enumerate(messages or ()))
            record_size(rest_size, sizes, len(messages or ()))
            return rest_size, sizes
        old = image.record["messages"]
        rest_changed = False
        touched: set[int] = set()
        removed: list[Any] = []
        for op in ops:
            path = op["path"]
            if path[0] != "messages":
                rest_changed = True
            elif len(path) == 1:  # the one splice of the list
                removed = old[op["start"]:op["start"] + op["delete"]]
                touched.update(range(op["start"], op["start"] + len(op["insert"])))
            else:
                touched.add(path[1])
        rest_size = check_rest(record) if rest_changed else image.rest_size
        message_size = image.message_size - sum(_scan(message) for message in removed)
        shift = len(messages) - len(old)
        for index in touched:
            message_size += check_message(messages[index], index)
            before = _old_index(index, ops, shift)
            if before is not None:
                message_size -= _scan(old[before])
        record_size(rest_size, message_size, len(messages))
        if not rest_changed:
            _checked_stamp(record.get("updated_at"))
        return rest_size, message_size

    def _write(self, key: str, image: _Image, ops: list[Op], rest_size: int, message_size: int) -> None:
        base = image.revision
        revision = self._revision()
        self._emit({"key": key, "revision": revision, "base": base, "ops": ops})
        image.record = apply_ops(image.record, ops)
        image.revision = revision
        image.rest_size, image.message_size = rest_size, message_size
        self._images[key] = image

    def _revision(self) -> str:
        self._count += 1
        return f"{self._session}-{self._count}"

    def _emit(self, write: dict[str, Any]) -> None:
        self.last_write = write
        self._send(write)


def _find(messages: list[Any], message_id: Any) -> int | None:
    """The index of the message with `message_id`, searched from the end (a streaming reply is near it)."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].get("id") == message_id:
            return index
    return None


def _old_index(index: int, ops: list[Op], shift: int) -> int | None:
    """Where the message now at `index` sat before the ops: before a splice the same place, inside it nowhere,
    after it `shift` places earlier."""
    for op in ops:
        if op["op"] == "splice" and op["path"] == ["messages"]:
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
