"""``describe_dataframe``: shape, dtypes, non-null counts, first rows and ``describe()`` of a pandas DataFrame.

The work is bounded for big frames (the text is cut for the model anyway): at most ``MAX_COLUMN_LINES`` column
lines, ``describe()`` of the first ``MAX_COLUMNS`` columns and, past ``SUMMARY_ROWS`` rows, of a fixed random sample
of that many rows — each time said in the text. Shape and non-null counts are always exact.

pandas is optional: it is imported only when the tool runs, and its absence is reported to the model.
"""

from __future__ import annotations

from typing import Any

from ..plugins.tool_definition import ToolResult
from .namespace import size_of, type_name
from .rich import tool_result

HEAD_ROWS = 5
MAX_COLUMNS = 30
MAX_COLUMN_LINES = 200
SUMMARY_ROWS = 100_000
PANDAS_MISSING = ("pandas is not installed in this kernel, so there is no DataFrame to describe "
                  "(install it with `pip install pandas`).")


def describe_dataframe(namespace: dict[str, Any], name: str, *, max_model_chars: int) -> ToolResult:
    """The tool's result for ``namespace[name]`` (a Series is described as a one-column DataFrame)."""
    if name not in namespace:
        return ToolResult.failure(f"no variable named {name!r} in the user's namespace "
                                  "(call list_variables to see which exist)")
    try:
        import pandas as pd
    except ImportError:
        return ToolResult.failure(PANDAS_MISSING)
    value = namespace[name]
    if isinstance(value, pd.Series):
        value = value.to_frame()
    if not isinstance(value, pd.DataFrame):
        size = size_of(value)
        what = type_name(value) + (f" ({size})" if size else "")
        return ToolResult(content=f"{name} is a {what}, not a pandas DataFrame: describe_dataframe describes "
                                  "DataFrames and Series only.")
    head = value.head(HEAD_ROWS)
    display = {"text/html": head.to_html(max_cols=MAX_COLUMNS)}
    return tool_result(_text(name, value, head), max_model_chars=max_model_chars, display=display)


def _text(name: str, frame: Any, head: Any) -> str:
    rows, columns = frame.shape
    listed = frame.iloc[:, :MAX_COLUMN_LINES]
    shown = list(zip(listed.dtypes.items(), listed.count().tolist(), strict=True))
    column_lines = [f"  {column}: {dtype}, {count} non-null" for (column, dtype), count in shown]
    if columns > MAX_COLUMN_LINES:
        column_lines.append(f"  … and {columns - MAX_COLUMN_LINES} more columns")
    sections = [
        f"DataFrame {name}: {rows} rows × {columns} columns",
        "Columns (dtype, non-null values):\n" + ("\n".join(column_lines) or "  (none)"),
        f"First {min(HEAD_ROWS, rows)} rows:\n" + head.to_string(max_cols=MAX_COLUMNS),
        _summary(frame),
    ]
    return "\n\n".join(sections)


def _summary(frame: Any) -> str:
    rows, columns = frame.shape
    scope = []
    if columns > MAX_COLUMNS:
        frame = frame.iloc[:, :MAX_COLUMNS]
        scope.append(f"the first {MAX_COLUMNS} of {columns} columns")
    if rows > SUMMARY_ROWS:
        import numpy as np  # pandas depends on it

        frame = frame.take(np.sort(np.random.default_rng(0).choice(rows, SUMMARY_ROWS, replace=False)))
        scope.append(f"a random sample of {SUMMARY_ROWS} of {rows} rows")
    title = "describe()" + (f" of {' and '.join(scope)}" if scope else "") + ":\n"
    try:
        return title + str(frame.describe(include="all").to_string(max_cols=MAX_COLUMNS))
    except ValueError as error:  # e.g. a DataFrame without columns
        return f"{title}(not available: {error})"
