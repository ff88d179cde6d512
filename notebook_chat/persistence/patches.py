"""Patches of a stored JSON document: what the kernel sends instead of a whole record when only part of it changed.

A patch is a list of ops, applied in order; every ``path`` is a list of object keys and list indices from the
document's root (the entry under ``metadata["notebook_chat"]["conversations"][key]``), so the same four ops reach
any shape the stored container takes:

- ``{"op": "set", "path": P, "value": V}``: an object's key, a list's index (``len`` appends), or ``[]`` the root.
- ``{"op": "delete", "path": P}``: an object's key; ``[]`` deletes the entry.
- ``{"op": "splice", "path": P, "start": i, "delete": n, "insert": [...]}``: replace ``n`` items of the list at P.
- ``{"op": "append", "path": P, "at": n, "text": T}``: the string at P, which is ``n`` UTF-16 code units long
  (JavaScript's ``length``), grows by T. Any other length means the copies differ: the patch is refused.

:func:`diff` builds the ops that turn one record into another (lists are aligned by id after their equal head when
the items after it are objects with ``id``s: a common head and tail, one splice between; other lists are set
whole); :func:`apply_ops` is the reference applier (the browser's twin is ``js/widget/src/patches.js``). Both sides
refuse a patch that does not fit instead of guessing.
"""

from __future__ import annotations

import operator
import pickle
from collections.abc import Mapping, Sequence
from itertools import repeat
from typing import Any

Path = list[str | int]
Op = dict[str, Any]

MIN_APPEND = 16
"""A string shorter than this that grew goes whole as a ``set`` (an append op would not be smaller); a longer one
sends only what it grew by, however little."""


class PatchError(ValueError):
    """A patch does not fit the document it is applied to (the copies differ: send the whole record)."""


def utf16_length(text: str) -> int:
    """The length JavaScript reports for ``text`` (characters beyond U+FFFF count twice)."""
    return len(text) if text.isascii() else len(text.encode("utf-16-le")) // 2


def copy_json(value: Any) -> Any:
    """A deep copy of a JSON value (pickle round trip: several times faster than ``json`` or ``deepcopy``)."""
    return pickle.loads(pickle.dumps(value, pickle.HIGHEST_PROTOCOL))  # our own in-memory value, never untrusted bytes


LEAVES = (str, int, float, bool, type(None))


def copy_sharing_leaves(value: Any) -> Any:
    """A deep copy whose strings and numbers are the original's own objects (immutable, so sharing them is safe):
    comparing the copy with the original later finds most leaves equal by identity, a third of the time of comparing
    with a ``copy_json`` copy. Anything that is not JSON-shaped is copied whole (``copy_json``: it raises for what
    can't be copied)."""
    kind = type(value)
    if kind is dict:
        return {key: copy_sharing_leaves(item) for key, item in value.items()}
    if kind is list:
        return [copy_sharing_leaves(item) for item in value]
    if kind in LEAVES:
        return value
    return copy_json(value)


# ------------------------------------------------------------------------------------------------------------ diff


def diff(old: Mapping[str, Any], new: Mapping[str, Any], path: Path | None = None) -> list[Op]:
    """Ops that turn the object ``old`` into ``new`` (``[]`` when they are equal)."""
    ops: list[Op] = []
    _diff_object(old, new, [] if path is None else list(path), ops)
    return ops


def _diff_object(old: Mapping[str, Any], new: Mapping[str, Any], path: Path, ops: list[Op]) -> None:
    for key, value in new.items():
        if key not in old:
            ops.append({"op": "set", "path": [*path, key], "value": copy_json(value)})
        else:
            _diff_value(old[key], value, [*path, key], ops)
    for key in old:
        if key not in new:
            ops.append({"op": "delete", "path": [*path, key]})


def _diff_value(old: Any, new: Any, path: Path, ops: list[Op]) -> None:
    if type(old) is list and type(new) is list:
        _diff_list(old, new, path, ops)
        return
    if type(old) is type(new) and old == new:
        return
    if type(old) is str and type(new) is str and len(new) > len(old) >= MIN_APPEND and new.startswith(old):
        ops.append({"op": "append", "path": path, "at": utf16_length(old), "text": new[len(old):]})
    elif type(old) is dict and type(new) is dict:
        _diff_object(old, new, path, ops)
    else:
        ops.append({"op": "set", "path": path, "value": copy_json(new)})


def _diff_list(old: list[Any], new: list[Any], path: Path, ops: list[Op]) -> None:
    limit = min(len(old), len(new))
    equal = _equal_head(old, new, limit)  # one pass of the interpreter's deep equality over the common head
    if equal == len(old) == len(new):
        return
    if _keyed(old[equal:]) and _keyed(new[equal:]):
        _diff_keyed_list(old, new, path, ops, limit, equal)
    else:
        ops.append({"op": "set", "path": path, "value": copy_json(new)})


def _keyed(items: Sequence[Any]) -> bool:
    """Every item is an object with an ``id`` (checked at C speed)."""
    return all(map(operator.is_, map(type, items), repeat(dict))) and all(map(dict.__contains__, items, repeat("id")))


