"""What one save sends for a text that changed: a long text that grew sends only what it grew by."""

from __future__ import annotations

from notebook_chat.persistence.patches import MIN_APPEND, apply_ops, diff


def test_a_long_reply_that_grew_by_a_few_characters_sends_only_those_characters() -> None:
    old = {"content": "x" * 50_000}
    new = {"content": "x" * 50_000 + "tail!"}

    ops = diff(old, new)

    assert ops == [{"op": "append", "path": ["content"], "at": 50_000, "text": "tail!"}]
    assert apply_ops({"content": "x" * 50_000}, ops) == new


def test_a_short_text_that_grew_is_set_whole() -> None:
    short = "a" * (MIN_APPEND - 1)

    assert diff({"content": short}, {"content": short + "b"}) == [
        {"op": "set", "path": ["content"], "value": short + "b"}]


def test_a_long_text_that_was_rewritten_is_set_whole() -> None:
    old = {"content": "y" * 100}

    assert diff(old, {"content": "z" + "y" * 100}) == [{"op": "set", "path": ["content"], "value": "z" + "y" * 100}]
