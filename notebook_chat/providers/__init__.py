"""Providers: OpenAI Chat Completions and Responses (any compatible base URL) and the offline demo model.

The OpenAI providers are imported on first use of their names (PEP 562): the ``openai`` SDK costs about half a second
to import, and a notebook that only runs the :class:`DemoModel` (the demo, the tutorials, Binder) never needs it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .demo import DemoModel

if TYPE_CHECKING:
    from .openai_chat import OpenAIChat
    from .openai_responses import OpenAIResponses

__all__ = ["DemoModel", "OpenAIChat", "OpenAIResponses"]

_LAZY = {"OpenAIChat": ".openai_chat", "OpenAIResponses": ".openai_responses"}
"""Public name → the module that defines it (and imports the ``openai`` SDK)."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
