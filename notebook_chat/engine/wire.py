"""The wire contract of a provider's reply, checked where the reply enters the engine.

A model server (or a proxy in front of it) is untrusted: a field of the wrong type, an id too long to store, or text
with lone UTF-16 surrogates would otherwise reach the history and break every later save and request. Each check
either returns the value or raises :class:`ProviderError` (kind ``bad-response``) with a sentence naming the field;
the turn then ends in ``error`` with the partial reply kept; a value of the wrong type never enters a message.
"""

from __future__ import annotations

from typing import Any

from .conversation import MAX_ID_CHARS
from .errors import ProviderError

ADVICE = "The partial reply is kept; retry, or check the server (or the proxy in front of it)."
REPLACEMENT = "\ufffd"


def wire_error(problem: str) -> ProviderError:
    return ProviderError(f"The server's reply broke the OpenAI wire format: {problem}. {ADVICE}", kind="bad-response")


def _describe(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:40]}{'…' if len(text) > 40 else ''}"


def optional_str(value: Any, where: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise wire_error(f"{where} is {_describe(value)}, expected text")


def optional_int(value: Any, where: str) -> int | None:
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise wire_error(f"{where} is {_describe(value)}, expected an integer")


def optional_dict(value: Any, where: str) -> dict[str, Any] | None:
    if value is None or isinstance(value, dict):
        return value
    raise wire_error(f"{where} is {_describe(value)}, expected an object")


def optional_list(value: Any, where: str) -> list[Any] | None:
    if value is None or isinstance(value, list):
        return value
    raise wire_error(f"{where} is {_describe(value)}, expected a list")


def check_limit(size: int, limit: int, what: str) -> None:
    if size > limit:
        raise wire_error(f"{what} is longer than {limit:,} characters")


def token_counts(usage: Any) -> dict[str, Any] | None:
    """The usage report's integer counts (one level of detail objects kept); anything else is left out."""
    if not isinstance(usage, dict):
        return None
    kept: dict[str, Any] = {}
    for key, value in list(usage.items())[:50]:
        if not isinstance(key, str) or len(key) > MAX_ID_CHARS:
            continue
        if isinstance(value, int) and not isinstance(value, bool):
            kept[key] = value
        elif isinstance(value, dict):
            inner = {k: v for k, v in list(value.items())[:50] if isinstance(k, str) and len(k) <= MAX_ID_CHARS
                     and isinstance(v, int) and not isinstance(v, bool)}
            if inner:
                kept[key] = inner
    return kept or None


def repair_surrogates(text: str) -> str:
    """``text`` with surrogate pairs joined into their character and every lone surrogate replaced by U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def _is_high_surrogate(char: str) -> bool:
    return "\ud800" <= char <= "\udbff"


class SurrogateJoiner:
    """Repairs streamed text per field: a high surrogate at the end of one piece waits for the low one that may start
    the next piece (a server that splits an emoji into its two UTF-16 halves), so the pair becomes one character.
    Constant work per piece beyond one pass over it."""

    def __init__(self) -> None:
        self._held: dict[str, str] = {}

    def join(self, field: str, piece: str) -> str:
        held = self._held.pop(field, None)
        if held is not None:
            piece = held + piece
        try:
            piece.encode("utf-8")
        except UnicodeEncodeError:
            if _is_high_surrogate(piece[-1]):
                self._held[field], piece = piece[-1], piece[:-1]
            return repair_surrogates(piece)
        return piece

    def flush(self) -> list[tuple[str, str]]:
        """Fields whose last surrogate never got its pair, each with the replacement character to append."""
        rest = [(field, REPLACEMENT) for field in self._held]
        self._held.clear()
        return rest
