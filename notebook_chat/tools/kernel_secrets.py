"""Credentials in the kernel stay out of what the model reads about it (``@name``, ``@error``, the kernel tools).

A notebook often holds a key: ``OPENAI_API_KEY = "sk-…"``, ``os.environ["HF_TOKEN"]``, a ``config`` dict with a
``password``. What the chat says about the kernel is sent to a model and, unless temp, stored in the notebook, so

- a variable whose *name* says it is a credential (``api_key``, ``HF_TOKEN``, ``db_password``, ``client_secret``,
  ``credentials`` …) is described by its type and size only: its value is withheld;
- every description passes :func:`kernel_redactor`, which knows the values of such variables and of such
  environment variables (so a key is masked inside a dict, a DataFrame or a traceback too), the credential-looking
  patterns of :mod:`notebook_chat.providers.redaction` (``sk-…``, ``Bearer …``, ``token=…``) and quoted
  ``'password': '…'`` / ``api_key="…"`` pairs as reprs and source lines show them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from typing import Any

from ..persistence.secrets import is_secret_key, normalize_key

SECRET_NAME_ENDINGS = ("apikey", "accesskey", "secretkey", "privatekey", "token", "secret", "password", "passwd",
                       "pwd", "passphrase", "credential", "credentials", "authorization", "cookie")
"""A name whose letters and digits (lower-cased) end like this names a credential."""

WITHHELD = "its value is withheld: the name says it is a credential, and credentials are never sent or stored"

_WORDS = r"(?:api[-_]?key|access[-_]?key|secret[-_]?key|private[-_]?key|token|secret|passw(?:or)?d|pwd|passphrase" \
         r"|credentials?|authorization|cookie)"
_QUOTED_PAIR = re.compile(
    r"(?P<key>['\"]?\b[\w.-]*" + _WORDS + r"['\"]?\s*[:=]\s*)(?P<quote>['\"])(?P<value>[^'\"\n]{1,1000})(?P=quote)",
    re.IGNORECASE)


def is_secret_name(name: str) -> bool:
    """True for ``api_key``, ``OPENAI_API_KEY``, ``hf_token``, ``db_password``, ``credentials``; not ``tokens``."""
    return is_secret_key(name) or normalize_key(name).endswith(SECRET_NAME_ENDINGS)


def kernel_redactor(namespace: Mapping[str, Any],
                    environ: Mapping[str, str] | None = None) -> Callable[[str], str]:
    """A function masking the kernel's credentials in a text (see the module docstring)."""
    from ..providers.redaction import MARK, Redactor  # lazily: only this function needs the providers

    secrets = [value for name, value in list(namespace.items())
               if type(name) is str and is_secret_name(name) and type(value) is str]  # type(): __class__ may lie
    secrets += [value for name, value in (os.environ if environ is None else environ).items() if is_secret_name(name)]
    redactor = Redactor(secrets)

    def redact(text: str) -> str:
        masked = _QUOTED_PAIR.sub(
            lambda m: m["key"] + m["quote"] + (m["value"] if MARK in m["value"] else MARK) + m["quote"], text)
        return redactor(masked)

    return redact


def redact_display(display: dict[str, Any] | None, redact: Callable[[str], str]) -> dict[str, Any] | None:
    """A rich bundle with each text entry redacted (images and other binary entries kept)."""
    if display is None:
        return None
    return {mime: redact(data) if isinstance(data, str) and not mime.startswith("image/") else data
            for mime, data in display.items()}
