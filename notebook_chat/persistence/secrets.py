"""Refuse credentials before anything is persisted: a record must never carry an API key or an auth header."""

from __future__ import annotations

import re
from typing import Any

from notebook_chat.persistence.errors import SecretError
from notebook_chat.persistence.jsonsafe import field_path, to_json_value

SECRET_KEYS: frozenset[str] = frozenset(
    {
        "apikey",
        "xapikey",
        "authorization",
        "proxyauthorization",
        "bearer",
        "bearertoken",
        "accesstoken",
        "refreshtoken",
        "idtoken",
        "authtoken",
        "sessiontoken",
        "clientsecret",
        "secretkey",
        "secretaccesskey",
        "privatekey",
        "password",
        "passwd",
        "cookie",
        "setcookie",
    }
)
"""Object keys refused anywhere, compared lower-cased with everything but letters and digits removed."""

ID_MAPS: frozenset[str] = frozenset({"tool_calls", "call_hashes"})
"""Keys whose object maps ids (tool-call ids a model or server chose) to data: those ids are not field names, so an
id spelled like a credential key (``"password"``) is not refused; what they map to is scanned as usual."""

BEARER = re.compile(r"^\s*(bearer|basic|token)\s+\S{8,}", re.IGNORECASE)


def normalize_key(key: str) -> str:
    return "".join(ch for ch in key.lower() if ch.isalnum())


def is_secret_key(key: str) -> bool:
    """True for `api_key`, `OPENAI_API_KEY`, `Authorization`, `x-api-key`, `client_secret`, ..."""
    normal = normalize_key(key)
    return normal in SECRET_KEYS or normal.endswith("apikey")


def assert_no_secrets(value: Any, path: str = "$") -> None:
    """Raise `SecretError` naming the path of the first credential-looking key.

    Keys are checked everywhere; values only inside a `headers` object (`Bearer ...`, `Basic ...`), so a user
    who writes the word "authorization" in a message is never refused. A value that is not strict JSON raises
    `SerializationError` first.
    """
    _scan(to_json_value(value, path), path, in_headers=False)


def _scan(value: Any, path: str, *, in_headers: bool, keys_are_ids: bool = False) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            child = field_path(path, key)
            if not keys_are_ids and is_secret_key(key):
                raise SecretError(
                    child, f"the key {key!r} looks like a credential; secrets are never persisted"
                )
            headers = in_headers or normalize_key(key).endswith("headers")
            _scan(item, child, in_headers=headers, keys_are_ids=key in ID_MAPS and isinstance(item, dict))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _scan(item, field_path(path, index), in_headers=in_headers)
    elif in_headers and isinstance(value, str) and BEARER.match(value):
        raise SecretError(path, "a header value carries a token; secrets are never persisted")
