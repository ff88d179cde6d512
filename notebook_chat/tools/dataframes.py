"""``describe_dataframe``: shape, dtypes, non-null counts, first rows and ``describe()`` of a pandas DataFrame.

pandas is optional: it is imported only when the tool runs, and its absence is reported to the model.
"""

from __future__ import annotations

from typing import Any

from ..plugins.tool_definition import ToolResult
from .namespace import size_of, type_name
from .rich import tool_result

HEAD_ROWS = 5
MAX_COLUMNS = 30
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
    counts = frame.notna().sum()
    column_lines = [f"  {column}: {dtype}, {count} non-null"
                    for (column, dtype), count in zip(frame.dtypes.items(), counts.tolist(), strict=True)]
    sections = [
        f"DataFrame {name}: {rows} rows × {columns} columns",
        "Columns (dtype, non-null values):\n" + ("\n".join(column_lines) or "  (none)"),
        f"First {min(HEAD_ROWS, rows)} rows:\n" + head.to_string(max_cols=MAX_COLUMNS),
        "describe():\n" + _summary(frame),
    ]
    return "\n\n".join(sections)


def _summary(frame: Any) -> str:
    try:
        return str(frame.describe(include="all").to_string(max_cols=MAX_COLUMNS))
    except ValueError as error:  # e.g. a DataFrame without columns
        return f"(not available: {error})"
