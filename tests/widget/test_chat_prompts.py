"""Chat(prompts=[...]): suggested first messages reach the widget's view; bad ones are refused when built."""

from __future__ import annotations

import pytest

from notebook_chat import Chat
from notebook_chat.persistence import MemoryStore
from notebook_chat.testing import ScriptedProvider


def make(prompts: object) -> Chat:
    return Chat(ScriptedProvider(), store=MemoryStore(), key="p", prompts=prompts)  # type: ignore[arg-type]


def test_prompts_are_in_the_view_the_widget_draws() -> None:
    chat = make(["  Which tables are there? ", "Plot sales"])
    assert chat.view_state()["prompts"] == ["Which tables are there?", "Plot sales"]


@pytest.mark.parametrize("prompts", [[""], ["   "], [None], [3], ["x" * 2_001], ["p"] * 13])
def test_prompts_that_are_not_short_non_empty_strings_are_refused(prompts: object) -> None:
    with pytest.raises(ValueError, match="prompt"):
        make(prompts)
