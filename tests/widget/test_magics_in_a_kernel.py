"""``%%chat`` and ``%chat`` in a real kernel (nbclient + ipykernel): the reply as Markdown in the cell's output."""

from __future__ import annotations

from typing import Any

import pytest

from notebook_chat.widget.magics import rewrite_chat_magics
from tests.real_kernel import errors, printed, run_cells

SETUP = """\
%load_ext notebook_chat
from notebook_chat import Chat, tool
from notebook_chat.testing import ScriptedProvider

@tool(approval=True)
def drop_table(name: str) -> str:
    '''Drop a table.'''
    return f"dropped {name}"

provider = ScriptedProvider().text("**Hello** from the *default* chat").text("line reply")
chat = Chat(provider, tools=[drop_table], restore_timeout=0)
chat
"""

OTHER = """\
helper = Chat(ScriptedProvider().text("the helper answers").text("helper line"), restore_timeout=0)
gated = Chat(ScriptedProvider()
             .tool_calls([{"name": "drop_table", "arguments": {"name": "t1"}, "id": "c1"}])
             .text("Table t1 is gone."), tools=[drop_table], restore_timeout=0)
waiting = Chat(ScriptedProvider().tool_calls([{"name": "drop_table", "arguments": {"name": "t2"}, "id": "c2"}]),
               tools=[drop_table], restore_timeout=0)
import pandas as pd
df = pd.DataFrame({"price": [1.0, 2.0]})
"""

CELLS = [
    SETUP,                                              # 0
    "%%chat\nsay hello\n",                              # 1
    "%chat and one line",                               # 2
    OTHER,                                              # 3
    "%%chat helper\nyou there?",                        # 4
    "%chat helper one line for the helper",             # 5
    "%%chat gated\ndrop t1",                            # 6
    "await gated.approve('c1')",                        # 7
    "print([m['content'] for m in provider.requests[0]['messages']])",  # 8
    "%%chat nothing_here\nhi",                          # 9
    "%%chat df\nhi",                                    # 10
    "print(len(gated.engine.messages), gated.state.request_state)",    # 11
    "%%chat waiting\ndrop t2",                          # 12
    "zh = Chat(ScriptedProvider().tool_calls([{'name': 'drop_table', 'arguments': {'name': 't3'}, 'id': 'c3'}]),\n"
    "          tools=[drop_table], locale='zh-CN', restore_timeout=0)",   # 13
    "%%chat zh\ndrop t3",                               # 14
    "%%chat zh\nagain",                                 # 15
]


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return run_cells(tmp_path_factory.mktemp("magics"), CELLS)


def markdown(cell: Any) -> list[str]:
    return [output.data["text/markdown"] for output in cell.outputs
            if output.output_type == "display_data" and "text/markdown" in output.data]


def test_a_chat_cell_sends_its_text_to_the_displayed_chat_and_shows_the_reply_as_markdown(executed: Any) -> None:
    assert errors(executed.cells[1]) == []
    assert markdown(executed.cells[1]) == ["**Hello** from the *default* chat"]
    assert printed(executed.cells[8]).startswith("['say hello'")


def test_a_chat_line_sends_the_rest_of_the_line(executed: Any) -> None:
    assert markdown(executed.cells[2]) == ["line reply"]


def test_a_chat_cell_with_a_name_sends_to_the_chat_in_that_variable(executed: Any) -> None:
    assert markdown(executed.cells[4]) == ["the helper answers"]
    assert markdown(executed.cells[5]) == ["helper line"]


def test_a_call_that_needs_approval_is_left_to_the_widget_and_the_reply_follows_when_the_turn_ends(
        executed: Any) -> None:
    assert errors(executed.cells[6]) == []
    assert markdown(executed.cells[6]) == ["Table t1 is gone."]  # updated in place after the approval
    assert printed(executed.cells[11]) == "4 completed\n"


def test_while_a_call_waits_for_approval_the_output_says_to_decide_in_the_widget(executed: Any) -> None:
    assert markdown(executed.cells[12]) == [
        "**Waiting for your approval in the chat widget:** `drop_table`. Approve or Deny there (or with "
        "`await chat.approve(...)`); the reply appears here when the turn ends."]


def test_a_chinese_chat_says_what_the_cell_waits_for_in_chinese(executed: Any) -> None:
    assert markdown(executed.cells[14]) == [
        "**正在对话小部件中等待你的批准：**`drop_table`。请在那里批准或拒绝（或用 `await chat.approve(...)`）；"
        "本轮结束后回复会显示在这里。"]


def test_a_message_a_chinese_chat_refuses_says_why_in_chinese_in_the_cells_output(executed: Any) -> None:
    assert markdown(executed.cells[15]) == ["**未发送：**本轮正在等待批准：请等待、停止它，或先处理待决的工具调用"]


def test_a_name_that_is_not_a_chat_is_a_clear_error(executed: Any) -> None:
    assert errors(executed.cells[9]) == ["ValueError: %%chat nothing_here: the variable 'nothing_here' is not defined."]
    assert errors(executed.cells[10]) == ["ValueError: %%chat df: the variable 'df' is a DataFrame, not a Chat."]


def test_the_rewrite_turns_a_chat_cell_into_an_await_and_leaves_other_code_alone() -> None:
    cell = rewrite_chat_magics(["%%chat helper\n", "line 1\n", "line 2 with 'quotes' and \\ backslash\n"])
    assert cell == ["await __import__('notebook_chat.widget.magics', fromlist=['send_from_magic']).send_from_magic("
                    "'helper', \"line 1\\nline 2 with 'quotes' and \\\\ backslash\\n\", line=False)\n"]
    code = ["x = 1\n", "    %chat indented stays a magic\n", "print('%chat in a string')\n"]
    assert rewrite_chat_magics(code) == code
    assert rewrite_chat_magics(["%chat hi @df\n"])[0].endswith("send_from_magic('', 'hi @df', line=True)\n")
    assert rewrite_chat_magics(["%%chatter\n", "x\n"]) == ["%%chatter\n", "x\n"]