def _diff_keyed_list(old: Sequence[Any], new: Sequence[Any], path: Path, ops: list[Op], limit: int,
                     equal: int) -> None:
    """After the ``equal`` head (left as it is), same ids at the head and the tail are diffed in place; what lies
    between is one splice. Only the items after that head need ids: a long conversation's unchanged messages are
    neither checked nor walked."""
    head = equal
    while head < limit and old[head]["id"] == new[head]["id"]:
        head += 1
    tail = 0
    while tail < limit - head and old[-1 - tail]["id"] == new[-1 - tail]["id"]:
        tail += 1
    for index in range(equal, head):
        _diff_value(old[index], new[index], [*path, index], ops)
    removed, inserted = len(old) - head - tail, new[head:len(new) - tail]
    if removed or inserted:
        ops.append({"op": "splice", "path": path, "start": head, "delete": removed,
                    "insert": copy_json(list(inserted))})
    for offset in range(tail, 0, -1):
        _diff_value(old[-offset], new[-offset], [*path, len(new) - offset], ops)


_CHUNK = 64


def _equal_head(old: Sequence[Any], new: Sequence[Any], limit: int) -> int:
    """How many leading items of the two lists are equal, found by comparing slices (the interpreter's own deep
    equality) rather than item by item: a long conversation's unchanged messages cost almost nothing to skip."""
    if old[:limit] == new[:limit]:
        return limit
    head = 0
    while head + _CHUNK <= limit and old[head:head + _CHUNK] == new[head:head + _CHUNK]:
        head += _CHUNK
    while head < limit and old[head] == new[head]:
        head += 1
    return head


# ----------------------------------------------------------------------------------------------------------- apply


def apply_ops(document: Any, ops: Sequence[Mapping[str, Any]]) -> Any:
    """``document`` changed by ``ops`` in place (the new root is returned: a root ``set`` or ``delete`` replaces it;
    None when deleted). ``PatchError`` when an op does not fit; the document may then be partly changed."""
    for op in ops:
        document = _apply(document, op)
    return document


def _apply(document: Any, op: Mapping[str, Any]) -> Any:
    kind, path = op.get("op"), op.get("path")
    if not isinstance(path, list):
        raise PatchError(f"an op needs a path list, got {path!r:.60}")
    if not path:
        if kind == "set":
            return copy_json(op.get("value"))
        if kind == "delete":
            return None
    parent = _walk(document, path[:-1])
    last = path[-1] if path else None
    if kind == "set":
        _set(parent, last, copy_json(op.get("value")))
    elif kind == "delete":
        if not isinstance(parent, dict) or last not in parent:
            raise PatchError(f"delete: {path!r:.80} does not exist")
        del parent[last]
    elif kind == "splice":
        _splice(_child(parent, last, path), op)
    elif kind == "append":
        text = _child(parent, last, path)
        if not isinstance(text, str) or utf16_length(text) != op.get("at") or not isinstance(op.get("text"), str):
            raise PatchError(f"append: the text at {path!r:.80} is not {op.get('at')!r} long")
        _set(parent, last, text + op["text"])
    else:
        raise PatchError(f"unknown op {kind!r:.40}")
    return document


def _walk(document: Any, path: Sequence[Any]) -> Any:
    node = document
    for step in path:
        node = _child(node, step, path)
    return node


def _child(node: Any, step: Any, path: Sequence[Any]) -> Any:
    if isinstance(node, dict) and isinstance(step, str) and step in node:
        return node[step]
    if isinstance(node, list) and type(step) is int and 0 <= step < len(node):
        return node[step]
    raise PatchError(f"{list(path)!r:.80} does not exist")


def _set(parent: Any, key: Any, value: Any) -> None:
    in_object = isinstance(parent, dict) and isinstance(key, str)
    if in_object or (isinstance(parent, list) and type(key) is int and 0 <= key < len(parent)):
        parent[key] = value
    elif isinstance(parent, list) and key == len(parent):
        parent.append(value)
    else:
        raise PatchError(f"set: no place {key!r:.40} in a {type(parent).__name__}")


def _splice(items: Any, op: Mapping[str, Any]) -> None:
    start, count, inserted = op.get("start"), op.get("delete"), op.get("insert")
    if not (isinstance(items, list) and isinstance(start, int) and isinstance(count, int)
            and isinstance(inserted, list) and start >= 0 and count >= 0 and start + count <= len(items)):
        raise PatchError("splice: does not fit the list")
    items[start:start + count] = copy_json(inserted)


def apply_write(entry: Any, write: Mapping[str, Any]) -> Any:
    """What the browser does with one ``persist`` write to the entry it holds under the write's key (reference for
    ``js/widget/src/patches.js``): refuse it (``PatchError``) when its ``base`` is not the entry's ``revision``
    (``""`` for an entry without one), else apply the ops to a copy and stamp the write's revision on it.
    Returns the new entry (None: deleted)."""
    base = write.get("base")
    if base is not None:
        held = entry.get("revision", "") if isinstance(entry, dict) else None
        if held != base:
            raise PatchError(f"the copy is at revision {held!r:.40}, the patch needs {base!r:.40}")
    result = apply_ops(copy_json(entry), write.get("ops") or [])
    if isinstance(result, dict):
        result["revision"] = write.get("revision")
    return result
