"""The most recent exception of this kernel: what ``last_error`` returns and ``@error`` describes.

IPython records the exception a cell raised in ``sys.last_value`` (``sys.last_exc`` on Python 3.12+), as the plain
interpreter does. The traceback is trimmed for the reader: IPython's own frames at the top are dropped, and a long
traceback keeps its first frames and its end (where the error is), up to ``max_chars``.
"""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path
from types import TracebackType

from ..engine.notices import Notice

NO_ERROR = Notice("mentions.no_error")
"""Said to the model (a tool result, in English) and to the person whose @error found nothing."""
TRIMMED = "[… {count} characters of the traceback trimmed …]"
INTERNAL_PACKAGES = ("IPython", "ipykernel", "asyncio")


def last_exception() -> BaseException | None:
    """The exception the last failed cell (or interactive statement) raised, if any."""
    error = getattr(sys, "last_exc", None) or getattr(sys, "last_value", None)
    return error if isinstance(error, BaseException) else None


def describe_error(error: BaseException, *, max_chars: int = 4000) -> str:
    """Type, message and the trimmed traceback of ``error``."""
    message = str(error)
    header = f"{type(error).__module__}.{type(error).__qualname__}".removeprefix("builtins.")
    lines = [f"Most recent exception in this kernel: {header}", f"Message: {message or '(none)'}"]
    text = "".join(traceback.format_exception(type(error), error, _user_frames(error.__traceback__)))
    lines.append(_trim(text, max_chars))
    return "\n".join(lines)


def _user_frames(tb: TracebackType | None) -> TracebackType | None:
    """``tb`` from the first frame that is not IPython's, ipykernel's or asyncio's own (all of it if none is)."""
    internal = _internal_folders()
    start = tb
    while start is not None and start.tb_frame.f_code.co_filename.startswith(internal):
        start = start.tb_next
    return start if start is not None else tb


def _internal_folders() -> tuple[str, ...]:
    folders = []
    for name in INTERNAL_PACKAGES:
        file = getattr(sys.modules.get(name), "__file__", None)
        if isinstance(file, str):
            folders.append(str(Path(file).parent) + os.sep)
    return tuple(folders)


def _trim(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text.rstrip()
    head = max_chars // 4
    tail = max_chars - head
    cut = len(text) - head - tail
    return f"{text[:head]}\n{TRIMMED.format(count=cut)}\n{text[-tail:]}".rstrip()
