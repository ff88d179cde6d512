"""Provider error texts, written one way: one sentence of what happened, one sentence of what to do.

``provider_error(kind, happened)`` is the only way the providers build a :class:`ProviderError`: ``happened`` is
tidied into one sentence (whitespace collapsed, trailing punctuation replaced by a single full stop, so a server text
ending in "." never gives "response.. Check"), and the advice for ``kind`` follows (:data:`ADVICE`). Secrets are
removed afterwards by the provider (:mod:`.redaction`).

``is_context_length(text, code)`` recognises the "request too long for the model's context" rejections of the
common OpenAI-compatible servers: OpenAI (``context_length_exceeded``, "maximum context length"), vLLM ("maximum
model length", "maximum context length"), llama.cpp ("exceeds the available context size",
``exceed_context_size_error``), Ollama ("prompt too long; exceeded max context length", "input length exceeds the
context length").
"""

from __future__ import annotations

import re

from ..engine.errors import ProviderError, ProviderErrorKind
from ..engine.wire import ADVICE as WIRE_ADVICE

ADVICE: dict[ProviderErrorKind, str] = {
    "auth": "Check OPENAI_API_KEY (or the api_key you passed), then retry.",
    "permission": "Check the key's project, organization and model permissions.",
    "not-found": "Check the model name and the base URL.",
    "bad-request": "Check the request options or edit the message, then retry.",
    "context-length": "Retry with a shorter history, or edit or remove the message.",
    "rate-limit": "Wait and retry, or check your plan and billing.",
    "server": "Retry later; if it keeps failing, check the server's logs.",
    "network": "Check your connection and the base URL, then retry.",
    "timeout": "Retry, or raise the timeout if the server is slow.",
    "incomplete": "Continue or retry.",
    "stream-error": "Continue or retry.",
    "bad-response": WIRE_ADVICE,
    "unknown": "Retry; if it keeps failing, check the server's logs.",
}
"""What to do, per kind: always one sentence."""

_CONTEXT_LENGTH = re.compile(
    r"context[ _]length[ _]exceeded|exceed_context_size|maximum context length|max(imum)? context length"
    r"|exceeds? the (available |maximum )?context (size|length|window)|maximum model length"
    r"|context (size|length|window) (has been |was |is )?exceeded|prompt (is )?too long"
    r"|input length exceeds|longer than the (maximum|model's) (context|model) length",
    re.IGNORECASE,
)
_CONTEXT_CODES = frozenset({"context_length_exceeded", "exceed_context_size_error", "string_above_max_length"})

_TRAILING = re.compile(r"[\s.!?;:,—–-]+$")
_SPACES = re.compile(r"\s+")


def one_sentence(text: str) -> str:
    """``text`` on one line, ending in exactly one full stop (or its own ``!``/``?``)."""
    line = _SPACES.sub(" ", text).strip()
    if not line:
        return ""
    end = line[-1] if line[-1] in "!?" else "."
    stripped = _TRAILING.sub("", line)
    return f"{stripped}{end}" if stripped else ""


def provider_error(kind: ProviderErrorKind, happened: str, *, status: int | None = None) -> ProviderError:
    """A ProviderError whose message is ``happened`` as one sentence, then the advice for ``kind``."""
    return ProviderError(f"{one_sentence(happened)} {ADVICE[kind]}", kind=kind, status=status)


def server_words(text: str) -> str:
    """A server's text made fit to sit inside our sentence: one line, without its closing punctuation."""
    return _TRAILING.sub("", _SPACES.sub(" ", text).strip())


def is_context_length(text: str, code: object = None) -> bool:
    """True when a server's error (text, or its ``code``/``type``) says the request is too long for the context."""
    return (isinstance(code, str) and code in _CONTEXT_CODES) or bool(_CONTEXT_LENGTH.search(text))
