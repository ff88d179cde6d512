"""Remove credentials from a text before it is stored or shown (error messages, the turn log, notices).

A server's error body may echo what it received: the API key ("Incorrect API key provided: sk-…"), an
``Authorization`` header, a key passed in the base URL's query. :class:`Redactor` replaces

- every secret it was given, exactly (and URL-encoded): the client's API key, the values of its credential headers
  (``Authorization``, ``Proxy-Authorization``, ``api-key``, ``x-api-key``, any header whose name holds "key", "token"
  or "secret"; a ``Bearer``/``Basic``/``Token`` scheme word is kept), the user name, password and every query value
  of the base URL, and the client's default query values;
- and, whoever they belong to, tokens that look like credentials: ``Bearer <token>`` / ``Basic <token>``,
  ``sk-…`` keys, and ``key=…`` / ``token=…`` / ``password=…`` / ``secret=…`` query or form values.

A secret becomes its first three characters and ``…REDACTED`` (``sk-…REDACTED``) when it is at least 12 characters
long, else ``REDACTED``. Secrets shorter than 4 characters are not searched for (they would blank ordinary words).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlsplit

MARK = "REDACTED"
MIN_SECRET = 4

_CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "api-key", "x-api-key", "cookie"})
_CREDENTIAL_WORDS = ("key", "token", "secret", "password", "auth")
_SCHEME = re.compile(r"^\s*(bearer|basic|token|apikey)\s+", re.IGNORECASE)

_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=:\-]{6,}", re.IGNORECASE), r"\1 …" + MARK),
    (re.compile(r"\b(sk-|sk_|pk-|rk-)(?!…" + MARK + r")[A-Za-z0-9_\-*.]{8,}"), r"\1…" + MARK),
    (re.compile(
        r"\b([\w-]*(?:api[-_]?key|token|password|passwd|secret|signature|sig)=)(?!…?" + MARK + r")[^&\s\"'<>,;]+",
        re.IGNORECASE),
     r"\1" + MARK),
)


def mask(secret: str) -> str:
    """``sk-…REDACTED`` for a long secret, ``REDACTED`` for a short one."""
    return f"{secret[:3]}…{MARK}" if len(secret) >= 12 else MARK


def _is_credential_header(name: str) -> bool:
    lowered = name.lower()
    return lowered in _CREDENTIAL_HEADERS or any(word in lowered for word in _CREDENTIAL_WORDS)


def header_secrets(headers: Mapping[str, Any]) -> list[str]:
    """The values of credential headers, without a scheme word (``Bearer X`` gives ``X``)."""
    return [_SCHEME.sub("", value) for name, value in headers.items()
            if isinstance(name, str) and isinstance(value, str) and _is_credential_header(name)]


def url_secrets(url: str) -> list[str]:
    """User name, password (as written and percent-decoded: a server echoes what it received) and every query
    value of a URL."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    found = [value for value in (parts.username, parts.password) if value]
    found += [unquote(value) for value in found]
    found += [value for _, value in parse_qsl(parts.query, keep_blank_values=False)]
    return found


class Redactor:
    """``redactor(text)`` is ``text`` with every secret given and every credential-looking token replaced."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        unique = {s.strip() for s in secrets if isinstance(s, str) and len(s.strip()) >= MIN_SECRET}
        variants = {variant for s in unique for variant in (s, quote(s, safe=""))}
        self._secrets = sorted(variants, key=len, reverse=True)  # the longest first: a key inside a header value

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, mask(secret))
        for pattern, replacement in _PATTERNS:
            text = pattern.sub(replacement, text)
        return text

    @classmethod
    def for_client(cls, client: Any) -> Redactor:
        """The secrets an ``openai.AsyncOpenAI`` holds: key, credential headers, base-URL credentials and query."""
        secrets: list[str] = []
        api_key = getattr(client, "api_key", None)
        if isinstance(api_key, str):
            secrets.append(api_key)
        headers = getattr(client, "default_headers", None)
        if isinstance(headers, Mapping):
            secrets += header_secrets(headers)
        query = getattr(client, "default_query", None)
        if isinstance(query, Mapping):
            secrets += [value for value in query.values() if isinstance(value, str)]
        secrets += url_secrets(str(getattr(client, "base_url", "") or ""))
        return cls(secrets)
