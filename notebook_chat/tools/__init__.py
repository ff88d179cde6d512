"""Kernel-aware tools: ``Chat(tools=notebook_chat.tools.kernel())`` lets the model see and (with approval) work on
the user's live variables. Importing this package imports neither IPython, pandas nor matplotlib."""

from __future__ import annotations

from .deadline import TimeLimitExceeded
from .kernel import kernel
from .rich import TRUNCATION_NOTE, tool_result

__all__ = ["TRUNCATION_NOTE", "TimeLimitExceeded", "kernel", "tool_result"]
