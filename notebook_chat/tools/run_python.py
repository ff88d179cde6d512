"""``run_python``: run code in the user's namespace the way a notebook cell does, and describe what happened.

All statements but the last run with ``exec``; a last expression is evaluated and becomes the result (a trailing
``;`` hides it, as in IPython). The code runs synchronously in the calling thread — the kernel's, where the user's
objects live — with stdout and stderr captured and a time limit (see :mod:`.deadline` for how and why). Errors come
back as a failed result holding the traceback; nothing a user's code raises escapes, except ``asyncio`` cancellation.
"""

from __future__ import annotations

import ast
import io
import itertools
import linecache
import sys
import traceback
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from types import CodeType
from typing import Any

from ..plugins.tool_definition import ToolResult
from . import figures
from .deadline import TimeLimitExceeded, time_limit
from .rich import tool_result

NO_VALUE: Any = object()
TABLE_ROWS = 30
TABLE_COLUMNS = 20
HTML_ROWS = 60
_RUNS = itertools.count(1)


@dataclass(frozen=True)
class Execution:
    stdout: str = ""
    stderr: str = ""
    value: Any = NO_VALUE
    error: str | None = None
    """``"ZeroDivisionError: division by zero"`` when the code failed."""
    traceback: str | None = None
    timed_out: bool = False


def execute(code: str, namespace: dict[str, Any], *, seconds: float | None) -> Execution:
    """Run ``code`` in ``namespace`` like a cell; ``seconds`` limits its running time (None: no limit)."""
    filename = f"<run_python-{next(_RUNS)}>"
    try:
        body, last = _compile(code, filename)
    except (SyntaxError, ValueError) as error:  # ValueError: source with null bytes
        text = "".join(traceback.format_exception_only(type(error), error))
        return Execution(error=_one_line(error), traceback=text)
    linecache.cache[filename] = (len(code), None, code.splitlines(keepends=True), filename)
    stdout, stderr = io.StringIO(), io.StringIO()
    value = NO_VALUE
    try:
        with redirect_stdout(stdout), redirect_stderr(stderr), time_limit(seconds):
            exec(body, namespace)
            if last is not None:
                value = eval(last, namespace)
    except (Exception, KeyboardInterrupt, SystemExit, TimeLimitExceeded) as error:
        text = _format_traceback(error, filename)
        timed_out = isinstance(error, TimeLimitExceeded) and seconds is not None
        summary = f"TimeLimitExceeded: stopped after {seconds:g} s (the time limit)" if timed_out else _one_line(error)
        return Execution(stdout.getvalue(), stderr.getvalue(), error=summary, traceback=text, timed_out=timed_out)
    return Execution(stdout.getvalue(), stderr.getvalue(), value)


def run_python(code: str, namespace: dict[str, Any], *, seconds: float | None, max_model_chars: int) -> ToolResult:
    """The tool's result: stdout, stderr, the last value or the traceback, figures as PNG for the user."""
    before = figures.open_figure_numbers()
    run = execute(code, namespace, seconds=seconds)
    images = figures.take_new_figures(before, run.value)
    sections = [f"{label}:\n{text.rstrip()}" for label, text in (("stdout", run.stdout), ("stderr", run.stderr))
                if text]
    display: dict[str, Any] = {}
    if run.traceback is not None:
        sections.append(run.traceback.rstrip())
        if run.timed_out:
            sections.append("Changes made before the stop stay in the namespace.")
    elif run.value is not NO_VALUE and run.value is not None and not figures.is_plot_object(run.value):
        text, html = _value_text(run.value)
        sections.append(f"result:\n{text}")
        if html is not None:
            display["text/html"] = html
    rendered = [image for image in images if isinstance(image, figures.RenderedFigure)]
    sections += [image for image in images if isinstance(image, str)]
    if rendered:
        pngs = [image.png_base64 for image in rendered]
        display["image/png"] = pngs[0] if len(pngs) == 1 else pngs
        sections.append(figures.summary(rendered))
    text = "\n\n".join(sections) or "Done: no output and no result."
    return tool_result(text, max_model_chars=max_model_chars, display=display,
                       ok=run.error is None, error=run.error)


def _compile(code: str, filename: str) -> tuple[CodeType, CodeType | None]:
    tree = ast.parse(code, filename, mode="exec")
    last = None
    final = tree.body[-1] if tree.body else None
    if isinstance(final, ast.Expr) and not code.rstrip().endswith(";"):
        tree.body.pop()
        expression = ast.Expression(final.value)
        last = compile(expression, filename, "eval")
    return compile(tree, filename, "exec"), last


def _format_traceback(error: BaseException, filename: str) -> str:
    """The traceback from the first frame of the user's code on (this module's frames are noise to the reader)."""
    start = tb = error.__traceback__
    while start is not None and start.tb_frame.f_code.co_filename != filename:
        start = start.tb_next
    return "".join(traceback.format_exception(type(error), error, start if start is not None else tb))


def _one_line(error: BaseException) -> str:
    message = str(error)
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def _value_text(value: Any) -> tuple[str, str | None]:
    """The model's text of a result and, for a DataFrame, an HTML table for the user."""
    pandas = sys.modules.get("pandas")
    if pandas is not None and isinstance(value, pandas.DataFrame):
        text = value.to_string(max_rows=TABLE_ROWS, max_cols=TABLE_COLUMNS, show_dimensions=True)
        html = value.to_html(max_rows=HTML_ROWS, max_cols=TABLE_COLUMNS, show_dimensions=True)
        return text, html
    try:
        return repr(value), None
    except Exception as error:  # a broken __repr__ is the user's, not a failed run
        return f"<{type(value).__name__} object: repr failed with {_one_line(error)}>", None
