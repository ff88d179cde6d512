"""What ``@name`` means in a kernel: a variable of the user's namespace, or ``@error``, the last exception.

A DataFrame (or Series) is described like ``describe_dataframe`` does (shape, dtypes, non-null counts, first rows,
``describe()``, the first rows as an HTML table for the card); a function or class by its source; anything else by
its type, size and a bounded repr. A credential's value is never described (:mod:`.kernel_secrets`). ``@error``
always means the most recent exception (a variable named ``error`` is
shadowed for mentions).
"""

from __future__ import annotations

import inspect
import reprlib
import sys
from collections.abc import Callable
from typing import Any

from ..engine.notices import Notice
from ..plugins.mentions import Description
from . import dataframes, last_error
from . import namespace as names
from .kernel_secrets import is_secret_name, kernel_redactor, redact_display
from .rich import truncate_for_model

ERROR_MENTION = "error"
REPR_CHARS = 2000

_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = REPR_CHARS
_REPR.maxlist = _REPR.maxtuple = _REPR.maxset = _REPR.maxfrozenset = _REPR.maxdeque = _REPR.maxarray = 30
_REPR.maxdict = 20
_REPR.maxlevel = 3


class NamespaceMentions:
    """A :class:`~notebook_chat.plugins.mentions.MentionSource` over a namespace (or a function returning one)."""

    def __init__(self, namespace: dict[str, Any] | Callable[[], dict[str, Any]], *, max_chars: int = 4000) -> None:
        self._namespace = namespace
        self.max_chars = max_chars

    @property
    def namespace(self) -> dict[str, Any]:
        return self._namespace() if callable(self._namespace) else self._namespace

    def label(self, name: str) -> str | None:
        if name == ERROR_MENTION:
            error = last_error.last_exception()
            if error is None:
                return None
            text = _safe(lambda: f"{type(error).__name__}: {error}", type(error).__name__)
            return _one_line(kernel_redactor(self.namespace)(text), 80)
        namespace = self.namespace
        if name not in namespace:
            return None
        value = namespace[name]
        size = _safe(lambda: names.size_of(value), None)
        return _type_name(value) + (f", {size}" if size else "")

    def describe(self, name: str) -> Description | None:
        namespace = self.namespace
        if name == ERROR_MENTION:
            error = last_error.last_exception()
            description = None if error is None else Description(
                last_error.describe_error(error, max_chars=self.max_chars))
        else:
            description = describe_value(name, namespace[name], max_chars=self.max_chars) if name in namespace else None
        if description is None:
            return None
        redact = kernel_redactor(namespace)
        return Description(redact(description.text), redact_display(description.display, redact))

    def options(self, prefix: str, *, limit: int = 20) -> list[dict[str, Any]]:
        """What the composer offers after ``@prefix``: DataFrames first (with their shape), then the other user
        variables, then ``error`` when an exception exists; names starting with ``prefix`` (case-insensitive)."""
        namespace = self.namespace
        wanted = prefix.lower()
        found = [(name, value) for name, value in list(namespace.items())
                 if name.lower().startswith(wanted) and _is_user_variable(name, value, namespace)]
        frames = [name for name, value in found if _type_name(value) == "pandas.DataFrame"]
        ordered = frames + [name for name, _ in found if name not in frames]
        options = [{"name": name, "label": self.label(name) or "", "dataframe": name in frames}
                   for name in ordered[:limit]]
        error_label = self.label(ERROR_MENTION) if ERROR_MENTION.startswith(wanted) else None
        if error_label is not None and len(options) < limit and ERROR_MENTION not in namespace:
            options.append({"name": ERROR_MENTION, "label": error_label, "dataframe": False})
        return options

    def unknown(self, name: str) -> str:
        if name == ERROR_MENTION:
            return last_error.NO_ERROR
        return Notice("mentions.unknown", name=name)


def describe_value(name: str, value: Any, *, max_chars: int) -> Description:
    """The text the model reads about ``value`` (and a rich bundle for a DataFrame's card); never raises."""
    try:
        return _describe_value(name, value, max_chars=max_chars)
    except Exception as error:  # an object hostile to inspection (its __class__, __getattribute__... raise)
        kind = _type_name(value)
        return Description(f"{name}: {kind}\n\n(it could not be described: {type(error).__name__})")


def _describe_value(name: str, value: Any, *, max_chars: int) -> Description:
    pandas = sys.modules.get("pandas")
    if pandas is not None and isinstance(value, (pandas.DataFrame, pandas.Series)):
        result = dataframes.describe_dataframe({name: value}, name, max_model_chars=max_chars)
        return Description(result.content, result.display)
    header = names.describe_variable(name, value)
    if is_secret_name(name):
        return Description(header)
    body = _safe(lambda: _body(value), None) or "(its repr failed)"
    text, _ = truncate_for_model(f"{header}\n\n{body}", max_chars)
    return Description(text)


def _body(value: Any) -> str:
    if inspect.isfunction(value) or inspect.isclass(value):
        try:
            return "Source:\n" + inspect.getsource(value).rstrip()
        except (OSError, TypeError):
            pass
    return "repr (bounded):\n" + _REPR.repr(value)


def _is_user_variable(name: str, value: Any, namespace: dict[str, Any]) -> bool:
    try:
        return names.is_user_variable(name, value, namespace)
    except Exception:  # an object that breaks inspection is not offered
        return False


def _type_name(value: Any) -> str:
    name: str = _safe(lambda: names.type_name(value), "object")
    return name


def _safe(compute: Callable[[], Any], fallback: Any) -> Any:
    try:
        return compute()
    except Exception:  # a user object whose attributes or repr fail is described without them
        return fallback


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
