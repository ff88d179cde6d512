"""What @name says about a kernel variable (and @error about the last exception)."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest

from notebook_chat.tools.last_error import NO_ERROR
from notebook_chat.tools.mention_source import NamespaceMentions


@pytest.fixture
def no_last_error(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delattr(sys, "last_value", raising=False)
    monkeypatch.delattr(sys, "last_exc", raising=False)
    return


def test_a_dataframe_is_described_by_its_schema_non_null_counts_and_first_rows(ns: dict[str, Any]) -> None:
    ns["sales"] = pd.DataFrame({"units": [1, 2, 3], "amount": [1.5, None, 3.0]})
    source = NamespaceMentions(ns)
    assert source.label("sales") == "pandas.DataFrame, shape (3, 2)"
    description = source.describe("sales")
    assert description is not None
    assert "DataFrame sales: 3 rows × 2 columns" in description.text
    assert "units: int64, 3 non-null" in description.text
    assert "amount: float64, 2 non-null" in description.text
    assert "First 3 rows:" in description.text
    assert description.display is not None
    assert "<table" in description.display["text/html"]


def test_a_series_is_described_as_a_one_column_frame(ns: dict[str, Any]) -> None:
    ns["prices"] = pd.Series([1, 2], name="price")
    description = NamespaceMentions(ns).describe("prices")
    assert description is not None
    assert "price: int64, 2 non-null" in description.text


@pytest.mark.parametrize("value", [
    list(range(100_000)),
    {f"k{i}": "v" * 500 for i in range(1000)},
    "x" * 1_000_000,
    [[[[[[1]]]]]] * 50,
    b"\x00" * 100_000,
])
def test_any_other_value_is_described_within_the_size_limit(ns: dict[str, Any], value: Any) -> None:
    ns["big"] = value
    description = NamespaceMentions(ns, max_chars=3000).describe("big")
    assert description is not None
    assert description.text.startswith(f"big: {type(value).__name__}, len {len(value)}")
    assert len(description.text) < 3200


def test_an_object_whose_repr_fails_is_still_described(ns: dict[str, Any]) -> None:
    class Broken:
        __qualname__ = "Broken"

        def __repr__(self) -> str:
            raise RuntimeError("no repr")

    ns["thing"] = Broken()
    source = NamespaceMentions(ns)
    assert source.label("thing") == "tests.Broken"
    description = source.describe("thing")
    assert description is not None
    assert description.text.startswith("thing: tests.Broken")


def test_a_function_is_described_by_its_source(ns: dict[str, Any]) -> None:
    def clean(frame: Any, *, drop: bool = True) -> Any:
        return frame.dropna() if drop else frame

    ns["clean"] = clean
    description = NamespaceMentions(ns).describe("clean")
    assert description is not None
    assert "return frame.dropna() if drop else frame" in description.text


def test_an_unknown_name_is_said_to_be_unknown(ns: dict[str, Any]) -> None:
    source = NamespaceMentions(ns)
    assert source.label("ghost") is None
    assert source.describe("ghost") is None
    assert source.unknown("ghost") == "@ghost: there is no variable named 'ghost' in the kernel's namespace."


def test_the_namespace_is_read_when_mentioned_not_when_the_source_is_made(ns: dict[str, Any]) -> None:
    source = NamespaceMentions(lambda: ns)
    ns["late"] = 1
    assert source.label("late") == "int"


def test_error_without_any_exception_is_unknown(ns: dict[str, Any], no_last_error: None) -> None:
    source = NamespaceMentions(ns)
    assert source.label("error") is None
    assert source.unknown("error") == NO_ERROR


def test_error_describes_the_last_exception_with_its_traceback(
        ns: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    def load(path: str) -> None:
        raise FileNotFoundError(f"no such file: {path}")

    try:
        load("data.csv")
    except FileNotFoundError as error:
        monkeypatch.setattr(sys, "last_value", error, raising=False)
    source = NamespaceMentions({"error": "a variable the mention does not mean"})
    assert source.label("error") == "FileNotFoundError: no such file: data.csv"
    description = source.describe("error")
    assert description is not None
    assert "Most recent exception in this kernel: FileNotFoundError" in description.text
    assert "Message: no such file: data.csv" in description.text
    assert 'load("data.csv")' in description.text
    assert "raise FileNotFoundError" in description.text


def _raise(*_args: Any, **_kwargs: Any) -> Any:
    raise RuntimeError("hostile")


HOSTILE_PARTS: dict[str, Any] = {
    "__repr__": _raise, "__str__": _raise, "__len__": _raise, "__getattr__": _raise, "__getattribute__": _raise,
    "__class__": property(_raise), "shape": property(_raise), "dtype": property(_raise), "columns": property(_raise),
    "__eq__": _raise, "__hash__": _raise, "__bool__": _raise, "__module__": 42,
}


def hostile_classes() -> list[Any]:
    """Every single hostile part, every pair of them, and all of them at once."""
    combos = [(part,) for part in HOSTILE_PARTS] + list(itertools.combinations(HOSTILE_PARTS, 2))
    combos.append(tuple(HOSTILE_PARTS))
    return [pytest.param(combo, id="+".join(combo) if len(combo) < 3 else "all") for combo in combos]


@pytest.mark.parametrize("parts", hostile_classes())
def test_an_object_hostile_to_inspection_is_offered_labelled_and_described_without_raising(
        ns: dict[str, Any], parts: tuple[str, ...]) -> None:
    ns["thing"] = type("Hostile", (), {part: HOSTILE_PARTS[part] for part in parts})()
    source = NamespaceMentions(ns)
    label = source.label("thing")
    assert label is not None
    assert label.startswith("Hostile") or label.startswith("tests.Hostile")
    assert [option["name"] for option in source.options("th")] in (["thing"], [])
    description = source.describe("thing")
    assert description is not None
    assert description.text.startswith("thing: ")
    assert len(description.text) <= 4200
