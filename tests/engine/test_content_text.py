"""The text of a message (engine/messages.py content_text): one reading of a content that is a string or a list of
content parts, used by every layer (converters, history repair, demo model, transcript, export)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import notebook_chat
from notebook_chat.engine.messages import content_text

PARTS = [{"type": "text", "text": "one"}, {"type": "image_url", "image_url": {"url": "x"}},
         {"type": "input_text", "text": "two"}, {"type": "output_text", "text": "three"}, {"text": "four"}]


def test_a_string_is_its_own_text() -> None:
    assert content_text("hello\n") == "hello\n"


@pytest.mark.parametrize("separator", ["", " ", "\n", "\n\n"])
def test_the_text_parts_are_joined_by_the_separator_and_other_parts_left_out(separator: str) -> None:
    assert content_text(PARTS, separator) == separator.join(["one", "two", "three", "four"])


@pytest.mark.parametrize("content", [None, 3, {"text": "x"}, [], ["text"], [{"type": "text", "text": 7}],
                                     [{"type": "refusal", "refusal": "no"}]])
def test_anything_else_has_no_text(content: Any) -> None:
    assert content_text(content) == ""


def test_no_other_module_reads_the_text_of_content_parts_itself() -> None:
    package = Path(notebook_chat.__file__).parent
    readers = [path.relative_to(package).as_posix() for path in package.rglob("*.py")
               if path.name != "messages.py" and 'part.get("text"' in path.read_text()]
    assert readers == []
