from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from notebook_chat.persistence import SerializationError, dumps_canonical, loads_strict, to_json_value


class Opaque:
    pass


@pytest.mark.parametrize(
    ("value", "path", "type_name"),
    [
        ({"custom_context": {"rows": [0, 1, 2, lambda: 3]}}, "$.custom_context.rows[3]", "function"),
        ({"ratio": math.nan}, "$.ratio", "float nan"),
        ({"limit": math.inf}, "$.limit", "float inf"),
        ({"data": b"raw"}, "$.data", "bytes"),
        ({"tags": {"a", "b"}}, "$.tags", "set"),
        ({"frame": Opaque()}, "$.frame", "Opaque"),
        ({"odd key": [print]}, '$["odd key"][0]', "builtin_function_or_method"),
    ],
)
def test_each_serialization_failure_names_the_field_path_and_the_type(
    value: Any, path: str, type_name: str
) -> None:
    with pytest.raises(SerializationError) as caught:
        to_json_value(value)
    assert caught.value.path == path
    assert str(caught.value).startswith(f"{path}: ")
    assert type_name in str(caught.value)


def test_a_cycle_is_refused_at_the_field_that_closes_it() -> None:
    rows: list[Any] = [1]
    rows.append({"back": rows})
    with pytest.raises(SerializationError, match="cycle") as caught:
        to_json_value({"rows": rows})
    assert caught.value.path == "$.rows[1].back"


def test_a_non_string_key_is_refused_with_the_path_of_its_object() -> None:
    with pytest.raises(SerializationError, match=r"key 3 \(int\) is not a string") as caught:
        to_json_value({"counts": {3: "three"}})
    assert caught.value.path == "$.counts"


def test_subclasses_of_json_types_are_refused() -> None:
    class Label(str):
        pass

    with pytest.raises(SerializationError, match="Label"):
        to_json_value({"label": Label("x")})


def test_the_same_object_twice_without_a_cycle_is_accepted() -> None:
    shared = {"n": 1}
    assert to_json_value({"a": shared, "b": [shared]}) == {"a": {"n": 1}, "b": [{"n": 1}]}


def test_tuples_become_lists_and_the_result_is_a_copy() -> None:
    source: dict[str, Any] = {"pair": (1, 2), "inner": {"x": [True, None, 1.5]}}
    result = to_json_value(source)
    assert result == {"pair": [1, 2], "inner": {"x": [True, None, 1.5]}}
    result["inner"]["x"].append("changed")
    assert source["inner"]["x"] == [True, None, 1.5]


def test_nesting_deeper_than_the_limit_is_refused() -> None:
    value: Any = []
    for _ in range(300):
        value = [value]
    with pytest.raises(SerializationError, match="nested deeper than 200 levels"):
        to_json_value(value)


def test_canonical_text_sorts_keys_keeps_unicode_and_has_no_spaces() -> None:
    assert dumps_canonical({"b": 1, "a": ["é", 2.5]}) == '{"a":["é",2.5],"b":1}'


def test_strict_loading_refuses_nan_and_duplicate_keys() -> None:
    with pytest.raises(ValueError, match="NaN is not valid JSON"):
        loads_strict('{"x": NaN}')
    with pytest.raises(ValueError, match="duplicate key 'x'"):
        loads_strict('{"x": 1, "x": 2}')


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4),
    max_leaves=30,
)


@settings(deadline=None)  # the round trip, not its speed: hypothesis's 200 ms deadline fails on a loaded machine
@given(json_values)
def test_canonical_text_round_trips_byte_stable(value: Any) -> None:
    text = dumps_canonical(value)
    assert dumps_canonical(loads_strict(text)) == text
    assert json.loads(text) == value
