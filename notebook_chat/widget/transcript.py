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
from typing import Any

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

ROLE_LABELS = {"user": "You", "assistant": "Assistant"}


def transcript_bundle(messages: Iterable[Mapping[str, Any]], *, title: str = "") -> dict[str, str]:
    """``{"text/plain", "text/html"}`` of the visible user and assistant messages of ``messages``."""
    items = messages if isinstance(messages, list) else list(messages)
    results: dict[str, Mapping[str, Any]] = {}
    visible: list[Mapping[str, Any]] = []
    left_out = 0
    for message in reversed(items):  # the latest first: a call's results come after it, so they are seen first
        role = message.get("role")
        if role == "tool":
            results.setdefault(str(message.get("tool_call_id")), message)
        elif role in ROLE_LABELS and not _hidden(message):
            if len(visible) < MAX_MESSAGES:
                visible.append(message)
            else:
                left_out += 1
    visible.reverse()
    entries = [(str(m["role"]), _text(m.get("content")), _calls(m, results)) for m in visible]
    heading = f"Chat — {title}" if title else "Chat"
    return {"text/plain": _plain(heading, entries, left_out), "text/html": _html(heading, entries, left_out)}


def _hidden(message: Mapping[str, Any]) -> bool:
    metadata = message.get("metadata")
    return isinstance(metadata, Mapping) and bool(metadata.get("hidden"))


def _text(content: Any) -> str:
    if isinstance(content, list):  # content parts: keep the text ones
        content = "\n".join(str(part.get("text", "")) for part in content
                            if isinstance(part, Mapping) and part.get("type") == "text")
    text = content if isinstance(content, str) else ""
    if len(text) > MAX_TEXT_CHARS:
        text = text[:MAX_TEXT_CHARS] + f"\n[… {len(text) - MAX_TEXT_CHARS:,} more characters]"
    return text


def _calls(message: Mapping[str, Any], results: Mapping[str, Mapping[str, Any]]) -> list[str]:
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
        line = f"Tool call {call['function'].get('name', '?')}({_compact(call['function'].get('arguments'))})"
        line += f": {status}" if status else ""
        result = results.get(call_id)
        if result is not None:
            text = _text(result.get("content")).strip()
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


def _plain(heading: str, entries: list[tuple[str, str, list[str]]], left_out: int) -> str:
    parts = [heading + (f" ({left_out} earlier messages not shown)" if left_out else "")]
    for role, text, calls in entries:
        body = "\n".join(line for line in [text.strip(), *calls] if line)
        parts.append(f"{ROLE_LABELS[role]}:\n{body}" if body else f"{ROLE_LABELS[role]}:")
    if not entries:
        parts.append("(no messages yet)")
    return "\n\n".join(parts)


def _html(heading: str, entries: list[tuple[str, str, list[str]]], left_out: int) -> str:
    out = [f'<div class="{MARKER}">', f"<p><strong>{html.escape(heading)}</strong>"
           + (f" <em>({left_out} earlier messages not shown)</em>" if left_out else "") + "</p>"]
    for role, text, calls in entries:
        out.append(f'<div class="{MARKER}-message" data-role="{role}">')
        out.append(f"<p><strong>{ROLE_LABELS[role]}</strong></p>")
        out.extend(_paragraphs(text))
        out.extend(f"<p><code>{html.escape(line)}</code></p>" for line in calls)
        out.append("</div>")
    if not entries:
        out.append("<p><em>No messages yet.</em></p>")
    out.append("</div>")
    return "\n".join(out)
