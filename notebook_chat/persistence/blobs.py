"""Large display data (base64 images from tool results) is stored once per conversation, by content hash.

A stored record keeps each text of 1,024 characters or more found in a tool result's ``metadata["display"]`` (a mime
bundle: ``{mime: text | [text, ...]}``) once, in ``record["blobs"][sha256 hex of the text]``, and the display keeps a
reference ``{"notebook_chat_blob": "<sha256>"}`` in its place: the same image in ten results is stored once, and a
record without such data has no ``blobs`` at all. The engine never sees references: :func:`pack` runs on the way to a
store, :func:`unpack` on the way back. A stored record is untrusted: a reference whose text is missing, is not text or
does not hash to its name is dropped from its display with a notice; everything else loads.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

BLOBS = "blobs"
REF = "notebook_chat_blob"
MIN_BLOB_CHARS = 1024


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def has_blobs(message: Mapping[str, Any]) -> bool:
    """True when storing `message` would move some of its display data into ``blobs``."""
    display = _display(message)
    return display is not None and any(_big(value) for value in display.values())


def pack(record: Mapping[str, Any]) -> dict[str, Any]:
    """The stored form of `record`: large display texts replaced by references, each stored once in ``blobs``.
    The given record and its messages are not changed (a message with display data is copied)."""
    messages = record.get("messages")
    result = {key: value for key, value in record.items() if key != BLOBS}
    if isinstance(messages, list):
        packed_messages, blobs = pack_messages(messages)
        if blobs or packed_messages is not messages:
            result["messages"] = packed_messages
            result[BLOBS] = blobs
    return result


def pack_messages(messages: list[Any], blobs: dict[str, str] | None = None) -> tuple[list[Any], dict[str, str]]:
    """`messages` with their large display texts replaced by references (the same list when none has any), and
    the texts by hash, added to `blobs` (a new dict when None)."""
    blobs = {} if blobs is None else blobs
    packed_messages = None
    for index, message in enumerate(messages):
        if not isinstance(message, Mapping) or not has_blobs(message):
            continue
        if packed_messages is None:
            packed_messages = list(messages)
        display = _display(message) or {}
        packed = {mime: _pack_value(value, blobs) for mime, value in display.items()}
        packed_messages[index] = {**message, "metadata": {**message["metadata"], "display": packed}}
    return (messages if packed_messages is None else packed_messages), blobs


def unpack(record: Mapping[str, Any]) -> tuple[dict[str, Any], str | None]:
    """`record` (checked by ``check_record``) with its references replaced by their texts and without ``blobs``,
    and a sentence when some reference could not be resolved (those entries are left out of their display)."""
    stored = record.get(BLOBS)
    blobs: Mapping[str, Any] = stored if isinstance(stored, Mapping) else {}
    result = {key: value for key, value in record.items() if key != BLOBS}
    messages = record.get("messages")
    if not isinstance(messages, list):
        return result, None
    lost = 0
    unpacked_messages = None
    for index, message in enumerate(messages):
        display = _display(message) if isinstance(message, Mapping) else None
        if display is None or not any(_holds_ref(value) for value in display.values()):
            continue
        if unpacked_messages is None:
            unpacked_messages = list(messages)
        resolved: dict[str, Any] = {}
        for mime, value in display.items():
            found, missing = _unpack_value(value, blobs)
            lost += missing
            if found is not None:
                resolved[mime] = found
        metadata = {**message["metadata"], "display": resolved}
        if not resolved:
            del metadata["display"]
        unpacked_messages[index] = {**message, "metadata": metadata}
    if unpacked_messages is not None:
        result["messages"] = unpacked_messages
    notice = None
    if lost:
        notice = (f"{lost} image(s) or other display data of the stored conversation could not be restored: the stored "
                  "data is missing or does not match its hash. The rest of the conversation is restored.")
    return result, notice


def _display(message: Mapping[str, Any]) -> dict[str, Any] | None:
    metadata = message.get("metadata")
    display = metadata.get("display") if isinstance(metadata, dict) else None
    return display if isinstance(display, dict) and display else None


def _big(value: Any) -> bool:
    if isinstance(value, str):
        return len(value) >= MIN_BLOB_CHARS
    return isinstance(value, list) and any(isinstance(item, str) and len(item) >= MIN_BLOB_CHARS for item in value)


def _pack_text(value: Any, blobs: dict[str, str]) -> Any:
    if not isinstance(value, str) or len(value) < MIN_BLOB_CHARS:
        return value
    key = digest(value)
    blobs.setdefault(key, value)
    return {REF: key}


def _pack_value(value: Any, blobs: dict[str, str]) -> Any:
    if isinstance(value, list):
        return [_pack_text(item, blobs) for item in value]
    return _pack_text(value, blobs)


def _is_ref(value: Any) -> bool:
    return isinstance(value, dict) and REF in value


def _holds_ref(value: Any) -> bool:
    return _is_ref(value) or (isinstance(value, list) and any(_is_ref(item) for item in value))


def _resolve(value: Any, blobs: Mapping[str, Any]) -> str | None:
    key = value.get(REF)
    if len(value) != 1 or not isinstance(key, str):
        return None
    text = blobs.get(key)
    if not isinstance(text, str) or digest(text) != key:
        return None
    return text


def _unpack_value(value: Any, blobs: Mapping[str, Any]) -> tuple[Any, int]:
    """The value with its references resolved (None: nothing is left of it), and how many could not be."""
    if _is_ref(value):
        text = _resolve(value, blobs)
        return text, int(text is None)
    if isinstance(value, list) and any(_is_ref(item) for item in value):
        items, lost = [], 0
        for item in value:
            if _is_ref(item):
                text = _resolve(item, blobs)
                if text is None:
                    lost += 1
                    continue
                item = text
            items.append(item)
        return (items or None), lost
    return value, 0
