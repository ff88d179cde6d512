"""Property: the one-pass walk that gates every stored record (``record._scan``) refuses exactly what the path-naming
scans refuse (strict JSON, then secrets), for generated values mixing every hostile class of leaf and key with the
shapes records have (nested objects, lists, tuples, header objects, depth around the limit)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from notebook_chat.persistence.errors import SecretError, SerializationError
from notebook_chat.persistence.jsonsafe import MAX_DEPTH, to_json_value
from notebook_chat.persistence.record import _scan
from notebook_chat.persistence.secrets import assert_no_secrets

leaves = st.one_of(
    st.text(max_size=12), st.sampled_from(["é", "\ud800", "Bearer abcdefghijk", "token 123456789", "plain"]),
    st.integers(), st.floats(allow_nan=True, allow_infinity=True), st.booleans(), st.none(),
    st.sampled_from([b"bytes", {1, 2}, object(), 10**40]),
)
keys = st.one_of(st.sampled_from(["content", "headers", "extra_headers", "api_key", "Authorization", "é", "role"]),
                 st.text(max_size=6), st.sampled_from([1, None, 2.5]))
values = st.recursive(
    leaves,
    lambda children: st.one_of(st.lists(children, max_size=4), st.tuples(children, children),
                               st.dictionaries(keys, children, max_size=4)),
    max_leaves=25,
)


def slow_refuses(value: Any) -> bool:
    try:
        to_json_value(value)
        assert_no_secrets(value)
    except (SerializationError, SecretError):
        return True
    return False


def walk_refuses(value: Any) -> bool:
    try:
        _scan(value)
    except (SerializationError, SecretError):
        return True
    return False


@settings(max_examples=600, deadline=None)
@given(values)
def test_the_walk_refuses_exactly_what_the_path_naming_scans_refuse(value: Any) -> None:
    assert walk_refuses(value) == slow_refuses(value)


@settings(deadline=None)  # what is refused, not how fast: a loaded machine took 483 ms (the default deadline: 200)
@given(st.integers(min_value=MAX_DEPTH - 3, max_value=MAX_DEPTH + 3), st.booleans(), leaves)
def test_nesting_around_the_depth_limit_is_refused_by_both_alike(depth: int, as_list: bool, leaf: Any) -> None:
    value: Any = leaf
    for _ in range(depth):
        value = [value] if as_list else {"k": value}
    assert walk_refuses(value) == slow_refuses(value)


def test_a_value_the_walk_accepts_measures_the_size_of_its_compact_json() -> None:
    value = {"a": ["xy", {"é": "ü"}, None, True], "b": ()}
    assert _scan(value) == len('{"a":["xy",{"é":"ü"},null,true],"b":[]}'.encode())
