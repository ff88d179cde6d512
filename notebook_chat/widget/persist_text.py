"""`persist` writes that point at streamed text the browser already holds instead of carrying it a second time.

A streamed reply reaches the browser twice: as the view's ``delta`` ops (to draw it) and in the ``persist`` writes
that store it in the notebook's metadata (a streaming save's ``append``, the turn's last save that inserts the whole
reply). Both come from the same text, in order, on the same comm. So when the text a write would carry is exactly
what the browser's view copy of that message holds (``ViewStream``'s image of it, after a flush), the write names it
instead:

- ``{"op": "append_view", "path": P, "at": n, "id": M, "field": F, "end": e}``: the string at P (``n`` UTF-16 code
  units long) grows by characters ``n`` to ``e`` of field F (``content`` | ``reasoning_content``) of message M in
  the view; the view's text must be exactly ``e`` long.
- ``{"op": "set_view", "path": P, "id": M, "field": F, "end": e}``: the string at P becomes that whole text.

The browser resolves them into ``append`` and ``set`` ops the moment the write arrives (``js/widget/src/
persist_text.js``; :func:`resolve_view_text` is the reference), before it applies the patch; text it does not hold
exactly makes it refuse the write as stale, and the kernel then sends the whole record (as for any patch that does
not fit). A browser without this code refuses the unknown ops the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..persistence.patches import Op, PatchError, utf16_length

MIN_VIEW_TEXT = 160
"""Text shorter than this goes in the write itself (a reference op is about this long)."""
TEXT_FIELDS = ("content", "reasoning_content")

TextOf = Callable[[str, str], "str | None"]
"""``text_of(message_id, field)``: the text the browser's view holds for that message's field (None: unknown)."""


def refer_to_view(ops: Sequence[Op], text_of: TextOf, recent: Callable[[], Iterable[str]]) -> list[Op] | None:
    """``ops`` with every long text the view already holds replaced by a reference to it; None when nothing could
    be replaced (send ``ops`` as they are). ``recent()``: the ids of the view's last messages, newest first (an
    ``append`` names its message by index in the record, not by id). ``ops`` themselves are not changed."""
    out: list[Op] = []
    replaced = False
    for op in ops:
        kind, path = op.get("op"), op.get("path")
        if kind == "append" and _text_path(path) and len(op.get("text") or "") >= MIN_VIEW_TEXT:
            reference = _append_reference(op, text_of, recent)
            if reference is not None:
                out.append(reference)
                replaced = True
                continue
        elif kind == "set" and _text_path(path) and isinstance(op.get("value"), str) \
                and len(op["value"]) >= MIN_VIEW_TEXT:
            field = op["path"][-1]
            found = _holder(op["value"], field, text_of, recent)
            if found is not None:
                out.append({"op": "set_view", "path": op["path"], "id": found, "field": field,
                            "end": utf16_length(op["value"])})
                replaced = True
                continue
        elif kind == "splice" and isinstance(op.get("insert"), list):
            spliced, appends = _splice_references(op, text_of)
            if appends:
                out.append(spliced)
                out.extend(appends)
                replaced = True
                continue
        out.append(op)
    return out if replaced else None


def _text_path(path: Any) -> bool:
    """``[..., "messages", i, "content" | "reasoning_content"]``."""
    return (isinstance(path, list) and len(path) >= 3 and path[-3] == "messages" and type(path[-2]) is int
            and path[-1] in TEXT_FIELDS)


def _append_reference(op: Op, text_of: TextOf, recent: Callable[[], Iterable[str]]) -> Op | None:
    text, at, field = op["text"], op.get("at"), op["path"][-1]
    if type(at) is not int:
        return None
    end = at + utf16_length(text)
    for message_id in recent():
        held = text_of(message_id, field)
        if held is not None and held.endswith(text) and utf16_length(held) == end:
            return {"op": "append_view", "path": op["path"], "at": at, "id": message_id, "field": field, "end": end}
    return None


def _holder(value: str, field: str, text_of: TextOf, recent: Callable[[], Iterable[str]]) -> str | None:
    for message_id in recent():
        if text_of(message_id, field) == value:
            return message_id
    return None


def _splice_references(op: Op, text_of: TextOf) -> tuple[Op, list[Op]]:
    """A splice inserting messages whose long texts the view holds: those texts go in as "" and are filled by
    ``append_view`` ops after it."""
    inserted: list[Any] = []
    appends: list[Op] = []
    start = op.get("start")
    for offset, message in enumerate(op["insert"]):
        message_id = message.get("id") if isinstance(message, dict) else None
        if type(start) is int and isinstance(message_id, str):
            for field in TEXT_FIELDS:
                value = message.get(field)
                if isinstance(value, str) and len(value) >= MIN_VIEW_TEXT and text_of(message_id, field) == value:
                    message = {**message, field: ""}
                    appends.append({"op": "append_view", "path": [*op["path"], start + offset, field], "at": 0,
                                    "id": message_id, "field": field, "end": utf16_length(value)})
        inserted.append(message)
    return {**op, "insert": inserted}, appends


def resolve_view_text(write: Mapping[str, Any], text_of: TextOf) -> dict[str, Any]:
    """What the browser does with a write when it arrives (reference for ``js/widget/src/persist_text.js``): the
    write with its view references turned into plain ``append`` / ``set`` ops, from the view copy's texts.
    ``PatchError`` when the view does not hold a referenced text exactly (the browser then refuses the write as
    stale)."""
    ops = write.get("ops")
    if not isinstance(ops, list) or not any(isinstance(op, Mapping) and op.get("op") in ("append_view", "set_view")
                                            for op in ops):
        return dict(write)
    return {**write, "ops": [_resolved(op, text_of) for op in ops]}


def _resolved(op: Any, text_of: TextOf) -> Any:
    if not isinstance(op, Mapping) or op.get("op") not in ("append_view", "set_view"):
        return op
    message_id, field, end = op.get("id"), op.get("field"), op.get("end")
    held = text_of(message_id, field) if isinstance(message_id, str) and field in TEXT_FIELDS else None
    if held is None or type(end) is not int or utf16_length(held) != end:
        raise PatchError(op)  # the view does not hold that text exactly (the op says which; no person reads it)
    if op["op"] == "set_view":
        return {"op": "set", "path": op.get("path"), "value": held}
    at = op.get("at")
    if type(at) is not int or not 0 <= at <= end:
        raise PatchError(op)  # an offset outside the view's text
    return {"op": "append", "path": op.get("path"), "at": at, "text": _utf16_slice(held, at)}


def _utf16_slice(text: str, start: int) -> str:
    """``text`` from UTF-16 offset ``start`` on (as JavaScript's ``slice``)."""
    if text.isascii():
        return text[start:]
    units = text.encode("utf-16-le")[2 * start:]
    return units.decode("utf-16-le", errors="surrogatepass")
