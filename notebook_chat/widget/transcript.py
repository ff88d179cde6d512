"""A conversation as static text: what a notebook shows where the live widget can't be drawn.

GitHub, nbviewer and a JupyterLab without a kernel don't run the widget; they show the output's other mime types.
`transcript_bundle(messages)` gives them a ``text/plain`` and a ``text/html`` transcript of the visible messages
(user and assistant text, one line per tool call with its outcome). Every piece of message text is HTML-escaped:
model output and stored metadata are untrusted, so the HTML carries no markup but ours and renders the same
sanitized or not. The bundle goes out when the chat is displayed and again with every ``persist`` (turn ends), when
the browser writes it into the widget's output (docs/widget-protocol.md).
"""

from __future__ import annotations

import contextlib
import html
import json
from collections.abc import Iterable, Mapping
from itertools import compress
from operator import methodcaller
from typing import Any, NamedTuple

from ..engine.messages import content_text
from ..engine.notices import text as say

MAX_TEXT_CHARS = 20_000
"""Longest message text kept in the transcript (longer text is cut with a note)."""
MAX_RESULT_CHARS = 300
"""Longest tool result kept on a call's line."""
MAX_MESSAGES = 50
"""Most recent visible messages kept (older ones are counted, not shown): the transcript is rebuilt at every turn
boundary, so its cost stays the same however long the conversation grows (the whole conversation is in the
notebook's metadata, where the JupyterLab extension draws it)."""
MARKER = "notebook-chat-transcript"
"""The class of the transcript's root element (the JupyterLab extension finds the kernel-less view by it)."""

ROLE_LABELS = {"user": "role.user", "assistant": "role.assistant"}
"""The table key of each role shown."""


class Words(NamedTuple):
    """The transcript's own words, in its language."""

    heading: str
    earlier: str
    empty: str
    roles: dict[str, str]


def transcript_bundle(messages: Iterable[Mapping[str, Any]], *, title: str = "",
                      locale: str | None = None) -> dict[str, str]:
    """``{"text/plain", "text/html"}`` of the visible user and assistant messages of ``messages``, its words in
    ``locale`` (the table of engine/notices.py)."""
    items = messages if isinstance(messages, list) else list(messages)
    results: dict[str, Mapping[str, Any]] = {}
    visible: list[Mapping[str, Any]] = []
    left_out = 0
    index = len(items)
    while index:  # the latest first: a call's results come after it, so they are seen first
        index -= 1
        message = items[index]
        role = message.get("role")
        if role == "tool":
            results.setdefault(str(message.get("tool_call_id")), message)
        elif role in ROLE_LABELS and not _hidden(message):
            if len(visible) == MAX_MESSAGES:
                left_out = _count_shown(items[:index + 1])
                break
            visible.append(message)
    visible.reverse()
    entries = [(str(m["role"]), _text(m.get("content"), locale), _calls(m, results, locale)) for m in visible]
    heading = say("transcript.heading_titled", locale, title=title) if title else say("transcript.heading", locale)
    earlier = say("transcript.earlier", locale, n=left_out) if left_out else ""
    words = Words(heading, earlier, say("transcript.empty", locale),
                  {role: say(key, locale) for role, key in ROLE_LABELS.items()})
    return {"text/plain": _plain(words, entries), "text/html": _html(words, entries)}


def _count_shown(messages: list[Mapping[str, Any]]) -> int:
    """How many of ``messages`` the transcript would show, counted at C speed (a long conversation's older
    messages are only counted, at every turn boundary): the user and assistant messages, less the hidden ones."""
    shown = sum(map(ROLE_LABELS.__contains__, map(_ROLE, messages)))
    with_metadata = compress(messages, map(_METADATA, messages))
    return shown - sum(1 for message in with_metadata if message.get("role") in ROLE_LABELS and _hidden(message))


_ROLE = methodcaller("get", "role")
_METADATA = methodcaller("get", "metadata")


def _hidden(message: Mapping[str, Any]) -> bool:
    metadata = message.get("metadata")
    return isinstance(metadata, Mapping) and bool(metadata.get("hidden"))


def _text(content: Any, locale: str | None) -> str:
    text = content_text(content, "\n")
    if len(text) > MAX_TEXT_CHARS:
        text = text[:MAX_TEXT_CHARS] + "\n" + say("transcript.more", locale, n=f"{len(text) - MAX_TEXT_CHARS:,}")
    return text


def _calls(message: Mapping[str, Any], results: Mapping[str, Mapping[str, Any]], locale: str | None) -> list[str]:
    calls = message.get("tool_calls")
    if not isinstance(calls, list):
        return []
    state = message.get("state")
    entries = state.get("tool_calls") if isinstance(state, Mapping) else None
    entries = entries if isinstance(entries, Mapping) else {}
    lines = []
    for call in calls:
        if not isinstance(call, Mapping) or not isinstance(call.get("function"), Mapping):
            continue
        call_id = str(call.get("id"))
        entry = entries.get(call_id)
        status = str(entry.get("status", "")) if isinstance(entry, Mapping) else ""
        line = say("transcript.tool_call", locale,
                   call=f"{call['function'].get('name', '?')}({_compact(call['function'].get('arguments'))})")
        line += f": {status}" if status else ""
        result = results.get(call_id)
        if result is not None:
            text = _text(result.get("content"), locale).strip()
            if len(text) > MAX_RESULT_CHARS:
                text = text[:MAX_RESULT_CHARS] + " …"
            line += f" → {text}" if text else ""
        lines.append(line)
    return lines


def _compact(arguments: Any) -> str:
    text = arguments if isinstance(arguments, str) else ""
    with contextlib.suppress(ValueError):
        text = json.dumps(json.loads(text or "{}"), ensure_ascii=False)
    return text if len(text) <= MAX_RESULT_CHARS else text[:MAX_RESULT_CHARS] + " …"


def _paragraphs(text: str) -> list[str]:
    """Blank-line separated paragraphs, line breaks kept as <br> (no styles: sanitizers strip them)."""
    blocks = [block.strip("\n") for block in text.strip().split("\n\n")]
    return ["<p>" + "<br>\n".join(html.escape(line) for line in block.split("\n")) + "</p>"
            for block in blocks if block.strip()]


def _plain(words: Words, entries: list[tuple[str, str, list[str]]]) -> str:
    parts = [words.heading + (f" {words.earlier}" if words.earlier else "")]
    for role, text, calls in entries:
        body = "\n".join(line for line in [text.strip(), *calls] if line)
        label = words.roles[role]
        parts.append(f"{label}:\n{body}" if body else f"{label}:")
    if not entries:
        parts.append(f"({words.empty})")
    return "\n\n".join(parts)


def _html(words: Words, entries: list[tuple[str, str, list[str]]]) -> str:
    out = [f'<div class="{MARKER}">', f"<p><strong>{html.escape(words.heading)}</strong>"
           + (f" <em>{html.escape(words.earlier)}</em>" if words.earlier else "") + "</p>"]
    for role, text, calls in entries:
        out.append(f'<div class="{MARKER}-message" data-role="{role}">')
        out.append(f"<p><strong>{html.escape(words.roles[role])}</strong></p>")
        out.extend(_paragraphs(text))
        out.extend(f"<p><code>{html.escape(line)}</code></p>" for line in calls)
        out.append("</div>")
    if not entries:
        out.append(f"<p><em>{html.escape(words.empty)}</em></p>")
    out.append("</div>")
    return "\n".join(out)
