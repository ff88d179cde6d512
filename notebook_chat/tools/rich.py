"""What a tool result shows: a concise text for the model, the full text and rich data (PNG, HTML) for the user.

The model text is cut at ``max_model_chars`` with a note saying how much it did not see; the display bundle then
keeps the whole text under ``text/plain``. So ``display["text/plain"]`` is present exactly when the model's text was
truncated (or when nothing richer exists), and a UI should show it next to any image or HTML of the same bundle.
"""

from __future__ import annotations

from typing import Any

from ..plugins.tool_definition import ToolResult

TRUNCATION_NOTE = "[truncated: {count} more characters shown to the user only]"


def truncate_for_model(text: str, max_chars: int) -> tuple[str, bool]:
    """``text`` cut to ``max_chars`` plus the truncation note, and whether it was cut."""
    if len(text) <= max_chars:
        return text, False
    return f"{text[:max_chars]}\n{TRUNCATION_NOTE.format(count=len(text) - max_chars)}", True


def tool_result(
    text: str,
    *,
    max_model_chars: int,
    display: dict[str, Any] | None = None,
    ok: bool = True,
    error: str | None = None,
) -> ToolResult:
    """A :class:`ToolResult` whose model text is truncated and whose display keeps everything."""
    content, truncated = truncate_for_model(text, max_model_chars)
    bundle = dict(display or {})
    if truncated:
        bundle["text/plain"] = text
    return ToolResult(content=content, ok=ok, error=error, display=bundle or None)
