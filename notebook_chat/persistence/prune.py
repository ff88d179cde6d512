"""Remove stale entries from a store: older than `max_age`, or beyond the `keep` newest."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any, Protocol

from notebook_chat.engine.conversation import parse_utc


class _Store(Protocol):
    def load_entry(self, key: str) -> Any: ...

    def delete(self, key: str) -> None: ...

    def keys(self) -> list[str]: ...


def entry_time(entry: Any) -> datetime | None:
    """When a chat was last written (the latest `updated_at` of its conversations), else None."""
    items = entry.get("items") if isinstance(entry, dict) else None
    times = [when for record in (items.values() if isinstance(items, dict) else ())
             if (when := record_time(record)) is not None]
    return max(times) if times else None


def record_time(record: Any) -> datetime | None:
    """When a record was last written (`updated_at`), else None."""
    text = record.get("updated_at") if isinstance(record, dict) else None
    if not isinstance(text, str):
        return None
    try:
        return parse_utc(text)
    except ValueError:
        return None


def prune(
    store: _Store, *, max_age: timedelta | None = None, keep: int | None = None, now: datetime | None = None
) -> list[str]:
    """Delete entries older than `max_age` and all but the `keep` newest; return the deleted keys, sorted.

    A chat is as new as its newest conversation; one without a readable time is never deleted (nothing that can't
    be read is lost)."""
    if keep is not None and keep < 0:
        raise ValueError(f"keep must be 0 or more, got {keep}")
    moment = now or datetime.now(timezone.utc)
    dated: list[tuple[datetime, str]] = []
    for key in list(store.keys()):
        when = entry_time(store.load_entry(key))
        if when is not None:
            dated.append((when, key))
    dated.sort(reverse=True)
    doomed = {key for when, key in dated if max_age is not None and moment - when > max_age}
    if keep is not None:
        doomed.update(key for _, key in dated[keep:])
    for key in sorted(doomed):
        store.delete(key)
    return sorted(doomed)
