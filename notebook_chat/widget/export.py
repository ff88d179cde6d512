"""A conversation as Markdown, or as notebook cells (markdown cells for the text, code cells for its Python code).

Only what the user saw is exported: hidden messages (a Continue's instruction to the model) and injected context stay
out. Code blocks are found with markdown-it (the CommonMark parser), never with a regular expression.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..engine.conversation import Message
from ..engine.messages import content_text
from ..engine.notices import text as say

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

CODE_LANGUAGES = frozenset({"", "python", "py", "python3", "ipython", "ipython3"})
"""Fenced blocks in these languages become code cells; other languages (SQL, JSON, a shell) stay in markdown."""
HEADINGS = {"user": "role.user", "assistant": "role.assistant", "system": "role.system"}
"""The table key of each role's heading (engine/notices.py); a conversation without a title is "export.untitled"."""



@functools.cache
def _parser() -> MarkdownIt:
    """The CommonMark parser, built on the first export (markdown-it is not imported with the chat)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")


TITLE_CHARS = 60


def title_of(messages: list[Message]) -> str | None:
    """The start of the first user message the user wrote (one line), or None when there is none yet."""
    for message in messages:
        content = message.get("content")
        if message.get("role") != "user" or (message.get("metadata") or {}).get("hidden") or not isinstance(
                content, str):
            continue
        text = " ".join(content.split())
        if text:
            return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1].rstrip() + "…"
    return None


def conversation_markdown(messages: list[Message], title: str | None, locale: str | None = None) -> str:
    """The whole conversation as one Markdown document (its headings in `locale`)."""
    return "\n\n".join(_sections(messages, title, locale)) + "\n"


def conversation_cells(messages: list[Message], title: str | None,
                       locale: str | None = None) -> list[dict[str, str]]:
    """The conversation as cells: each message's text split at its Python code blocks (headings in `locale`)."""
    cells: list[dict[str, str]] = []
    for section in _sections(messages, title, locale):
        cells.extend(split_code_blocks(section))
    return cells


def split_code_blocks(markdown: str) -> list[dict[str, str]]:
    """`markdown` as cells: Python fenced blocks become code cells, the text around them markdown cells."""
    lines = markdown.splitlines(keepends=True)
    cells: list[dict[str, str]] = []
    start = 0
    for token in _parser().parse(markdown):
        if token.type != "fence" or token.map is None or token.level != 0:
            continue
        language = token.info.strip().split(" ")[0].lower() if token.info else ""
        if language not in CODE_LANGUAGES:
            continue
        first, end = token.map
        _add(cells, "markdown", "".join(lines[start:first]))
        _add(cells, "code", token.content)
        start = end
    _add(cells, "markdown", "".join(lines[start:]))
    return cells


def _add(cells: list[dict[str, str]], cell_type: str, source: str) -> None:
    text = source.strip("\n")
    if text.strip():
        cells.append({"cell_type": cell_type, "source": text})


def _sections(messages: list[Message], title: str | None, locale: str | None) -> list[str]:
    results = {m.get("tool_call_id"): m for m in messages if m.get("role") == "tool"}
    sections = ["# " + (title or say("export.untitled", locale))]
    for message in messages:
        role = message.get("role")
        metadata = message.get("metadata") or {}
        if role not in HEADINGS or metadata.get("hidden") or metadata.get("injected"):
            continue
        parts = [f"## {say(HEADINGS[role], locale)}"]
        content = content_text(message.get("content"), "\n\n")
        if content.strip():
            parts.append(content.strip("\n"))
        for call in message.get("tool_calls") or ():
            parts.append(_tool_call(call, results.get(call.get("id")), locale))
        if len(parts) > 1:
            sections.append("\n\n".join(parts))
    return sections


def _tool_call(call: Mapping[str, Any], result: Mapping[str, Any] | None, locale: str | None) -> str:
    function = call.get("function") or {}
    arguments = str(function.get("arguments") or "{}")
    with contextlib.suppress(ValueError):
        arguments = json.dumps(json.loads(arguments), indent=2, ensure_ascii=False)
    heading = say("export.tool_call", locale, name=function.get("name", "?"))
    text = f"{heading}\n\n{_fence(arguments, 'json')}"
    if result is not None:
        shown = content_text(result.get("content"), "\n\n")
        text += "\n\n" + say("export.result", locale) + "\n\n" + _fence(shown, "text")
    return text


def _fence(text: str, language: str) -> str:
    """A fenced block that its own backticks can't close."""
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{language}\n{text.rstrip(chr(10))}\n{ticks}"

