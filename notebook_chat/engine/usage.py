"""Token usage the server reported: kept on each reply's ``metadata["usage"]`` (OpenAI's ``prompt_tokens`` /
``completion_tokens`` / ``total_tokens``), summed per turn and per conversation here. A server that reports none
gives ``None``, never zeros."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

FIELDS = ("prompt_tokens", "completion_tokens", "total_tokens")


def usage_of(message: Mapping[str, Any]) -> dict[str, int] | None:
    """The usage one reply reported, as whole numbers (``None`` when it reported none)."""
    usage = (message.get("metadata") or {}).get("usage")
    if not isinstance(usage, Mapping):
        return None
    counts = {key: usage[key] for key in FIELDS
              if isinstance(usage.get(key), int) and not isinstance(usage.get(key), bool) and usage[key] >= 0}
    return counts or None


def total_usage(messages: Iterable[Mapping[str, Any]]) -> dict[str, int] | None:
    """The sum over ``messages`` (a turn's, or the whole conversation's); ``None`` when none reported usage."""
    total: dict[str, int] = {}
    for message in messages:
        usage = usage_of(message)
        for key, value in (usage or {}).items():
            total[key] = total.get(key, 0) + value
    return total or None


def turn_usage(messages: Iterable[Mapping[str, Any]], turn_id: str) -> dict[str, int] | None:
    """The sum over the replies of one turn."""
    return total_usage(m for m in messages if (m.get("state") or {}).get("turn_id") == turn_id)
