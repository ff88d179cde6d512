"""``last_error`` and ``@error`` after a real exception in a real kernel (nbclient + ipykernel)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.real_kernel import errors, printed, run_cells

FAILING_CELL = """\
def load(path):
    return open(path).read()

load("missing-data.csv")
"""


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return run_cells(tmp_path_factory.mktemp("last-error"), [
        "from notebook_chat.tools import kernel\n"
        "tools = {tool.name: tool for tool in kernel()}\n"
        "print((await tools['last_error'].invoke({})).content)",
        FAILING_CELL,
        "print((await tools['last_error'].invoke({})).content)",
        "from notebook_chat import Chat\n"
        "from notebook_chat.testing import ScriptedProvider\n"
        "provider = ScriptedProvider().text('The file is missing.')\n"
        "chat = Chat(provider)\n"
        "await chat.send('why did this fail? @error')\n"
        "print(provider.requests[0]['messages'][2]['content'])",
    ])


def test_before_any_exception_last_error_says_there_is_none(executed: Any) -> None:
    assert printed(executed.cells[0]).startswith("No exception has been raised in this kernel yet")


def test_after_a_failed_cell_last_error_gives_type_message_and_the_users_frames(executed: Any) -> None:
    assert errors(executed.cells[1]) == ["FileNotFoundError: [Errno 2] No such file or directory: 'missing-data.csv'"]
    text = printed(executed.cells[2])
    assert text.startswith("Most recent exception in this kernel: FileNotFoundError\n"
                           "Message: [Errno 2] No such file or directory: 'missing-data.csv'\n")
    assert 'load("missing-data.csv")' in text
    assert "return open(path).read()" in text
    first_frame = text.split("Traceback (most recent call last):\n")[1].splitlines()[0]
    assert first_frame.startswith('  File "')
    assert "ipykernel_" in first_frame


def test_at_error_injects_the_last_exception_into_the_turn(executed: Any) -> None:
    injected = printed(executed.cells[3])
    assert injected.startswith("Most recent exception in this kernel: FileNotFoundError")
    assert 'load("missing-data.csv")' in injected
