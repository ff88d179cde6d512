"""``kernel()``: the kernel-aware tools, bound to one namespace (the live user namespace by default)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..plugins.tool_definition import Tool, ToolResult, tool
from . import dataframes, last_error, run_python
from . import namespace as names
from .kernel_secrets import kernel_redactor, redact_display
from .rich import tool_result

RUN_PYTHON_DESCRIPTION = (
    "Run Python code in the user's live session (the notebook's namespace), like a notebook cell: variables you "
    "assign stay defined. Returns stdout, stderr and the value of the last expression, or the traceback. "
    "Matplotlib figures you create are shown to the user as images (do not call plt.show()). "
    "{limit}"
)


def kernel(
    namespace: dict[str, Any] | None = None,
    *,
    run_python_approval: bool = True,
    time_limit: float | None = 30.0,
    max_model_chars: int = 4000,
) -> list[Tool]:
    """``list_variables``, ``describe_dataframe``, ``last_error`` and ``run_python`` working on ``namespace``.

    ``namespace`` defaults to the IPython user namespace when called inside a kernel, else ``__main__.__dict__``.
    ``run_python`` waits for the user's approval unless ``run_python_approval=False``; ``time_limit`` (seconds, None
    for none) stops code that runs too long; tool texts longer than ``max_model_chars`` are truncated for the model
    (the user still sees all of it).
    """
    ns = names.default_namespace() if namespace is None else namespace
    if not isinstance(ns, dict):
        raise TypeError(f"kernel(namespace) needs a dict (the globals code runs in), got {type(ns).__name__}")
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time_limit must be a positive number of seconds or None, got {time_limit!r}")
    if isinstance(max_model_chars, bool) or not isinstance(max_model_chars, int) or max_model_chars < 1:
        raise ValueError(f"max_model_chars must be a positive int, got {max_model_chars!r}")

    @tool(name="list_variables")
    def list_variables() -> ToolResult:
        """List the variables of the user's live Python session: name, type, shape or length, and a short preview."""
        return tool_result(kernel_redactor(ns)(names.variables_text(ns)), max_model_chars=max_model_chars)

    @tool(name="describe_dataframe")
    def describe_dataframe(name: str) -> ToolResult:
        """Describe a pandas DataFrame of the user's session: shape, dtypes, non-null counts, first rows, describe().

        Args:
            name: The variable name of the DataFrame (see list_variables).
        """
        result = dataframes.describe_dataframe(ns, name, max_model_chars=max_model_chars)
        redact = kernel_redactor(ns)
        return replace(result, content=redact(result.content), display=redact_display(result.display, redact))

    @tool(name="last_error")
    def last_error_() -> ToolResult:
        """The most recent exception raised in the user's session (a failed cell): type, message, traceback."""
        error = last_error.last_exception()
        if error is None:
            return ToolResult(content=last_error.NO_ERROR)
        return ToolResult(content=kernel_redactor(ns)(last_error.describe_error(error, max_chars=max_model_chars)))

    limit = "There is no time limit." if time_limit is None else f"The code is stopped after {time_limit:g} seconds."

    @tool(name="run_python", approval=run_python_approval, description=RUN_PYTHON_DESCRIPTION.format(limit=limit))
    def run_python_(code: str) -> ToolResult:
        """Run Python code in the user's namespace.

        Args:
            code: Python source; the value of a last expression is returned.
        """
        return run_python.run_python(code, ns, seconds=time_limit, max_model_chars=max_model_chars)

    return [list_variables, describe_dataframe, last_error_, run_python_]
