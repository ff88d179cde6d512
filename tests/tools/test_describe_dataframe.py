from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pandas as pd
import pytest

from notebook_chat.tools import TRUNCATION_NOTE
from notebook_chat.tools.dataframes import MAX_COLUMN_LINES, MAX_COLUMNS, SUMMARY_ROWS

from .conftest import call


@pytest.fixture
def sales(ns: dict[str, Any]) -> dict[str, Any]:
    ns["sales"] = pd.DataFrame({
        "region": ["north", "south", "east", "west", "north", "south"],
        "amount": [10.0, 20.0, None, 40.0, 50.0, 60.0],
    })
    return ns


async def test_describes_shape_dtypes_non_null_counts_head_and_summary(sales: dict[str, Any]) -> None:
    result = await call(sales, "describe_dataframe", {"name": "sales"})
    assert result.ok
    sections = result.content.split("\n\n")
    assert sections[0] == "DataFrame sales: 6 rows × 2 columns"
    assert sections[1] == "Columns (dtype, non-null values):\n  region: str, 6 non-null\n  amount: float64, 5 non-null"
    assert sections[2] == "First 5 rows:\n" + sales["sales"].head().to_string()
    assert sections[3] == "describe():\n" + sales["sales"].describe(include="all").to_string()


async def test_shows_the_user_the_first_rows_as_an_html_table(sales: dict[str, Any]) -> None:
    result = await call(sales, "describe_dataframe", {"name": "sales"})
    assert result.display == {"text/html": sales["sales"].head().to_html()}


async def test_a_series_is_described_as_a_one_column_frame(ns: dict[str, Any]) -> None:
    ns["ages"] = pd.Series([30, 41], name="age")
    result = await call(ns, "describe_dataframe", {"name": "ages"})
    assert result.content.startswith("DataFrame ages: 2 rows × 1 columns\n\nColumns (dtype, non-null values):\n"
                                     "  age: int64, 2 non-null")


async def test_a_missing_name_is_a_failed_call_that_points_to_list_variables(ns: dict[str, Any]) -> None:
    result = await call(ns, "describe_dataframe", {"name": "nope"})
    assert not result.ok
    assert result.error == "no variable named 'nope' in the user's namespace (call list_variables to see which exist)"


async def test_a_variable_that_is_not_a_dataframe_gets_a_clear_answer(ns: dict[str, Any]) -> None:
    ns["rows"] = [1, 2, 3]
    result = await call(ns, "describe_dataframe", {"name": "rows"})
    assert result.content == ("rows is a list (len 3), not a pandas DataFrame: describe_dataframe describes "
                              "DataFrames and Series only.")


async def test_says_pandas_is_not_installed_when_it_cannot_be_imported(
        ns: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    ns["rows"] = [1, 2, 3]
    monkeypatch.setitem(sys.modules, "pandas", None)  # `import pandas` now raises ImportError
    result = await call(ns, "describe_dataframe", {"name": "rows"})
    assert not result.ok
    assert result.error == ("pandas is not installed in this kernel, so there is no DataFrame to describe "
                            "(install it with `pip install pandas`).")


async def test_a_frame_without_columns_is_described_without_a_summary(ns: dict[str, Any]) -> None:
    ns["empty"] = pd.DataFrame(index=[0, 1])
    result = await call(ns, "describe_dataframe", {"name": "empty"})
    assert result.ok
    assert result.content.startswith("DataFrame empty: 2 rows × 0 columns\n\nColumns (dtype, non-null values):\n"
                                     "  (none)")
    assert "describe():\n(not available: " in result.content


async def test_a_wide_frame_is_truncated_for_the_model_but_kept_whole_for_the_user(ns: dict[str, Any]) -> None:
    ns["wide"] = pd.DataFrame({f"column_{i}": range(20) for i in range(40)})
    result = await call(ns, "describe_dataframe", {"name": "wide"}, max_model_chars=500)
    full = result.display["text/plain"] if result.display else ""
    assert full.startswith("DataFrame wide: 20 rows × 40 columns")
    assert result.content == full[:500] + "\n" + TRUNCATION_NOTE.format(count=len(full) - 500)
    assert result.display is not None
    assert "text/html" in result.display


async def test_a_very_wide_frame_lists_its_first_columns_and_summarizes_only_the_first_thirty(
        ns: dict[str, Any]) -> None:
    ns["wide"] = pd.DataFrame(np.arange(3 * 5000).reshape(3, 5000).astype(float))
    result = await call(ns, "describe_dataframe", {"name": "wide"}, max_model_chars=10**7)
    sections = result.content.split("\n\n")
    assert sections[0] == "DataFrame wide: 3 rows × 5000 columns"
    lines = sections[1].splitlines()
    assert len(lines) == 1 + MAX_COLUMN_LINES + 1
    assert lines[-1] == f"  … and {5000 - MAX_COLUMN_LINES} more columns"
    assert sections[3].startswith(f"describe() of the first {MAX_COLUMNS} of 5000 columns:\n")
    assert sections[3].endswith(ns["wide"].iloc[:, :MAX_COLUMNS].describe().to_string(max_cols=MAX_COLUMNS))


async def test_a_very_tall_frame_keeps_exact_counts_and_summarizes_a_stated_sample(ns: dict[str, Any]) -> None:
    rows = SUMMARY_ROWS * 3
    values = np.arange(rows, dtype=float)
    values[::2] = np.nan
    ns["tall"] = pd.DataFrame({"value": values})
    result = await call(ns, "describe_dataframe", {"name": "tall"})
    sections = result.content.split("\n\n")
    assert sections[1] == f"Columns (dtype, non-null values):\n  value: float64, {rows // 2} non-null"
    summary = sections[3]
    assert summary.startswith(f"describe() of a random sample of {SUMMARY_ROWS} of {rows} rows:\n")
    sampled_count = float(summary.splitlines()[2].split()[-1])
    assert abs(sampled_count - SUMMARY_ROWS / 2) < SUMMARY_ROWS * 0.02  # about half the sample is missing


async def test_describing_the_same_big_frame_twice_gives_the_same_text(ns: dict[str, Any]) -> None:
    ns["tall"] = pd.DataFrame({"value": np.random.default_rng(1).random(SUMMARY_ROWS * 2)})
    first = await call(ns, "describe_dataframe", {"name": "tall"})
    second = await call(ns, "describe_dataframe", {"name": "tall"})
    assert first.content == second.content
