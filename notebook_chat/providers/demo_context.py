"""The DemoModel's replies to ``@name`` / ``@error`` context: what the injected ``describe`` results say.

A real model reads the description and answers the question; the demo model reads the same text (the formats of
``tools/mention_source.py``) and says what a careful reader would notice first: a DataFrame's size, columns and
missing values; an exception's type, message and the line of the user's code that raised it.
"""

from __future__ import annotations

import json
import re
from typing import Any

DESCRIBE = "describe"
_FRAME = re.compile(r"^DataFrame (\S+): (\d+) rows × (\d+) columns$", re.MULTILINE)
_COLUMN = re.compile(r"^  (.+): (\S+), (\d+) non-null$", re.MULTILINE)
_ERROR = re.compile(r"^Most recent exception in this kernel: (\S+)\nMessage: (.*)$", re.MULTILINE)
_LOCATION = re.compile(r'^  File "([^"]+)", line (\d+), in (\S+)\n    (.+)$', re.MULTILINE)
_LIBRARY = ("site-packages", "/lib/python", "<frozen")
_HINTS = {
    "KeyError": "On a DataFrame this usually means a column name that doesn't exist: `.columns` lists them.",
    "NameError": "A name used before it was defined: run the cell that defines it first (Run All keeps the order).",
    "FileNotFoundError": "Check the path: it is relative to the notebook's folder.",
    "ZeroDivisionError": "Something divided by zero: check the divisor, or guard it.",
    "AttributeError": "The object has no such attribute: `dir(obj)` shows what it has.",
    "TypeError": "A value of an unexpected type: check what the call received.",
    "ValueError": "A value the function refuses: its message says which.",
}


def reply_to_mentions(messages: list[dict[str, Any]]) -> str | None:
    """A reply when the request ends with injected ``describe`` results only (and nothing else to summarize)."""
    names = {}
    for message in messages:
        for call in message.get("tool_calls") or []:
            names[call.get("id")] = call.get("function") or {}
    tail: list[dict[str, Any]] = []
    for message in reversed(messages):
        if message.get("role") == "user":
            break
        tail.insert(0, message)
    results = [m for m in tail if m.get("role") == "tool"]
    if not results or any((names.get(m.get("tool_call_id")) or {}).get("name") != DESCRIBE for m in results):
        return None
    parts = [_about(_mentioned(names.get(m.get("tool_call_id")) or {}), str(m.get("content") or ""))
             for m in results]
    return "\n\n".join(parts) + "\n\n*(The offline demo model only reads the description; a real model would " \
                                "answer your question with it.)*"


def _mentioned(function: dict[str, Any]) -> str:
    try:
        name = json.loads(function.get("arguments") or "{}").get("name")
    except (ValueError, AttributeError):
        name = None
    return str(name or "it")


def _about(name: str, text: str) -> str:
    error = _ERROR.search(text)
    if error:
        return _about_error(error.group(1), error.group(2), text)
    frame = _FRAME.search(text)
    if frame:
        return _about_frame(frame.group(1), int(frame.group(2)), int(frame.group(3)), text)
    first = text.splitlines()[0] if text else "(nothing)"
    return f"You mentioned **`{name}`**: {first}."


def _about_frame(name: str, rows: int, columns: int, text: str) -> str:
    found = _COLUMN.findall(text)
    listing = ", ".join(f"`{column}` ({dtype})" for column, dtype, _ in found[:12])
    missing = [f"`{column}` ({rows - int(count)} of {rows})" for column, _, count in found if int(count) < rows]
    gaps = ("Missing values: " + ", ".join(missing) + ".") if missing else "No column has missing values."
    return f"**`{name}`** is a DataFrame with {rows} rows × {columns} columns: {listing}. {gaps}"


def _about_error(kind: str, message: str, text: str) -> str:
    frames = _LOCATION.findall(text)
    own = [frame for frame in frames if not any(part in frame[0] for part in _LIBRARY)]
    where = ""
    if own or frames:
        _, line, function, code = (own or frames)[-1]
        place = "your cell" if function == "<module>" else f"`{function}`"
        where = f" It was raised at line {line} of {place}: `{code.strip()}`."
    hint = _HINTS.get(kind.rsplit(".", 1)[-1], "")
    return f"The last error is a **{kind}**: {message}.{where} {hint}".rstrip()
