from __future__ import annotations

import math
import typing
from typing import Any

import numpy as np
import pandas as pd

from .conftest import call


async def test_lists_a_dataframe_with_its_shape_and_columns(ns: dict[str, Any]) -> None:
    ns["sales"] = pd.DataFrame({"region": ["n", "s", "e"], "amount": [1.5, 2.0, 3.25]})
    result = await call(ns, "list_variables")
    assert result.ok
    assert "sales: pandas.DataFrame, shape (3, 2) — columns: region (str), amount (float64)" in result.content


async def test_lists_lengths_of_containers_and_shapes_of_arrays(ns: dict[str, Any]) -> None:
    ns.update(names=["a", "b"], table={"k": 1}, grid=np.zeros((2, 4)), prices=pd.Series([1, 2, 3], name="p"))
    lines = (await call(ns, "list_variables")).content.splitlines()
    assert lines[0] == "4 variables in the user's namespace:"
    assert lines[1] == "names: list, len 2 — ['a', 'b']"
    assert lines[2] == "table: dict, len 1 — {'k': 1}"
    assert lines[3] == "grid: numpy.ndarray, shape (2, 4) — dtype float64"
    assert lines[4] == "prices: pandas.Series, shape (3,) — dtype int64, name 'p'"


async def test_hides_private_names_modules_imports_and_ipython_entries(ns: dict[str, Any]) -> None:
    ns.update(_hidden=1, __builtins__={}, np=np, math=math, sqrt=math.sqrt, Any=typing.Any, DataFrame=pd.DataFrame,
              In=[""], Out={}, exit=object(), quit=object(), get_ipython=lambda: None, kept=42)
    result = await call(ns, "list_variables")
    assert result.content == "1 variable in the user's namespace:\nkept: int — 42"


async def test_keeps_functions_and_classes_defined_in_the_namespace(ns: dict[str, Any]) -> None:
    exec("def scale(x, factor=2):\n    return x * factor\nclass Point:\n    pass", ns)
    lines = (await call(ns, "list_variables")).content.splitlines()
    assert lines[1:] == ["scale: function — def scale(x, factor=2)", "Point: type — class Point"]


async def test_cuts_long_previews_to_one_short_line(ns: dict[str, Any]) -> None:
    ns["text"] = "word " * 500 + "\nsecond line"
    line = (await call(ns, "list_variables")).content.splitlines()[1]
    assert line.startswith("text: str, len 2512 — 'word word")
    assert len(line) < 120


async def test_an_object_whose_repr_fails_is_still_listed(ns: dict[str, Any]) -> None:
    exec("class Broken:\n    def __repr__(self):\n        raise RuntimeError('no repr')\nbroken = Broken()", ns)
    ns["fine"] = 1
    lines = (await call(ns, "list_variables")).content.splitlines()
    assert lines[2].startswith("broken: Broken — <Broken instance at 0x")
    assert lines[3] == "fine: int — 1"


async def test_says_so_when_the_namespace_is_empty(ns: dict[str, Any]) -> None:
    result = await call(ns, "list_variables")
    assert result.content == "The user's namespace has no variables yet."
